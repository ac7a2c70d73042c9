use std::collections::HashMap;

// A short passage with "quoted" words, apostrophes and punctuation.
const TEXT: &str = r#"It was the best of times, it was the worst of times; it was the
age of wisdom, it was the age of foolishness. "Quoted words" count too,
and so do words like don't and it's -- or "so-called" compound words.
The end? The END!"#;

const STOP_WORDS: [&str; 8] = ["the", "of", "it", "was", "and", "so", "do", "or"];

fn normalize(word: &str) -> Option<String> {
    let w: String = word
        .trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
        .trim_matches('\'')
        .to_lowercase();
    if w.is_empty() {
        None
    } else {
        Some(w)
    }
}

fn main() {
    let mut counts: HashMap<String, usize> = HashMap::new();
    let mut total = 0;
    for raw in TEXT.split_whitespace() {
        for part in raw.split("--") {
            if let Some(w) = normalize(part) {
                total += 1;
                *counts.entry(w).or_default() += 1;
            }
        }
    }

    let mut entries: Vec<(&String, &usize)> = counts.iter().collect();
    entries.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));

    println!("total words: {}, distinct: {}", total, counts.len());
    println!("top 10 (including stop words):");
    for (word, n) in entries.iter().take(10) {
        let bar = "#".repeat(**n);
        println!("  {:<14} {:>2} {}", word, n, bar);
    }

    let interesting: Vec<_> = entries
        .iter()
        .filter(|(w, _)| !STOP_WORDS.contains(&w.as_str()))
        .take(5)
        .map(|(w, n)| format!("{}={}", w, n))
        .collect();
    println!("top content words: {}", interesting.join(", "));

    let contractions: Vec<&String> = counts.keys().filter(|w| w.contains('\'')).collect();
    let mut contractions = contractions;
    contractions.sort();
    println!("contractions: {:?}", contractions);

    let longest = counts.keys().max_by_key(|w| (w.chars().count(), std::cmp::Reverse((*w).clone()))).unwrap();
    println!("longest word: {:?} ({} chars)", longest, longest.chars().count());

    let sentences = TEXT
        .split(|c| c == '.' || c == '!' || c == '?' || c == ';')
        .filter(|s| !s.trim().is_empty())
        .count();
    println!("sentences (roughly): {}", sentences);
}
