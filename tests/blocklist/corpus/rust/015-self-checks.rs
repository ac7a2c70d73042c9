/// A handful of utility functions with a small self-test harness, the way you
/// would check things quickly without setting up `cargo test`.
fn is_palindrome(s: &str) -> bool {
    let cleaned: Vec<char> = s.chars().filter(|c| c.is_alphanumeric()).flat_map(|c| c.to_lowercase()).collect();
    cleaned.iter().eq(cleaned.iter().rev())
}

fn roman(mut n: u32) -> String {
    const TABLE: [(u32, &str); 13] = [
        (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
        (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
    ];
    let mut out = String::new();
    for &(v, s) in TABLE.iter() {
        while n >= v {
            out.push_str(s);
            n -= v;
        }
    }
    out
}

fn caesar(s: &str, shift: u8) -> String {
    s.chars()
        .map(|c| match c {
            'a'..='z' => ((c as u8 - b'a' + shift) % 26 + b'a') as char,
            'A'..='Z' => ((c as u8 - b'A' + shift) % 26 + b'A') as char,
            _ => c,
        })
        .collect()
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

fn escape_html(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
}

struct Harness { passed: usize, failed: Vec<String> }

impl Harness {
    fn check<T: PartialEq + std::fmt::Debug>(&mut self, name: &str, got: T, want: T) {
        if got == want {
            self.passed += 1;
            println!("ok   {}", name);
        } else {
            println!("FAIL {}: got {:?}, want {:?}", name, got, want);
            self.failed.push(name.to_string());
        }
    }
}

fn main() {
    let mut h = Harness { passed: 0, failed: vec![] };
    h.check("palindrome sentence", is_palindrome("A man, a plan, a canal: Panama!"), true);
    h.check("palindrome unicode", is_palindrome("Ésope reste ici et se repose"), false);
    h.check("not palindrome", is_palindrome("rust"), false);
    h.check("roman 1994", roman(1994), "MCMXCIV".to_string());
    h.check("roman 2024", roman(2024), "MMXXIV".to_string());
    h.check("caesar", caesar("Hello, World!", 3), "Khoor, Zruog!".to_string());
    h.check("caesar round trip", caesar(&caesar("abc XYZ", 13), 13), "abc XYZ".to_string());
    h.check("gcd", gcd(1071, 462), 21);
    h.check(
        "escape",
        escape_html(r#"<a href="x">Tom & 'Jerry'</a>"#),
        "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;".to_string(),
    );
    h.check("escape script", escape_html("<script>alert('hi')</script>").contains("<script>"), false);
    println!("\n{} passed, {} failed", h.passed, h.failed.len());
    if !h.failed.is_empty() {
        println!("failures: {:?}", h.failed);
    }
}
