use std::collections::BTreeMap;

/// Parsed INI file: section -> (key -> value).
type Ini = BTreeMap<String, BTreeMap<String, String>>;

const CONFIG: &str = r#"
; global settings
name = "My \"quoted\" app"
debug = true

[server]
host = localhost
port = 8080   ; inline comment
banner = "Welcome; please log in"

[paths]
# Windows-style and Unix-style paths
data = C:\data\files
logs = /var/log/myapp
motd = 'It''s a "nice" day'

[empty]
"#;

fn unquote(v: &str) -> String {
    let v = v.trim();
    if v.len() >= 2 && v.starts_with('"') && v.ends_with('"') {
        v[1..v.len() - 1].replace("\\\"", "\"")
    } else if v.len() >= 2 && v.starts_with('\'') && v.ends_with('\'') {
        v[1..v.len() - 1].replace("''", "'")
    } else {
        v.to_string()
    }
}

fn strip_comment(line: &str) -> &str {
    let mut in_quote: Option<char> = None;
    for (i, c) in line.char_indices() {
        match (c, in_quote) {
            ('"', None) | ('\'', None) => in_quote = Some(c),
            (q, Some(open)) if q == open => in_quote = None,
            (';', None) | ('#', None) => return &line[..i],
            _ => {}
        }
    }
    line
}

fn parse(src: &str) -> Result<Ini, String> {
    let mut ini = Ini::new();
    let mut section = String::from("default");
    for (n, raw) in src.lines().enumerate() {
        let line = strip_comment(raw).trim();
        if line.is_empty() {
            continue;
        }
        if line.starts_with('[') {
            if !line.ends_with(']') {
                return Err(format!("line {}: unclosed section header", n + 1));
            }
            section = line[1..line.len() - 1].trim().to_string();
            ini.entry(section.clone()).or_default();
            continue;
        }
        let (k, v) = line
            .split_once('=')
            .ok_or_else(|| format!("line {}: expected key = value", n + 1))?;
        ini.entry(section.clone()).or_default().insert(k.trim().to_string(), unquote(v));
    }
    Ok(ini)
}

fn main() {
    let ini = parse(CONFIG).expect("config parses");
    for (section, entries) in &ini {
        println!("[{}] ({} keys)", section, entries.len());
        for (k, v) in entries {
            println!("  {} = {:?}", k, v);
        }
    }
    let port: u16 = ini["server"]["port"].parse().unwrap();
    println!("server will listen on {}:{}", ini["server"]["host"], port);
    assert_eq!(ini["default"]["name"], r#"My "quoted" app"#);
    assert_eq!(ini["paths"]["motd"], "It's a \"nice\" day");
    match parse("[broken\nkey=value") {
        Ok(_) => println!("unexpected success"),
        Err(e) => println!("error reported as expected: {}", e),
    }
}
