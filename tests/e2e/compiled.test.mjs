// Go and Rust (plugins/go, plugins/rust, the mcp-sandbox/go and
// mcp-sandbox/rust images): compiled languages whose build step can fail.
// What a user checks: programs and bare snippets run, a compile error is a
// normal result with phase "build" and the compiler's diagnostics pointing
// at the line the user wrote, a panic is a normal failed run, /work is
// writable, and Rust's optimize option changes the build.
import assert from 'node:assert/strict';
import { e2e, runResult } from './lib/server.mjs';

// A warm container for the language under test only, on a server the
// file's tests of that language share.
const GO_ONLY = { SANDBOX_POOL_SIZE: '0', SANDBOX_GO_POOL_SIZE: '1' };
const RUST_ONLY = { SANDBOX_POOL_SIZE: '0', SANDBOX_RUST_POOL_SIZE: '1' };

/** tools/call with raw arguments (options included); the JSON of a result with isError false. */
async function run(s, args) {
  const r = await s.call(args);
  assert.equal(r.isError ?? false, false, `sandbox_execute failed on the host side: ${r.content?.[0]?.text}`);
  return runResult(r);
}

function ok(r, what) {
  assert.equal(r.exitCode, 0, `${what}: exit ${r.exitCode}, phase ${r.phase}, stderr:\n${r.stderr}`);
  assert.equal(r.phase, 'run', what);
  assert.equal(r.timedOut, false, what);
}

// ---------------------------------------------------------------- Go

e2e('go: hello world, exit 0, clean stderr; the alias golang', {}, async (h) => {
  const s = await h.shared({ env: GO_ONLY });
  const r = await run(s, {
    language: 'go',
    code: 'package main\n\nimport (\n\t"fmt"\n\t"runtime"\n)\n\nfunc main() {\n\tfmt.Println("hello from", runtime.Version())\n}\n',
  });
  ok(r, 'hello');
  assert.match(r.stdout, /^hello from go1\.19(\.\d+)?\n$/);
  assert.equal(r.stderr, '');
  assert.equal(r.signal, null);
  assert.equal(r.language, 'go');
  const a = await run(s, { language: 'golang', code: 'fmt.Println(1 + 2)' });
  ok(a, 'alias golang');
  assert.equal(a.stdout, '3\n');
  assert.equal(a.language, 'go');
});

e2e('go: bare statements run in main; types, methods and funcs stay at package level; imports are added', {}, async (h) => {
  const s = await h.shared({ env: GO_ONLY });
  const code = [
    'type Point struct{ X, Y int }',
    '',
    'func (p Point) String() string { return fmt.Sprintf("(%d,%d)", p.X, p.Y) }',
    '',
    'pts := []Point{{3, 1}, {1, 2}, {2, 3}}',
    'sort.Slice(pts, func(i, j int) bool { return pts[i].X < pts[j].X })',
    'fmt.Println(pts, strings.ToUpper(label))',
    'var total int',
    'for _, p := range pts {',
    '\ttotal += dist(p)',
    '}',
    'fmt.Println("total", total)',
    '',
    'const label = "done"',
    'func dist(p Point) int { return p.X + p.Y }',
  ].join('\n');
  const r = await run(s, { language: 'go', code });
  ok(r, 'snippet');
  assert.equal(r.stdout, '[(1,2) (2,3) (3,1)] DONE\ntotal 12\n');
  assert.equal(r.stderr, '');
});

e2e('go: a full program with an unused import still builds (the import is dropped, lines stay)', {}, async (h) => {
  const s = await h.shared({ env: GO_ONLY });
  const code = 'package main\n\nimport (\n\t"fmt"\n\t"os"\n)\n\nfunc main() {\n\tfmt.Println(strings.Repeat("ab", 2))\n\tpanic("line 10")\n}\n';
  const r = await run(s, { language: 'go', code });
  assert.equal(r.phase, 'run', r.stderr);
  assert.equal(r.exitCode, 2);
  assert.equal(r.stdout, 'abab\n');
  assert.match(r.stderr, /^panic: line 10$/m);
  assert.match(r.stderr, /^\tmain\.go:10 /m, 'the panic names the line the user wrote');
});

