use std::process::Command;

/// Quotes a string so a POSIX shell reads it back as exactly one word.
/// Single quotes protect everything except a single quote itself, which is
/// written as '\'' (close, escaped quote, reopen).
fn shell_quote(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:,@+%".contains(c)) {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', r#"'\''"#))
}

/// Splits a command line the way a shell would for simple cases: whitespace
/// separation, single quotes, double quotes with backslash escapes.
fn shell_split(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(ch) => cur.push(ch),
                        None => return Err("unterminated single quote".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') if matches!(chars.peek(), Some('"') | Some('\\') | Some('$') | Some('`')) => cur.push(chars.next().unwrap()),
                        Some(ch) => cur.push(ch),
                        None => return Err("unterminated double quote".into()),
                    }
                }
            }
            '\\' => { in_word = true; if let Some(n) = chars.next() { cur.push(n); } }
            c if c.is_whitespace() => {
                if in_word { words.push(std::mem::take(&mut cur)); in_word = false; }
            }
            c => { in_word = true; cur.push(c); }
        }
    }
    if in_word { words.push(cur); }
    Ok(words)
}

fn main() {
    // Inputs a user might type into a "file name" box. Quoting keeps them
    // inert: `; rm -rf /` stays a file name instead of becoming a command.
    let tricky = [
        "report.txt",
        "my file.txt",
        "it's mine",
        "$(whoami)",
        "`id`",
        "; rm -rf / #",
        "a\"b\\c",
        "",
        "naïve – ünïcode",
        "*.log",
    ];
    let quoted: Vec<String> = tricky.iter().map(|s| shell_quote(s)).collect();
    for (raw, q) in tricky.iter().zip(&quoted) {
        println!("{:<20} => {}", format!("{:?}", raw), q);
    }

    // Round-trip through our own splitter...
    let line = quoted.join(" ");
    let back = shell_split(&line).expect("valid quoting");
    assert_eq!(back, tricky.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    println!("splitter round trip ok ({} words)", back.len());

    // ...and through a real shell: printf prints each argument on its own line.
    let script = format!("printf '%s\\n' {}", line);
    let out = Command::new("sh").arg("-c").arg(&script).output().expect("sh is available");
    let printed = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = printed.split('\n').collect();
    let matched = tricky.iter().zip(lines.iter()).filter(|(a, b)| a == b).count();
    println!("real shell round trip: {}/{} words identical, exit {:?}", matched, tricky.len(), out.status.code());

    for bad in [r#"echo "unfinished"#, "echo 'also unfinished"] {
        println!("{:?} -> {:?}", bad, shell_split(bad));
    }
    println!("{:?}", shell_split(r#"grep -n "a \"quoted\" word" 'file one.txt' plain\ escaped"#));
}
