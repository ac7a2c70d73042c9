use std::collections::BTreeMap;
use std::fmt;

/// A minimal JSON value, enough for configuration-like documents.
#[derive(Debug, Clone, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(BTreeMap<String, Json>),
}

struct Parser<'a> { src: &'a [u8], pos: usize }

impl<'a> Parser<'a> {
    fn new(s: &'a str) -> Self { Parser { src: s.as_bytes(), pos: 0 } }
    fn ws(&mut self) {
        while self.src.get(self.pos).map_or(false, |b| b.is_ascii_whitespace()) { self.pos += 1; }
    }
    fn eat(&mut self, c: u8) -> Result<(), String> {
        self.ws();
        if self.src.get(self.pos) != Some(&c) {
            return Err(format!("expected '{}' at {}", c as char, self.pos));
        }
        self.pos += 1;
        Ok(())
    }
    fn value(&mut self) -> Result<Json, String> {
        self.ws();
        match self.src.get(self.pos).copied() {
            Some(b'n') => { self.pos += 4; Ok(Json::Null) }
            Some(b't') => { self.pos += 4; Ok(Json::Bool(true)) }
            Some(b'f') => { self.pos += 5; Ok(Json::Bool(false)) }
            Some(b'"') => Ok(Json::Str(self.string()?)),
            Some(b'[') => {
                self.pos += 1;
                let mut items = Vec::new();
                while { self.ws(); self.src[self.pos] != b']' } {
                    items.push(self.value()?);
                    self.ws();
                    if self.src[self.pos] == b',' { self.pos += 1; }
                }
                self.eat(b']').map(|_| Json::Arr(items))
            }
            Some(b'{') => {
                self.pos += 1;
                let mut map = BTreeMap::new();
                while { self.ws(); self.src[self.pos] != b'}' } {
                    let k = self.string()?;
                    self.eat(b':')?;
                    map.insert(k, self.value()?);
                    self.ws();
                    if self.src[self.pos] == b',' { self.pos += 1; }
                }
                self.eat(b'}').map(|_| Json::Obj(map))
            }
            Some(_) => {
                let start = self.pos;
                while self.src.get(self.pos).map_or(false, |b| b"+-.eE0123456789".contains(b)) { self.pos += 1; }
                let text = std::str::from_utf8(&self.src[start..self.pos]).unwrap();
                text.parse().map(Json::Num).map_err(|e| format!("bad number {:?}: {}", text, e))
            }
            None => Err("unexpected end".into()),
        }
    }
    fn string(&mut self) -> Result<String, String> {
        self.ws();
        self.eat(b'"')?;
        let mut out = String::new();
        let rest = std::str::from_utf8(&self.src[self.pos..]).map_err(|e| e.to_string())?;
        let mut chars = rest.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => { self.pos += i + 1; return Ok(out); }
                '\\' => match chars.next().map(|(_, e)| e) {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some('u') => {
                        let hex: String = (0..4).filter_map(|_| chars.next().map(|(_, h)| h)).collect();
                        let code = u32::from_str_radix(&hex, 16).map_err(|e| e.to_string())?;
                        out.push(char::from_u32(code).unwrap_or('\u{FFFD}'));
                    }
                    Some(other) => out.push(other),
                    None => return Err("dangling escape".into()),
                },
                _ => out.push(c),
            }
        }
        Err("unterminated string".into())
    }
}

impl fmt::Display for Json {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Json::Null => write!(f, "null"),
            Json::Bool(b) => write!(f, "{}", b), Json::Num(n) => write!(f, "{}", n),
            Json::Str(s) => write!(f, "{:?}", s),
            Json::Arr(a) => write!(f, "[{}]", a.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(",")),
            Json::Obj(o) => write!(f, "{{{}}}", o.iter().map(|(k, v)| format!("{:?}:{}", k, v)).collect::<Vec<_>>().join(",")),
        }
    }
}

fn main() {
    let doc = r#"{ "name": "demo \"app\"", "version": 1.5, "tags": ["a", "b\tc", "caf\u00e9"],
                   "debug": false, "owner": null, "limits": {"cpu": 2, "mem": 512e3} }"#;
    let value = Parser::new(doc).value().expect("valid json");
    println!("{}", value);
    if let Json::Obj(map) = &value {
        map.iter().for_each(|(k, v)| println!("  {:<8} => {}", k, v));
    }
    let again = Parser::new(&value.to_string()).value().unwrap();
    assert_eq!(again, value, "round trip must be stable");
    println!("round trip ok");
}
