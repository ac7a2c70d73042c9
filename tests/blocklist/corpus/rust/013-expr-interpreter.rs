//! A tiny expression language: `let` bindings, arithmetic and comparison.
//! Example: `let x = 4 in x * (x + 1) > 10`.
use std::collections::HashMap;

#[derive(Debug, Clone, PartialEq)]
enum Tok<'a> { Num(i64), Ident(&'a str), Op(char), LParen, RParen }

fn lex(src: &str) -> Result<Vec<Tok<'_>>, String> {
    let mut out = Vec::new();
    let bytes = src.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i] as char;
        match c {
            ' ' | '\t' | '\n' => i += 1,
            '0'..='9' => {
                let start = i;
                while i < bytes.len() && bytes[i].is_ascii_digit() { i += 1; }
                out.push(Tok::Num(src[start..i].parse().unwrap()));
            }
            'a'..='z' | 'A'..='Z' | '_' => {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') { i += 1; }
                out.push(Tok::Ident(&src[start..i]));
            }
            '(' => { out.push(Tok::LParen); i += 1; }
            ')' => { out.push(Tok::RParen); i += 1; }
            '+' | '-' | '*' | '/' | '%' | '<' | '>' | '=' => { out.push(Tok::Op(c)); i += 1; }
            other => return Err(format!("unexpected character '{}' at {}", other, i)),
        }
    }
    Ok(out)
}

struct Interp<'a> { toks: Vec<Tok<'a>>, pos: usize, env: Vec<HashMap<&'a str, i64>> }

impl<'a> Interp<'a> {
    fn peek(&self) -> Option<&Tok<'a>> { self.toks.get(self.pos) }
    fn next(&mut self) -> Option<Tok<'a>> { let t = self.toks.get(self.pos).cloned(); self.pos += 1; t }

    fn expr(&mut self) -> Result<i64, String> {
        if self.peek() == Some(&Tok::Ident("let")) {
            self.pos += 1;
            let name = match self.next() { Some(Tok::Ident(n)) => n, t => return Err(format!("expected name, got {:?}", t)) };
            if self.next() != Some(Tok::Op('=')) { return Err("expected '='".into()); }
            let value = self.expr()?;
            if self.next() != Some(Tok::Ident("in")) { return Err("expected 'in'".into()); }
            self.env.push(HashMap::from([(name, value)]));
            let body = self.expr();
            self.env.pop();
            return body;
        }
        let lhs = self.binary(0)?;
        Ok(lhs)
    }

    fn binary(&mut self, min_prec: u8) -> Result<i64, String> {
        let mut lhs = self.atom()?;
        while let Some(Tok::Op(op)) = self.peek().cloned() {
            let prec = match op { '<' | '>' => 1, '+' | '-' => 2, '*' | '/' | '%' => 3, _ => break };
            if prec < min_prec { break; }
            self.pos += 1;
            let rhs = self.binary(prec + 1)?;
            lhs = match op {
                '+' => lhs + rhs, '-' => lhs - rhs, '*' => lhs * rhs,
                '/' | '%' if rhs == 0 => return Err("division by zero".into()),
                '/' => lhs / rhs, '%' => lhs % rhs,
                '<' => (lhs < rhs) as i64, _ => (lhs > rhs) as i64,
            };
        }
        Ok(lhs)
    }

    fn atom(&mut self) -> Result<i64, String> {
        match self.next() {
            Some(Tok::Num(n)) => Ok(n),
            Some(Tok::Op('-')) => Ok(-self.atom()?),
            Some(Tok::LParen) => {
                let v = self.expr()?;
                if self.next() != Some(Tok::RParen) { return Err("expected ')'".into()); }
                Ok(v)
            }
            Some(Tok::Ident(name)) => self.env.iter().rev().find_map(|s| s.get(name).copied())
                .ok_or_else(|| format!("unbound variable '{}'", name)),
            t => Err(format!("unexpected token {:?}", t)),
        }
    }
}

fn run(src: &str) -> Result<i64, String> {
    let toks = lex(src)?;
    let mut it = Interp { toks, pos: 0, env: vec![HashMap::from([("answer", 42)])] };
    let v = it.expr()?;
    if it.pos < it.toks.len() { return Err(format!("trailing input at token {}", it.pos)); }
    Ok(v)
}

fn main() {
    let programs = [
        "1 + 2 * 3",
        "(1 + 2) * 3",
        "let x = 4 in x * (x + 1) > 10",
        "let a = 10 in let b = a % 3 in a - b * -2",
        "answer / 0",
        "y + 1",
        "3 $ 4",
        "let n = 7 in n * n - answer",
    ];
    for p in programs {
        match run(p) {
            Ok(v) => println!("{:<45} => {}", p, v),
            Err(e) => println!("{:<45} => error: {}", p, e),
        }
    }
}