e2e('go: a compile error is phase "build" with diagnostics at the user\'s line and column', {}, async (h) => {
  const s = await h.shared({ env: GO_ONLY });
  // Line 3 col 13 is `y`; line 5 is in a func hoisted out of main.
  const r = await run(s, {
    language: 'go',
    code: 'x := 1\nfmt.Println(x)\nfmt.Println(y)\nfunc f() int {\n\treturn "s"\n}\n',
  });
  assert.equal(r.phase, 'build');
  assert.notEqual(r.exitCode, 0);
  assert.equal(r.signal, null);
  assert.equal(r.timedOut, false);
  assert.equal(r.stdout, '', 'nothing ran');
  assert.match(r.stderr, /^main\.go:3:13: undefined: y$/m);
  assert.match(r.stderr, /^main\.go:5:9: cannot use "s" .*as int value in return statement$/m);
  assert.equal(r.language, 'go');
  // A syntax error in a full program, as is.
  const syn = await run(s, { language: 'go', code: 'package main\n\nfunc main() {\n\tfor {\n}\n' });
  assert.equal(syn.phase, 'build');
  assert.match(syn.stderr, /^main\.go:\d+:\d+: syntax error/m);
});

e2e('go: a runtime panic is a failed run with the trace in stderr', {}, async (h) => {
  const s = await h.shared({ env: GO_ONLY });
  const code = 'fmt.Println("before")\nvar m map[string]int\nm["x"] = 1\n';
  const r = await run(s, { language: 'go', code });
  assert.equal(r.phase, 'run');
  assert.equal(r.exitCode, 2);
  assert.equal(r.stdout, 'before\n');
  assert.match(r.stderr, /^panic: assignment to entry in nil map$/m);
  assert.match(r.stderr, /^goroutine 1 \[running\]:$/m);
  assert.match(r.stderr, /^\tmain\.go:3 /m);
});

e2e('go: the program reads and writes files in /work', {}, async (h) => {
  const s = await h.shared({ env: GO_ONLY });
  const code = [
    'wd, _ := os.Getwd()',
    'if err := os.WriteFile("notes.txt", []byte("line one\\n"), 0o644); err != nil {',
    '\tpanic(err)',
    '}',
    'f, err := os.OpenFile(filepath.Join(wd, "notes.txt"), os.O_APPEND|os.O_WRONLY, 0)',
    'if err != nil {',
    '\tpanic(err)',
    '}',
    'fmt.Fprintln(f, "line two")',
    'f.Close()',
    'b, err := os.ReadFile("/work/notes.txt")',
    'fmt.Printf("%s %q %v\\n", wd, b, err)',
  ].join('\n');
  const r = await run(s, { language: 'go', code });
  ok(r, 'files');
  assert.equal(r.stdout, '/work "line one\\nline two\\n" <nil>\n');
});

// ---------------------------------------------------------------- Rust

e2e('rust: hello world, exit 0, clean stderr; the alias rs', {}, async (h) => {
  const s = await h.shared({ env: RUST_ONLY });
  const r = await run(s, { language: 'rust', code: 'fn main() {\n    println!("hello from rust");\n}\n' });
  ok(r, 'hello');
  assert.equal(r.stdout, 'hello from rust\n');
  assert.equal(r.stderr, '');
  assert.equal(r.signal, null);
  assert.equal(r.language, 'rust');
  const a = await run(s, { language: 'rs', code: 'println!("{}", 6 * 7);' });
  ok(a, 'alias rs');
  assert.equal(a.stdout, '42\n');
  assert.equal(a.language, 'rust');
});

e2e('rust: without fn main, statements run in main and items before them stay at the top level', {}, async (h) => {
  const s = await h.shared({ env: RUST_ONLY });
  const code = [
    'use std::collections::BTreeMap;',
    'use std::fmt;',
    '',
    'struct Word(String);',
    '',
    'impl fmt::Display for Word {',
    '    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {',
    '        write!(f, "<{}>", self.0)',
    '    }',
    '}',
    '',
    'let mut counts = BTreeMap::new();',
    'for w in "b a b c b".split(\' \') {',
    '    *counts.entry(w).or_insert(0) += 1;',
    '}',
    'println!("{:?}", counts);',
    'println!("{}", Word(shout("hi")));',
    'fn shout(s: &str) -> String { s.to_uppercase() }',
    // type_name shows the struct is at the crate's top level.
    'println!("{}", std::any::type_name::<Word>());',
  ].join('\n');
  const r = await run(s, { language: 'rust', code });
  ok(r, 'snippet');
  assert.equal(r.stdout, '{"a": 1, "b": 3, "c": 1}\n<HI>\nmain::Word\n');
  assert.equal(r.stderr, '');
});

