/// Greedy word wrapping, full justification and centered text, counting
/// characters (not bytes) so that accented text is measured correctly.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut current = String::new();
    for word in text.split_whitespace() {
        let wlen = word.chars().count();
        let clen = current.chars().count();
        if clen > 0 && clen + 1 + wlen > width {
            lines.push(std::mem::take(&mut current));
        }
        if wlen > width {
            // Hard-break words longer than a whole line.
            let chars: Vec<char> = word.chars().collect();
            for piece in chars.chunks(width) {
                if !current.is_empty() { lines.push(std::mem::take(&mut current)); }
                current = piece.iter().collect();
            }
            continue;
        }
        if !current.is_empty() { current.push(' '); }
        current.push_str(word);
    }
    if !current.is_empty() { lines.push(current); }
    lines
}

fn justify(line: &str, width: usize) -> String {
    let words: Vec<&str> = line.split(' ').collect();
    if words.len() < 2 { return line.to_string(); }
    let letters: usize = words.iter().map(|w| w.chars().count()).sum();
    let gaps = words.len() - 1;
    let spaces = width.saturating_sub(letters);
    let (each, extra) = (spaces / gaps, spaces % gaps);
    let mut out = String::new();
    for (i, w) in words.iter().enumerate() {
        out.push_str(w);
        if i < gaps { out.push_str(&" ".repeat(each + usize::from(i < extra))); }
    }
    out
}

fn center(line: &str, width: usize) -> String {
    let len = line.chars().count();
    let left = width.saturating_sub(len) / 2;
    format!("{}{}", " ".repeat(left), line)
}

const TEXT: &str = "Le cœur a ses raisons que la raison ne connaît point. \
    Rust's ownership model makes \"fearless concurrency\" possible, \
    and pneumonoultramicroscopicsilicovolcanoconiosis is a very long word \
    that has to be split across lines when the column is narrow.";

fn main() {
    let width = 36;
    let ruler: String = (0..width).map(|i| if i % 10 == 9 { '|' } else { '-' }).collect();
    println!("{}", ruler);
    let lines = wrap(TEXT, width);
    for l in &lines {
        println!("{}", l);
    }
    println!("{}", ruler);
    let last = lines.len() - 1;
    for (i, l) in lines.iter().enumerate() {
        println!("{}", if i == last { l.clone() } else { justify(l, width) });
    }
    println!("{}", ruler);
    for l in wrap("~ fin ~  •  Ω  •  end of document", 20) {
        println!("{}", center(&l, width));
    }
    assert!(lines.iter().all(|l| l.chars().count() <= width));
    assert_eq!(justify("a b c", 9), "a   b   c");
    assert_eq!(wrap("", 10).len(), 0);
    println!("{} lines, widest {} chars", lines.len(), lines.iter().map(|l| l.chars().count()).max().unwrap_or(0));
}
