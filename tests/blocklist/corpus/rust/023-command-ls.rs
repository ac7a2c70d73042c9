use std::fs;
use std::process::{Command, Stdio};

/// Runs ordinary commands and parses their output, the way a build script or
/// a small admin tool would.
fn run(program: &str, args: &[&str]) -> Result<String, String> {
    let output = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("failed to start {}: {}", program, e))?;
    if !output.status.success() {
        return Err(format!(
            "{} {:?} exited with {}: {}",
            program,
            args,
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

fn main() {
    let dir = std::env::temp_dir().join("ls-demo");
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(dir.join("sub")).unwrap();
    for (name, size) in [("small.txt", 10), ("medium.log", 2_000), ("large.bin", 50_000)] {
        fs::write(dir.join(name), vec![b'x'; size]).unwrap();
    }
    let dir_str = dir.to_str().unwrap();

    match run("ls", &["-l", dir_str]) {
        Ok(listing) => {
            println!("raw `ls -l` output:\n{}", listing);
            let mut rows: Vec<(u64, String)> = listing
                .lines()
                .filter(|l| l.starts_with('-') || l.starts_with('d'))
                .filter_map(|l| {
                    let cols: Vec<&str> = l.split_whitespace().collect();
                    Some((cols.get(4)?.parse().ok()?, cols.last()?.to_string()))
                })
                .collect();
            rows.sort_by(|a, b| b.0.cmp(&a.0));
            for (size, name) in rows {
                println!("{:>8}  {}", size, name);
            }
        }
        Err(e) => println!("error: {}", e),
    }

    let greeting = run("echo", &["hello", "from", "a", "child", "process"]).unwrap();
    println!("echo said: {:?}", greeting.trim_end());

    let kernel = run("uname", &["-s"]).map(|s| s.trim().to_string()).unwrap_or_else(|e| e);
    println!("kernel name: {}", kernel);

    match run("ls", &["/definitely/not/here"]) {
        Ok(_) => println!("unexpected success"),
        Err(e) => println!("expected failure: {}", e.lines().next().unwrap_or("")),
    }
    match run("no-such-program-xyz", &[]) {
        Ok(_) => println!("unexpected success"),
        Err(e) => println!("expected failure: {}", e),
    }

    let status = Command::new("ls").arg("-a").arg(&dir).stdout(Stdio::null()).status().unwrap();
    println!("ls -a exit code: {:?}", status.code());
    fs::remove_dir_all(&dir).unwrap();
}
