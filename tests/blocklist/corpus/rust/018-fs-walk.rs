use std::fs;
use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};

/// Recursively collects files below `dir`, sorted for stable output.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> io::Result<()> {
    let mut entries: Vec<_> = fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.path());
    for entry in entries {
        let path = entry.path();
        if entry.file_type()?.is_dir() {
            walk(&path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}

fn main() -> io::Result<()> {
    let root = std::env::current_dir()?.join("fs-demo");
    if root.exists() {
        fs::remove_dir_all(&root)?;
    }
    for sub in ["src/utils", "docs", "data/raw", "data/processed"] {
        fs::create_dir_all(root.join(sub))?;
    }
    let files = [
        ("src/main.rs", "fn main() {\n    println!(\"hi\");\n}\n"),
        ("src/utils/strings.rs", "pub fn shout(s: &str) -> String { s.to_uppercase() }\n"),
        ("docs/README.md", "# Demo\n\nGenerated files.\n"),
        ("data/raw/numbers.txt", "10\n20\n30\n40\n"),
    ];
    for (rel, content) in files {
        let mut f = fs::File::create(root.join(rel))?;
        f.write_all(content.as_bytes())?;
    }

    // Process raw data into a summary file, line by line.
    let reader = io::BufReader::new(fs::File::open(root.join("data/raw/numbers.txt"))?);
    let nums: Vec<i64> = reader.lines().map(|l| l.map(|s| s.trim().parse().unwrap_or(0))).collect::<Result<_, _>>()?;
    let sum: i64 = nums.iter().sum();
    fs::write(root.join("data/processed/summary.txt"), format!("count={}\nsum={}\n", nums.len(), sum))?;
    let mut log = fs::OpenOptions::new().create(true).append(true).open(root.join("docs/changes.log"))?;
    writeln!(log, "processed {} numbers", nums.len())?;
    writeln!(log, "sum is {}", sum)?;

    fs::rename(root.join("docs/README.md"), root.join("docs/INDEX.md"))?;
    fs::copy(root.join("src/main.rs"), root.join("src/main.rs.bak"))?;

    let mut all = Vec::new();
    walk(&root, &mut all)?;
    let mut total = 0;
    for p in &all {
        let meta = fs::metadata(p)?;
        total += meta.len();
        let rel = p.strip_prefix(&root).unwrap();
        println!("{:>5} B  {}", meta.len(), rel.display());
    }
    println!("{} files, {} bytes", all.len(), total);

    println!("summary.txt says: {:?}", fs::read_to_string(root.join("data/processed/summary.txt"))?);
    let rust_files = all.iter().filter(|p| p.extension().map_or(false, |e| e == "rs")).count();
    println!("rust sources: {}", rust_files);

    fs::remove_file(root.join("src/main.rs.bak"))?;
    match fs::read_to_string(root.join("src/main.rs.bak")) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => println!("backup removed"),
        other => println!("unexpected: {:?}", other.map(|s| s.len())),
    }
    fs::remove_dir_all(&root)?;
    println!("cleaned up: exists={}", root.exists());
    Ok(())
}