e2e('rust: with fn main the program runs as it is', {}, async (h) => {
  const s = await h.shared({ env: RUST_ONLY });
  const code = [
    '#[derive(Debug, Clone, PartialEq)]',
    'enum Shape { Circle(f64), Square(f64) }',
    '',
    'fn area(s: &Shape) -> f64 {',
    '    match s { Shape::Circle(r) => 3.0 * r * r, Shape::Square(a) => a * a }',
    '}',
    '',
    'fn main() {',
    '    let shapes = vec![Shape::Circle(1.0), Shape::Square(2.0)];',
    '    let total: f64 = shapes.iter().map(area).sum();',
    '    println!("{:?} {}", shapes[0], total);',
    '    std::process::exit(3);',
    '}',
  ].join('\n');
  const r = await run(s, { language: 'rust', code });
  assert.equal(r.phase, 'run', r.stderr);
  assert.equal(r.exitCode, 3);
  assert.equal(r.stdout, 'Circle(1.0) 7\n');
  assert.equal(r.stderr, '');
});

e2e('rust: a compile error is phase "build" with rustc\'s diagnostics at the user\'s line', {}, async (h) => {
  const s = await h.shared({ env: RUST_ONLY });
  const code = 'use std::collections::HashMap;\n\nlet mut m: HashMap<&str, i32> = HashMap::new();\nm.insert("a", "one");\n';
  const r = await run(s, { language: 'rust', code });
  assert.equal(r.phase, 'build');
  assert.notEqual(r.exitCode, 0);
  assert.equal(r.timedOut, false);
  assert.equal(r.stdout, '', 'nothing ran');
  assert.match(r.stderr, /^error\[E0308\]: mismatched types$/m);
  assert.match(r.stderr, /^ *--> main\.rs:4:15$/m, 'line 4, column 15 as the user wrote them');
  assert.match(r.stderr, /^4 \| m\.insert\("a", "one"\);$/m, 'the source line is the user\'s');
  assert.match(r.stderr, /^error: aborting due to 1 previous error/m);
  assert.equal(r.language, 'rust');
});

e2e('rust: a panic is a failed run (exit 101) naming file, line and column', {}, async (h) => {
  const s = await h.shared({ env: RUST_ONLY });
  const code = 'println!("before");\nlet v: Vec<u32> = Vec::new();\nlet i = v.len() + 3;\nprintln!("{}", v[i]);\n';
  const r = await run(s, { language: 'rust', code });
  assert.equal(r.phase, 'run');
  assert.equal(r.exitCode, 101);
  assert.equal(r.stdout, 'before\n');
  // Rust 1.96 names the thread's id and points at the indexing ('[').
  assert.match(r.stderr, /thread 'main' \(\d+\) panicked at main\.rs:4:17:\nindex out of bounds: the len is 0 but the index is 3/);
});

e2e('rust: the program reads and writes files in /work', {}, async (h) => {
  const s = await h.shared({ env: RUST_ONLY });
  const code = [
    'use std::io::Write;',
    '',
    'std::fs::write("notes.txt", "line one\\n").unwrap();',
    'let mut f = std::fs::OpenOptions::new().append(true).open("/work/notes.txt").unwrap();',
    'writeln!(f, "line two").unwrap();',
    'drop(f);',
    'let text = std::fs::read_to_string("notes.txt").unwrap();',
    'println!("{} {:?}", std::env::current_dir().unwrap().display(), text);',
  ].join('\n');
  const r = await run(s, { language: 'rust', code });
  ok(r, 'files');
  assert.equal(r.stdout, '/work "line one\\nline two\\n"\n');
});

// Needs the host's ABI 1.1 option wiring (host/mcp/tools/tool_execute.c passes
// "optimize" through to the plugin's option): a debug build checks
// arithmetic overflow and has debug assertions; -O has neither.
e2e('rust: optimize true builds with -O; the default is a debug build', {}, async (h) => {
  const s = await h.shared({ env: RUST_ONLY });
  // 254 + the argument count (1), so the compiler cannot fold the overflow.
  const code = 'let x: u8 = 254 + std::env::args().count() as u8;\nprintln!("debug_assertions={}", cfg!(debug_assertions));\nprintln!("{}", x + 1);\n';
  const debug = await run(s, { language: 'rust', code });
  assert.equal(debug.phase, 'run', debug.stderr);
  assert.equal(debug.exitCode, 101);
  assert.equal(debug.stdout, 'debug_assertions=true\n');
  assert.match(debug.stderr, /attempt to add with overflow/);
  const opt = await run(s, { language: 'rust', code, optimize: true });
  ok(opt, 'optimize');
  assert.equal(opt.stdout, 'debug_assertions=false\n0\n');
  const off = await run(s, { language: 'rust', code, optimize: false });
  assert.equal(off.exitCode, 101, 'optimize: false is the default build');
});
