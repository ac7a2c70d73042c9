use std::error::Error;
use std::fmt;
use std::num::{ParseFloatError, ParseIntError};

/// Errors produced while loading a sensor reading file.
#[derive(Debug)]
enum LoadError {
    Io(std::io::Error),
    BadId { line: usize, source: ParseIntError },
    BadValue { line: usize, source: ParseFloatError },
    Missing { line: usize, field: &'static str },
    OutOfRange { id: u32, value: f64 },
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Io(e) => write!(f, "I/O error: {}", e),
            LoadError::BadId { line, .. } => write!(f, "line {}: sensor id is not an integer", line),
            LoadError::BadValue { line, .. } => write!(f, "line {}: reading is not a number", line),
            LoadError::Missing { line, field } => write!(f, "line {}: missing field '{}'", line, field),
            LoadError::OutOfRange { id, value } => write!(f, "sensor {} reported impossible value {}", id, value),
        }
    }
}

impl Error for LoadError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            LoadError::Io(e) => Some(e),
            LoadError::BadId { source, .. } => Some(source),
            LoadError::BadValue { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl From<std::io::Error> for LoadError {
    fn from(e: std::io::Error) -> Self { LoadError::Io(e) }
}

fn parse_readings(text: &str) -> Result<Vec<(u32, f64)>, LoadError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let line_no = i + 1;
        let mut parts = line.split(',');
        let id_text = parts.next().filter(|s| !s.is_empty()).ok_or(LoadError::Missing { line: line_no, field: "id" })?;
        let id = id_text.trim().parse::<u32>().map_err(|source| LoadError::BadId { line: line_no, source })?;
        let value_text = parts.next().ok_or(LoadError::Missing { line: line_no, field: "value" })?;
        let value = value_text.trim().parse::<f64>().map_err(|source| LoadError::BadValue { line: line_no, source })?;
        if !(-90.0..=60.0).contains(&value) {
            return Err(LoadError::OutOfRange { id, value });
        }
        out.push((id, value));
    }
    Ok(out)
}

fn load(path: &str) -> Result<f64, Box<dyn Error>> {
    let text = std::fs::read_to_string(path).map_err(LoadError::from)?;
    let readings = parse_readings(&text)?;
    if readings.is_empty() {
        return Err("file contains no readings".into());
    }
    Ok(readings.iter().map(|r| r.1).sum::<f64>() / readings.len() as f64)
}

fn report(name: &str, result: Result<f64, Box<dyn Error>>) {
    match result {
        Ok(avg) => println!("{:<10} average {:.2}", name, avg),
        Err(e) => {
            print!("{:<10} error: {}", name, e);
            let mut cause = e.source();
            while let Some(c) = cause {
                print!(" (caused by: {})", c);
                cause = c.source();
            }
            println!();
        }
    }
}

fn main() {
    let cases = [
        ("good", "1, 20.5\n2, 21.0\n3, 19.25\n"),
        ("bad id", "1, 20.5\nx7, 3.0\n"),
        ("bad value", "4, warm\n"),
        ("missing", "5\n"),
        ("range", "6, 150.0\n"),
        ("empty", "\n\n"),
    ];
    for (name, content) in cases {
        let path = format!("/tmp/readings-{}.csv", name.replace(' ', "-"));
        std::fs::write(&path, content).expect("write temp file");
        report(name, load(&path));
        let _ = std::fs::remove_file(&path);
    }
    report("absent", load("/tmp/this-file-does-not-exist.csv"));
}
