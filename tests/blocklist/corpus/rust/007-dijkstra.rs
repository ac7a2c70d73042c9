use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// A weighted directed graph stored as an adjacency list.
struct Graph<'a> {
    edges: HashMap<&'a str, Vec<(&'a str, u32)>>,
}

impl<'a> Graph<'a> {
    fn from_edges(list: &[(&'a str, &'a str, u32)]) -> Self {
        let mut edges: HashMap<&'a str, Vec<(&'a str, u32)>> = HashMap::new();
        for &(a, b, w) in list {
            edges.entry(a).or_default().push((b, w));
            edges.entry(b).or_default().push((a, w));
        }
        Graph { edges }
    }

    /// Returns (distance, path) for the shortest route, if any.
    fn shortest(&self, start: &'a str, goal: &'a str) -> Option<(u32, Vec<&'a str>)> {
        let mut dist: HashMap<&str, u32> = HashMap::new();
        let mut prev: HashMap<&str, &str> = HashMap::new();
        let mut heap = BinaryHeap::new();
        dist.insert(start, 0);
        heap.push(Reverse((0u32, start)));
        while let Some(Reverse((d, node))) = heap.pop() {
            if node == goal {
                let mut path = vec![goal];
                let mut cur = goal;
                while let Some(&p) = prev.get(cur) {
                    path.push(p);
                    cur = p;
                }
                path.reverse();
                return Some((d, path));
            }
            if d > *dist.get(node).unwrap_or(&u32::MAX) {
                continue;
            }
            for &(next, w) in self.edges.get(node).map(|v| v.as_slice()).unwrap_or(&[]) {
                let nd = d + w;
                if nd < *dist.get(next).unwrap_or(&u32::MAX) {
                    dist.insert(next, nd);
                    prev.insert(next, node);
                    heap.push(Reverse((nd, next)));
                }
            }
        }
        None
    }
}

fn main() {
    let roads = [
        ("Amsterdam", "Utrecht", 45),
        ("Amsterdam", "Haarlem", 20),
        ("Haarlem", "Leiden", 35),
        ("Leiden", "The Hague", 20),
        ("The Hague", "Rotterdam", 25),
        ("Utrecht", "Rotterdam", 60),
        ("Utrecht", "Arnhem", 65),
        ("Rotterdam", "Breda", 50),
        ("Breda", "Eindhoven", 60),
        ("Arnhem", "Eindhoven", 85),
    ];
    let g = Graph::from_edges(&roads);
    let queries = [
        ("Amsterdam", "Rotterdam"),
        ("Haarlem", "Eindhoven"),
        ("Leiden", "Arnhem"),
        ("Amsterdam", "Groningen"),
    ];
    for (a, b) in queries {
        match g.shortest(a, b) {
            Some((d, path)) => println!("{:>9} -> {:<10} {:>4} km via {}", a, b, d, path.join(" > ")),
            None => println!("{:>9} -> {:<10} unreachable", a, b),
        }
    }
}
