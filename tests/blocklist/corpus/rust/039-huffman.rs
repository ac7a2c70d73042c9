use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

/// Huffman tree node. Leaves hold a character, internal nodes two children.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Node {
    Leaf(char),
    Internal(Box<Node>, Box<Node>),
}

fn build_tree(text: &str) -> Option<Node> {
    let mut freq: BTreeMap<char, usize> = BTreeMap::new();
    for c in text.chars() {
        *freq.entry(c).or_insert(0) += 1;
    }
    // The sequence number makes ordering deterministic when weights tie.
    let mut heap: BinaryHeap<Reverse<(usize, usize, Node)>> =
        freq.into_iter().enumerate().map(|(i, (c, n))| Reverse((n, i, Node::Leaf(c)))).collect();
    let mut seq = heap.len();
    while heap.len() > 1 {
        let Reverse((w1, _, a)) = heap.pop()?;
        let Reverse((w2, _, b)) = heap.pop()?;
        heap.push(Reverse((w1 + w2, seq, Node::Internal(Box::new(a), Box::new(b)))));
        seq += 1;
    }
    heap.pop().map(|Reverse((_, _, n))| n)
}

fn codes(node: &Node, prefix: String, out: &mut BTreeMap<char, String>) {
    match node {
        Node::Leaf(c) => {
            out.insert(*c, if prefix.is_empty() { "0".to_string() } else { prefix });
        }
        Node::Internal(l, r) => {
            codes(l, format!("{}0", prefix), out);
            codes(r, format!("{}1", prefix), out);
        }
    }
}

fn decode(root: &Node, bits: &str) -> String {
    let mut out = String::new();
    let mut node = root;
    for b in bits.chars() {
        if let Node::Internal(l, r) = node {
            node = if b == '0' { l } else { r };
        }
        if let Node::Leaf(c) = node {
            out.push(*c);
            node = root;
        }
    }
    out
}

fn main() {
    let samples = [
        "abracadabra",
        "she sells sea shells by the sea shore",
        "aaaaaaaa",
        "naïve café — déjà vu ✓",
    ];
    for text in samples {
        let tree = build_tree(text).expect("non-empty input");
        let mut table = BTreeMap::new();
        codes(&tree, String::new(), &mut table);
        let encoded: String = text.chars().map(|c| table[&c].as_str()).collect();
        let decoded = if table.len() == 1 { text.to_string() } else { decode(&tree, &encoded) };
        assert_eq!(decoded, text);
        let raw_bits = text.len() * 8;
        println!("{:?}", text);
        println!(
            "  {} symbols, {} bits vs {} raw bits ({:.1}% of original)",
            table.len(),
            encoded.len(),
            raw_bits,
            100.0 * encoded.len() as f64 / raw_bits as f64
        );
        let mut by_len: Vec<(&char, &String)> = table.iter().collect();
        by_len.sort_by_key(|(c, code)| (code.len(), **c));
        let shown: Vec<String> = by_len.iter().take(6).map(|(c, code)| format!("{:?}={}", c, code)).collect();
        println!("  shortest codes: {}", shown.join(" "));
    }
    assert!(build_tree("").is_none());
}
