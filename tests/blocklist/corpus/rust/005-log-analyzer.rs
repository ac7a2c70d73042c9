use std::collections::{BTreeMap, HashMap};

/// Syslog-like lines from an imaginary host. Some of them record commands that
/// an audit team would want to look at (sudo usage, reads of /etc/passwd).
const LOG: &str = "\
2024-03-01T10:00:01Z INFO  sshd[812]: Accepted publickey for alice from 10.0.0.5
2024-03-01T10:00:07Z INFO  sudo[901]: alice : COMMAND=/usr/bin/apt update
2024-03-01T10:01:12Z WARN  sshd[815]: Failed password for root from 10.0.0.99
2024-03-01T10:01:13Z WARN  sshd[815]: Failed password for root from 10.0.0.99
2024-03-01T10:01:15Z WARN  sshd[815]: Failed password for root from 10.0.0.99
2024-03-01T10:02:00Z ERROR app[1200]: could not open config: permission denied
2024-03-01T10:03:30Z INFO  sudo[933]: bob : COMMAND=/bin/cat /etc/passwd
2024-03-01T10:04:45Z INFO  cron[77]: (root) CMD (rm -rf /tmp/cache/*)
2024-03-01T10:05:00Z ERROR app[1200]: request timeout after 30s
2024-03-01T10:05:30Z WARN  kernel[0]: ptrace attach by gdb denied (ptrace_scope=1)
this line is garbage and should be skipped
2024-03-01T10:06:10Z INFO  sshd[820]: Accepted password for bob from 10.0.0.7";

#[derive(Debug)]
struct Entry<'a> {
    time: &'a str,
    level: &'a str,
    process: &'a str,
    message: &'a str,
}

fn parse_line(line: &str) -> Option<Entry<'_>> {
    let mut parts = line.splitn(3, char::is_whitespace);
    let time = parts.next()?;
    if !time.ends_with('Z') {
        return None;
    }
    let level = parts.next()?;
    let rest = parts.next()?.trim_start();
    let (proc_field, message) = rest.split_once(": ")?;
    let process = proc_field.split('[').next()?;
    Some(Entry { time, level, process, message })
}

fn main() {
    let mut skipped = 0;
    let entries: Vec<Entry> = LOG
        .lines()
        .filter_map(|l| {
            let e = parse_line(l);
            if e.is_none() {
                skipped += 1;
            }
            e
        })
        .collect();
    println!("parsed {} entries, skipped {}", entries.len(), skipped);

    let mut per_level: BTreeMap<&str, usize> = BTreeMap::new();
    let mut per_process: BTreeMap<&str, usize> = BTreeMap::new();
    for e in &entries {
        *per_level.entry(e.level).or_insert(0) += 1;
        *per_process.entry(e.process).or_insert(0) += 1;
    }
    println!("by level:   {:?}", per_level);
    println!("by process: {:?}", per_process);

    let mut failures: HashMap<&str, usize> = HashMap::new();
    for e in entries.iter().filter(|e| e.message.starts_with("Failed password")) {
        if let Some(ip) = e.message.rsplit(' ').next() {
            *failures.entry(ip).or_insert(0) += 1;
        }
    }
    for (ip, n) in &failures {
        if *n >= 3 {
            println!("ALERT: {} failed logins from {}", n, ip);
        }
    }

    println!("privileged commands:");
    for e in entries.iter().filter(|e| e.process == "sudo") {
        let cmd = e.message.split("COMMAND=").nth(1).unwrap_or("?");
        let note = if cmd.contains("/etc/passwd") { "  <- reads account database" } else { "" };
        println!("  {} {}{}", e.time, cmd, note);
    }
    let errors: Vec<&str> = entries.iter().filter(|e| e.level == "ERROR").map(|e| e.message).collect();
    println!("errors: {:#?}", errors);
}
