use std::collections::BTreeMap;

/// A prefix tree keyed by `char`, so it works for non-ASCII words too.
#[derive(Default, Debug)]
struct Trie {
    children: BTreeMap<char, Trie>,
    count: u32,
    terminal: bool,
}

impl Trie {
    fn insert(&mut self, word: &str) {
        let mut node = self;
        for c in word.chars() {
            node = node.children.entry(c).or_default();
            node.count += 1;
        }
        node.terminal = true;
    }

    fn find(&self, prefix: &str) -> Option<&Trie> {
        let mut node = self;
        for c in prefix.chars() {
            node = node.children.get(&c)?;
        }
        Some(node)
    }

    fn collect(&self, prefix: &mut String, out: &mut Vec<String>, limit: usize) {
        if out.len() >= limit {
            return;
        }
        if self.terminal {
            out.push(prefix.clone());
        }
        for (c, child) in &self.children {
            prefix.push(*c);
            child.collect(prefix, out, limit);
            prefix.pop();
        }
    }

    fn complete(&self, prefix: &str, limit: usize) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(node) = self.find(prefix) {
            let mut p = prefix.to_string();
            node.collect(&mut p, &mut out, limit);
        }
        out
    }

    fn words_with_prefix(&self, prefix: &str) -> u32 {
        self.find(prefix).map(|n| n.count).unwrap_or(0)
    }
}

fn main() {
    let words = "car cart carbon care careful cargo cat catalog dog dodge door \
                 über übung überall zebra zeal zero zen";
    let mut trie = Trie::default();
    for w in words.split_whitespace() {
        trie.insert(w);
    }
    for prefix in ["car", "ca", "do", "üb", "ze", "q", ""] {
        let found = trie.complete(prefix, 5);
        println!(
            "{:>4?} -> {} total, first {}: {}",
            prefix,
            if prefix.is_empty() { words.split_whitespace().count() as u32 } else { trie.words_with_prefix(prefix) },
            found.len(),
            found.join(", ")
        );
    }
    assert!(trie.find("cargo").map_or(false, |n| n.terminal));
    assert!(!trie.find("carg").unwrap().terminal);
    println!("checks passed");
}
