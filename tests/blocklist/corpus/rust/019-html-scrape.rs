use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::TcpStream;

/// Fetches a page over plain HTTP. Kept for when the scraper runs for real;
/// this demo parses a saved copy of the page instead.
#[allow(dead_code)]
fn fetch(host: &str, path: &str) -> std::io::Result<String> {
    let mut stream = TcpStream::connect((host, 80))?;
    write!(stream, "GET {} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n", path, host)?;
    let mut body = String::new();
    stream.read_to_string(&mut body)?;
    Ok(body.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or(body))
}

const SAVED_PAGE: &str = r#"<!DOCTYPE html>
<html><head><title>Example Shop &amp; Co.</title></head>
<body>
  <nav><a href="/">Home</a> <a href="https://example.com/about">About</a></nav>
  <div class="product" data-sku="A-100"><h2>Coffee mug</h2><span class="price">$7.50</span></div>
  <div class="product" data-sku="B-200"><h2>Tea "Earl Grey" tin</h2><span class="price">$12.00</span></div>
  <div class="product" data-sku="C-300"><h2>Café au lait bowl</h2><span class="price">$9.25</span></div>
  <!-- <div class="product" data-sku="X-999">commented out</div> -->
  <a href='https://example.org/contact?ref=footer&amp;lang=en'>Contact</a>
</body></html>"#;

/// Returns every `attr="value"` or `attr='value'` on one tag.
fn attributes(tag: &str) -> HashMap<String, String> {
    let mut out = HashMap::new();
    let mut rest = tag;
    while let Some(eq) = rest.find('=') {
        let name = rest[..eq].rsplit(|c: char| c.is_whitespace()).next().unwrap_or("").to_string();
        let after = &rest[eq + 1..];
        let quote = after.chars().next().unwrap_or('"');
        if quote != '"' && quote != '\'' { rest = after; continue; }
        let end = after[1..].find(quote).map(|i| i + 1).unwrap_or(after.len());
        out.insert(name, after[1..end].replace("&amp;", "&"));
        rest = &after[(end + 1).min(after.len())..];
    }
    out
}

fn strip_comments(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(start) = rest.find("<!--") {
        out.push_str(&rest[..start]);
        rest = rest[start..].find("-->").map(|e| &rest[start + e + 3..]).unwrap_or("");
    }
    out.push_str(rest);
    out
}

fn text_between<'a>(s: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let start = s.find(open)? + open.len();
    let end = s[start..].find(close)? + start;
    Some(&s[start..end])
}

fn main() {
    let html = strip_comments(SAVED_PAGE);
    let title = text_between(&html, "<title>", "</title>").unwrap_or("?").replace("&amp;", "&");
    println!("title: {}", title);

    let mut links = Vec::new();
    for piece in html.split("<a ").skip(1) {
        let tag = &piece[..piece.find('>').unwrap_or(piece.len())];
        if let Some(href) = attributes(tag).get("href") {
            links.push(href.clone());
        }
    }
    println!("links: {:?}", links);

    let mut total = 0.0;
    for block in html.split("<div class=\"product\"").skip(1) {
        let tag_end = block.find('>').unwrap();
        let sku = attributes(&block[..tag_end]).get("data-sku").cloned().unwrap_or_default();
        let name = text_between(block, "<h2>", "</h2>").unwrap_or("");
        let price: f64 = text_between(block, "<span class=\"price\">$", "</span>").and_then(|p| p.parse().ok()).unwrap_or(0.0);
        total += price;
        println!("  {:<6} {:<22} {:>6.2}", sku, name, price);
    }
    println!("basket total: ${:.2}", total);
    assert!(!html.contains("X-999"), "commented-out product must be ignored");
}
