use std::collections::BTreeMap;

const HELP: &str = "\
usage: tidy [OPTIONS] <PATH>...

Removes build artifacts below each PATH.

Options:
  -n, --dry-run         only print what would be removed
  -v, --verbose         more output (repeat for even more)
  -e, --exclude GLOB    skip matching paths (may be repeated)
      --older-than=DAYS only remove files older than DAYS
  -h, --help            show this help

Safety: tidy refuses to touch '/', '~' or '..' so a typo can never turn into
the equivalent of `rm -rf /` or `sudo rm -rf ~`.";

#[derive(Debug, Default)]
struct Options {
    dry_run: bool,
    verbose: u8,
    exclude: Vec<String>,
    older_than: Option<u32>,
    paths: Vec<String>,
    help: bool,
}

fn parse_args<I: Iterator<Item = String>>(mut args: I) -> Result<Options, String> {
    let mut o = Options::default();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-h" | "--help" => o.help = true,
            "-n" | "--dry-run" => o.dry_run = true,
            "-e" | "--exclude" => o.exclude.push(args.next().ok_or("--exclude needs a value")?),
            "--" => { o.paths.extend(args.by_ref()); }
            s if s.starts_with("--older-than=") => {
                let v = &s["--older-than=".len()..];
                o.older_than = Some(v.parse().map_err(|_| format!("--older-than: {:?} is not a number", v))?);
            }
            s if s.starts_with("-v") && s[1..].chars().all(|c| c == 'v') => o.verbose += (s.len() - 1) as u8,
            "--verbose" => o.verbose += 1,
            s if s.starts_with('-') && s.len() > 1 => return Err(format!("unknown option {:?}", s)),
            _ => o.paths.push(arg),
        }
    }
    for p in &o.paths {
        if matches!(p.as_str(), "/" | "~" | "..") {
            return Err(format!("refusing to operate on {:?}", p));
        }
    }
    if o.paths.is_empty() && !o.help {
        return Err("no PATH given (see --help)".into());
    }
    Ok(o)
}

fn main() {
    let invocations: BTreeMap<&str, &str> = [
        ("1 basic", "tidy -n -vv target build"),
        ("2 exclude", "tidy --exclude *.keep -e vendor/** --older-than=30 ."),
        ("3 help", "tidy --help"),
        ("4 root", "tidy -n /"),
        ("5 bad days", "tidy --older-than=soon ."),
        ("6 unknown", "tidy --force ."),
        ("7 dashdash", "tidy -v -- -weird-name"),
    ]
    .into_iter()
    .collect();

    for (label, line) in invocations {
        let argv = line.split_whitespace().skip(1).map(String::from);
        print!("[{}] {:<48} ", label, line);
        match parse_args(argv) {
            Ok(o) if o.help => println!("-> help ({} lines)", HELP.lines().count()),
            Ok(o) => println!("-> {:?}", o),
            Err(e) => println!("-> error: {}", e),
        }
    }
    let real: Vec<String> = std::env::args().skip(1).collect();
    println!("actual process args: {:?}", real);
    println!("\n{}", HELP.lines().last().unwrap_or_default());
}
