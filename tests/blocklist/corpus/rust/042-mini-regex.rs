/// A compact backtracking regex matcher supporting: literals, `.`, `^`, `$`,
/// `*`, `+`, `?`, classes `[a-z0-9_]` / `[^...]`, and escapes `\d \w \s \.`.
#[derive(Debug, Clone)]
enum Atom { Any, Lit(char), Class(Vec<(char, char)>, bool) }

#[derive(Debug, Clone)]
struct Piece { atom: Atom, min: usize, max: usize }

fn escape_class(c: char) -> Atom {
    match c {
        'd' => Atom::Class(vec![('0', '9')], false),
        'w' => Atom::Class(vec![('a', 'z'), ('A', 'Z'), ('0', '9'), ('_', '_')], false),
        's' => Atom::Class(vec![(' ', ' '), ('\t', '\t'), ('\n', '\n')], false),
        other => Atom::Lit(other),
    }
}

fn compile(pat: &str) -> Result<(bool, Vec<Piece>, bool), String> {
    let mut chars: Vec<char> = pat.chars().collect();
    let anchored_start = chars.first() == Some(&'^');
    if anchored_start { chars.remove(0); }
    let anchored_end = chars.last() == Some(&'$') && !(chars.len() >= 2 && chars[chars.len() - 2] == '\\');
    if anchored_end { chars.pop(); }
    let mut pieces = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let atom = match chars[i] {
            '.' => Atom::Any,
            '\\' => { i += 1; escape_class(*chars.get(i).ok_or("trailing backslash")?) }
            '[' => {
                let negate = chars.get(i + 1) == Some(&'^');
                i += if negate { 2 } else { 1 };
                let mut ranges = Vec::new();
                while i < chars.len() && chars[i] != ']' {
                    if i + 2 < chars.len() && chars[i + 1] == '-' && chars[i + 2] != ']' {
                        ranges.push((chars[i], chars[i + 2]));
                        i += 3;
                    } else {
                        ranges.push((chars[i], chars[i]));
                        i += 1;
                    }
                }
                if i >= chars.len() { return Err(format!("unclosed '[' in {:?}", pat)); }
                Atom::Class(ranges, negate)
            }
            '*' | '+' | '?' => return Err(format!("nothing to repeat at {}", i)),
            c => Atom::Lit(c),
        };
        i += 1;
        let (min, max) = match chars.get(i) {
            Some('*') => { i += 1; (0, usize::MAX) }
            Some('+') => { i += 1; (1, usize::MAX) }
            Some('?') => { i += 1; (0, 1) }
            _ => (1, 1),
        };
        pieces.push(Piece { atom, min, max });
    }
    Ok((anchored_start, pieces, anchored_end))
}

fn atom_matches(a: &Atom, c: char) -> bool {
    match a {
        Atom::Any => c != '\n',
        Atom::Lit(l) => *l == c,
        Atom::Class(ranges, neg) => ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi) != *neg,
    }
}

/// Returns the end index of a match of `pieces` starting at `text[pos..]`.
fn match_here(pieces: &[Piece], text: &[char], pos: usize, end_anchor: bool) -> Option<usize> {
    let Some((p, rest)) = pieces.split_first() else {
        return if !end_anchor || pos == text.len() { Some(pos) } else { None };
    };
    let mut n = 0;
    while n < p.max && pos + n < text.len() && atom_matches(&p.atom, text[pos + n]) { n += 1; }
    // Greedy: try the longest repetition first, then back off.
    (p.min..=n).rev().find_map(|k| match_here(rest, text, pos + k, end_anchor))
}

fn find(pat: &str, text: &str) -> Result<Option<String>, String> {
    let (start_anchor, pieces, end_anchor) = compile(pat)?;
    let chars: Vec<char> = text.chars().collect();
    let starts = if start_anchor { 0..1 } else { 0..chars.len() + 1 };
    for s in starts {
        if let Some(e) = match_here(&pieces, &chars, s, end_anchor) {
            return Ok(Some(chars[s..e].iter().collect()));
        }
    }
    Ok(None)
}

fn main() {
    let cases = [
        (r"^\d+\.\d+$", "3.14"),
        (r"^\d+\.\d+$", "3.14.15"),
        (r"[A-Z][a-z]+", "hello World again"),
        (r"colou?r", "what colour is it"),
        (r"\w+@\w+\.\w+", "mail bob@example.org now"),
        (r"[^ ]+\.rs$", "src/main.rs"),
        (r#""[^"]*""#, r#"say "hi there" twice"#),
        (r"[0-9", "oops"),
        (r"+x", "oops"),
        (r"\$\d+", "costs $250 today"),
    ];
    for (pat, text) in cases {
        match find(pat, text) {
            Ok(Some(m)) => println!("{:<18} in {:<28} -> {:?}", pat, format!("{:?}", text), m),
            Ok(None) => println!("{:<18} in {:<28} -> no match", pat, format!("{:?}", text)),
            Err(e) => println!("{:<18} error: {}", pat, e),
        }
    }
    // Flag risky calls in a Python snippet under review (text only, never run).
    let review = "import os\nimport ctypes\nout = eval(user_input)\nos.system('ls -l')\npid = os.fork()\nexec(code, {})\nprint('done')";
    let risky = [r"^import ctypes$", r"eval\(", r"exec\(", r"os\.system\(", r"os\.fork\(\)"];
    for (n, line) in review.lines().enumerate() {
        let hits: Vec<&str> = risky.iter().copied().filter(|p| matches!(find(p, line), Ok(Some(_)))).collect();
        if !hits.is_empty() { println!("review line {}: {:<24} flagged by {:?}", n + 1, line, hits); }
    }
}
