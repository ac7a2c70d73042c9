use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// A build step with its dependencies and the shell command it would run.
/// Nothing is executed here; we only compute and print the plan.
struct Step { deps: &'static [&'static str], command: &'static str }

fn plan(steps: &BTreeMap<&'static str, Step>) -> Result<Vec<Vec<&'static str>>, String> {
    let mut indegree: BTreeMap<&str, usize> = steps.keys().map(|k| (*k, 0)).collect();
    let mut dependents: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (name, step) in steps {
        for dep in step.deps {
            if !steps.contains_key(dep) {
                return Err(format!("{} depends on unknown step {}", name, dep));
            }
            *indegree.get_mut(name).unwrap() += 1;
            dependents.entry(dep).or_default().push(name);
        }
    }
    // Kahn's algorithm, grouped into "waves" of steps that could run in parallel.
    let mut ready: VecDeque<&str> = indegree.iter().filter(|(_, &d)| d == 0).map(|(k, _)| *k).collect();
    let mut waves = Vec::new();
    let mut done = 0;
    while !ready.is_empty() {
        let wave: Vec<&'static str> = ready.drain(..).map(|n| *steps.get_key_value(n).unwrap().0).collect();
        let mut next = BTreeSet::new();
        for n in &wave {
            done += 1;
            for d in dependents.get(n).map(|v| v.as_slice()).unwrap_or(&[]) {
                let e = indegree.get_mut(d).unwrap();
                *e -= 1;
                if *e == 0 { next.insert(*d); }
            }
        }
        ready.extend(next);
        waves.push(wave);
    }
    if done != steps.len() {
        let stuck: Vec<_> = indegree.iter().filter(|(_, &d)| d > 0).map(|(k, _)| *k).collect();
        return Err(format!("dependency cycle among: {}", stuck.join(", ")));
    }
    Ok(waves)
}

fn main() {
    let mut steps: BTreeMap<&'static str, Step> = BTreeMap::from([
        ("fetch", Step { deps: &[], command: "git submodule update --init" }),
        ("configure", Step { deps: &["fetch"], command: "./configure --prefix=/usr/local" }),
        ("codegen", Step { deps: &["fetch"], command: "python3 tools/gen.py > src/gen.h" }),
        ("compile", Step { deps: &["configure", "codegen"], command: "make -j4" }),
        ("test", Step { deps: &["compile"], command: "make check" }),
        ("docs", Step { deps: &["codegen"], command: "doxygen Doxyfile" }),
        ("install", Step { deps: &["test", "docs"], command: "sudo make install" }),
        ("clean", Step { deps: &[], command: "rm -rf build/ dist/" }),
    ]);
    match plan(&steps) {
        Ok(waves) => {
            for (i, wave) in waves.iter().enumerate() {
                println!("wave {}:", i + 1);
                for name in wave {
                    let cmd = steps[name].command;
                    let note = if cmd.starts_with("sudo ") { "   # needs root, ask first" } else { "" };
                    println!("  {:<10} $ {}{}", name, cmd, note);
                }
            }
        }
        Err(e) => println!("error: {}", e),
    }
    steps.insert("fetch", Step { deps: &["install"], command: "git pull" });
    println!("after adding fetch -> install: {}", plan(&steps).err().unwrap_or_default());
    steps.insert("fetch", Step { deps: &["mirror"], command: "git pull" });
    println!("with a missing step: {}", plan(&steps).err().unwrap_or_default());
}
