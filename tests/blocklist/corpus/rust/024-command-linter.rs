//! Checks shell snippets that a user wants to paste into a terminal and warns
//! about well-known destructive or risky patterns. It only inspects text; it
//! never executes anything.

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Severity { Info, Warning, Danger }

#[derive(Debug)]
struct Rule {
    needle: &'static str,
    severity: Severity,
    why: &'static str,
}

const RULES: &[Rule] = &[
    Rule { needle: "rm -rf /", severity: Severity::Danger, why: "deletes the whole filesystem" },
    Rule { needle: ":(){ :|:& };:", severity: Severity::Danger, why: "fork bomb: spawns processes until the machine stalls" },
    Rule { needle: "| sh", severity: Severity::Warning, why: "pipes a download straight into a shell (curl ... | sh)" },
    Rule { needle: "| bash", severity: Severity::Warning, why: "pipes a download straight into bash" },
    Rule { needle: "chmod 777", severity: Severity::Warning, why: "makes files world-writable" },
    Rule { needle: "mkfs", severity: Severity::Danger, why: "formats a block device" },
    Rule { needle: "dd if=", severity: Severity::Warning, why: "raw disk copy; double-check of= target" },
    Rule { needle: "sudo ", severity: Severity::Info, why: "runs with root privileges" },
    Rule { needle: "> /dev/sda", severity: Severity::Danger, why: "overwrites a disk device" },
    Rule { needle: "/proc/1/environ", severity: Severity::Danger, why: "reads another process's environment (secrets)" },
    Rule { needle: "mount ", severity: Severity::Warning, why: "changes mounted filesystems" },
    Rule { needle: "unshare ", severity: Severity::Warning, why: "creates new namespaces" },
    Rule { needle: "/etc/passwd", severity: Severity::Info, why: "touches the account database" },
];

#[derive(Debug)]
struct Finding<'a> {
    line: usize,
    rule: &'a Rule,
}

fn lint(script: &str) -> Vec<Finding<'static>> {
    let mut out = Vec::new();
    for (i, line) in script.lines().enumerate() {
        let code = line.split(" #").next().unwrap_or(line);
        if code.trim_start().starts_with('#') {
            continue; // whole-line comment
        }
        let normalized: String = code.split_whitespace().collect::<Vec<_>>().join(" ");
        for rule in RULES {
            if normalized.contains(rule.needle) {
                out.push(Finding { line: i + 1, rule });
            }
        }
    }
    out.sort_by(|a, b| b.rule.severity.cmp(&a.rule.severity).then(a.line.cmp(&b.line)));
    out
}

fn main() {
    let samples = [
        ("cleanup", "cd build && rm -rf ./out\nls -la"),
        ("installer", "curl -fsSL https://example.com/get.sh | sh\nsudo  chmod 777 /opt/tool"),
        ("prank", "echo 'hi'\n:(){ :|:& };:"),
        ("disk", "sudo dd if=/dev/zero of=/tmp/blank.img bs=1M count=1\ncat /etc/passwd | cut -d: -f1"),
        ("comments only", "# never run: rm -rf /\necho safe # rm -rf / in a trailing comment"),
        ("nuke", "sudo rm -rf / --no-preserve-root"),
        ("container", "sudo mount -t tmpfs none /mnt\ncat /proc/1/environ | tr '\\0' '\\n'"),
    ];
    for (name, script) in samples {
        let findings = lint(script);
        let worst = findings.iter().map(|f| f.rule.severity).max();
        println!("== {} ({} findings, worst: {:?})", name, findings.len(), worst);
        for f in &findings {
            println!("   line {}: {:?} {:?} - {}", f.line, f.rule.severity, f.rule.needle, f.rule.why);
        }
    }
    assert!(lint("ls -l | sort").is_empty());
    assert_eq!(lint("rm  -rf   /")[0].rule.severity, Severity::Danger);
    println!("self-checks passed");
}
