//! A small tokenizer for Rust source, written to highlight the tricky parts:
//! char literals versus lifetimes, raw strings, byte strings and nested
//! /* block /* comments */ like this one */.

#[derive(Debug, PartialEq)]
enum Token<'s> { Ident(&'s str), Lifetime(&'s str), Char(&'s str), Str(&'s str), Comment(&'s str), Punct(char) }

fn lex(src: &str) -> Vec<Token<'_>> {
    let b = src.as_bytes();
    let mut toks = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        let c = b[i];
        if c.is_ascii_whitespace() { i += 1; continue; }
        if src[i..].starts_with("//") {
            while i < b.len() && b[i] != b'\n' { i += 1; }
            toks.push(Token::Comment(&src[start..i]));
        } else if src[i..].starts_with("/*") {
            let mut depth = 0;
            while i < b.len() {
                if src[i..].starts_with("/*") { depth += 1; i += 2; }
                else if src[i..].starts_with("*/") { depth -= 1; i += 2; if depth == 0 { break; } }
                else { i += 1; }
            }
            toks.push(Token::Comment(&src[start..i]));
        } else if src[i..].starts_with("r#") || src[i..].starts_with("r\"") || src[i..].starts_with("br") {
            i += if c == b'b' { 2 } else { 1 };
            let hashes = src[i..].bytes().take_while(|&h| h == b'#').count();
            let close = format!("\"{}", "#".repeat(hashes));
            i += hashes + 1;
            i += src[i..].find(&close).map(|p| p + close.len()).unwrap_or(b.len() - i);
            toks.push(Token::Str(&src[start..i]));
        } else if c == b'"' || (c == b'b' && b.get(i + 1) == Some(&b'"')) {
            i += if c == b'b' { 2 } else { 1 };
            while i < b.len() && b[i] != b'"' { i += if b[i] == b'\\' { 2 } else { 1 }; }
            i += 1;
            toks.push(Token::Str(&src[start..i]));
        } else if c == b'\'' {
            // 'x' or '\n' or '\u{..}' is a char; 'a followed by no closing quote is a lifetime.
            let rest = &src[i + 1..];
            let ch_len = rest.chars().next().map_or(0, |ch| ch.len_utf8());
            if rest.starts_with('\\') {
                // skip the backslash and the escaped character, then find the closing quote
                let end = rest[2..].find('\'').map(|p| p + 3).unwrap_or(rest.len());
                i += 1 + end;
                toks.push(Token::Char(&src[start..i]));
            } else if rest[ch_len..].starts_with('\'') {
                i += 1 + ch_len + 1;
                toks.push(Token::Char(&src[start..i]));
            } else {
                i += 1;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') { i += 1; }
                toks.push(Token::Lifetime(&src[start..i]));
            }
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') { i += 1; }
            toks.push(Token::Ident(&src[start..i]));
        } else {
            let ch = src[i..].chars().next().unwrap();
            i += ch.len_utf8();
            toks.push(Token::Punct(ch));
        }
    }
    toks
}

fn main() {
    let sample = r##"
fn longest<'a, 'b: 'a>(x: &'a str, y: &'b str) -> &'a str { /* outer /* inner */ still comment */ x }
static GREETING: &'static str = "say \"hi\" and 'bye'";
let quote = '\''; let dq = '"'; let smile = '\u{1F600}'; let e = 'é';
let raw = r#"a "quoted" word and a # sign"#; let bytes = b"GET /\r\n"; let rb = br"C:\path";
// trailing comment with 'apostrophes' and "quotes"
"##;
    let toks = lex(sample);
    let count = |f: fn(&Token) -> bool| toks.iter().filter(|t| f(t)).count();
    for t in toks.iter().filter(|t| !matches!(t, Token::Punct(_) | Token::Ident(_))) {
        println!("{:?}", t);
    }
    println!("lifetimes={} chars={} strings={} comments={} idents={}",
        count(|t| matches!(t, Token::Lifetime(_))), count(|t| matches!(t, Token::Char(_))),
        count(|t| matches!(t, Token::Str(_))), count(|t| matches!(t, Token::Comment(_))),
        count(|t| matches!(t, Token::Ident(_))));

    /* The same constructs used for real in this program.
       Rust block comments nest: /* this inner comment */ does not end the outer one. */
    let quote: char = '\'';
    let dq: char = '"';
    let smile = '\u{1F600}';
    let raw = r#"she said "it's fine" /* not a comment */"#;
    let bytes: &'static [u8; 4] = b"\x00AB\n";
    println!("{} {} {} {} {:?}", quote, dq, smile, raw, bytes);
    assert_eq!(count(|t| matches!(t, Token::Lifetime(_))), 7);
    assert_eq!(count(|t| matches!(t, Token::Char(_))), 4);
}
