use std::collections::BTreeMap;
use std::env;
use std::fs;
use std::process::Command;

/// Reads a "Key:   value kB" line from /proc/self/status (Linux only). We only
/// look at our own process; files like /proc/1/environ belong to other
/// processes and are normally not readable anyway.
fn proc_status_field(field: &str) -> Option<String> {
    let status = fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find(|l| l.starts_with(field) && l[field.len()..].starts_with(':'))
        .map(|l| l[field.len() + 1..].trim().to_string())
}

fn config_from_env(prefix: &str) -> BTreeMap<String, String> {
    env::vars()
        .filter_map(|(k, v)| k.strip_prefix(prefix).map(|rest| (rest.to_lowercase(), v)))
        .collect()
}

fn main() {
    // std::process::id() is a thin wrapper around the getpid syscall.
    println!("pid: {}", std::process::id());
    println!("cwd: {}", env::current_dir().map(|p| p.display().to_string()).unwrap_or_else(|e| e.to_string()));
    println!("exe name: {:?}", env::current_exe().ok().and_then(|p| p.file_name().map(|s| s.to_owned())));
    println!("temp dir: {}", env::temp_dir().display());
    println!("args: {:?}", env::args().collect::<Vec<_>>());
    println!("os={} arch={} family={}", env::consts::OS, env::consts::ARCH, env::consts::FAMILY);

    let home = env::var("HOME").unwrap_or_else(|_| "<unset>".into());
    println!("HOME = {}", home);
    match env::var("SURELY_NOT_SET_ANYWHERE") {
        Ok(v) => println!("unexpected value {}", v),
        Err(env::VarError::NotPresent) => println!("SURELY_NOT_SET_ANYWHERE is not present"),
        Err(e) => println!("other error: {}", e),
    }
    if let Some(path) = env::var_os("PATH") {
        let dirs: Vec<_> = env::split_paths(&path).collect();
        println!("PATH has {} entries; first: {:?}", dirs.len(), dirs.first());
    }

    // Simulate configuration passed in through the environment.
    env::set_var("MYAPP_LOG_LEVEL", "debug");
    env::set_var("MYAPP_WORKERS", "3");
    let cfg = config_from_env("MYAPP_");
    println!("config from env: {:?}", cfg);
    let workers: usize = cfg.get("workers").and_then(|w| w.parse().ok()).unwrap_or(1);
    println!("would start {} workers", workers);
    env::remove_var("MYAPP_WORKERS");
    println!("after remove: {:?}", config_from_env("MYAPP_"));

    // Child processes inherit the environment unless told otherwise.
    let out = Command::new("env")
        .env_clear()
        .env("GREETING", "hello")
        .env("TARGET", "world")
        .output()
        .expect("env is available");
    let mut child_env: Vec<String> = String::from_utf8_lossy(&out.stdout).lines().map(String::from).collect();
    child_env.sort();
    println!("child saw: {:?}", child_env);

    for field in ["Name", "State", "Threads", "VmRSS"] {
        println!("{:<8} {}", field, proc_status_field(field).unwrap_or_else(|| "n/a".into()));
    }
}
