use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Feeds data to `sort | uniq -c` style tools through pipes, checks exit
/// codes, and stops a long-running child of our own.
fn main() -> std::io::Result<()> {
    let fruits = "banana\napple\ncherry\napple\nbanana\napple\ndate\n";

    // Every step starts exactly one child and waits for it; nothing like the
    // classic fork bomb `:(){ :|:& };:` can happen here.

    // 1. Write to a child's stdin, read its stdout.
    let mut sort = Command::new("sort").stdin(Stdio::piped()).stdout(Stdio::piped()).spawn()?;
    sort.stdin.take().expect("piped stdin").write_all(fruits.as_bytes())?;
    let sorted = sort.wait_with_output()?;
    println!("sorted: {:?}", String::from_utf8_lossy(&sorted.stdout).lines().collect::<Vec<_>>());

    // 2. Connect two children directly: sort's stdout becomes uniq's stdin.
    let mut first = Command::new("sort").stdin(Stdio::piped()).stdout(Stdio::piped()).spawn()?;
    let second = Command::new("uniq").arg("-c").stdin(first.stdout.take().unwrap()).stdout(Stdio::piped()).spawn()?;
    first.stdin.take().unwrap().write_all(fruits.as_bytes())?;
    first.wait()?;
    let counted = second.wait_with_output()?;
    let mut counts: Vec<(u32, String)> = String::from_utf8_lossy(&counted.stdout)
        .lines()
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            Some((it.next()?.parse().ok()?, it.next()?.to_string()))
        })
        .collect();
    counts.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    println!("counts: {:?}", counts);

    // 3. Stream output line by line as it is produced.
    let mut seq = Command::new("seq").args(["1", "5"]).stdout(Stdio::piped()).spawn()?;
    let reader = BufReader::new(seq.stdout.take().unwrap());
    let total: u32 = reader.lines().map_while(Result::ok).filter_map(|l| l.parse::<u32>().ok()).sum();
    println!("seq 1 5 sums to {} (exit code {:?})", total, seq.wait()?.code());

    // 4. Exit codes and stderr from a failing command.
    let grep = Command::new("grep").arg("-q").arg("kiwi").stdin(Stdio::piped()).spawn().and_then(|mut c| {
        c.stdin.take().unwrap().write_all(fruits.as_bytes())?;
        c.wait()
    })?;
    println!("grep -q kiwi: success={} code={:?}", grep.success(), grep.code());
    let status = Command::new("sh").args(["-c", "echo 'to stderr' >&2; exit 3"]).output()?;
    println!("sh exit code {:?}, stderr {:?}", status.status.code(), String::from_utf8_lossy(&status.stderr).trim());

    // 5. Start a slow child and stop it ourselves after a short wait.
    let started = Instant::now();
    let mut sleeper = Command::new("sleep").arg("30").spawn()?;
    std::thread::sleep(Duration::from_millis(100));
    match sleeper.try_wait()? {
        Some(s) => println!("sleep ended early: {}", s),
        None => {
            sleeper.kill()?;
            let s = sleeper.wait()?;
            println!("stopped our sleep child (pid {}) after {} ms: {}", sleeper.id(), started.elapsed().as_millis() / 100 * 100, s);
        }
    }
    Ok(())
}
