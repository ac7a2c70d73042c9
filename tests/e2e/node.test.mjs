// JavaScript and TypeScript (plugins/javascript, plugins/typescript, the
// mcp-sandbox/node image): what a user of either language checks first.
import assert from 'node:assert/strict';
import { e2e, toolError } from './lib/server.mjs';

// A warm container for the language under test only, on a server the
// file's tests of that language share.
const JS_ONLY = { SANDBOX_POOL_SIZE: '0', SANDBOX_JAVASCRIPT_POOL_SIZE: '1' };
const TS_ONLY = { SANDBOX_POOL_SIZE: '0', SANDBOX_TYPESCRIPT_POOL_SIZE: '1' };

// The Node major the image ships (images/node/package.json).
const NODE_MAJOR = 24;

e2e('javascript: hello world on the image Node, exit 0, clean stderr', {}, async (h) => {
  const s = await h.shared({ env: JS_ONLY });
  const r = await s.execute('javascript', 'console.log("hello from", process.release.name, process.version);');
  assert.match(r.stdout, /^hello from node v(\d+)\.\d+\.\d+\n$/);
  assert.equal(Number(/v(\d+)/.exec(r.stdout)[1]), NODE_MAJOR, r.stdout);
  assert.equal(r.stderr, '');
  assert.equal(r.exitCode, 0);
  assert.equal(r.signal, null);
  assert.equal(r.timedOut, false);
  assert.equal(r.language, 'javascript');
  assert.equal(r.phase, 'run');
});

e2e('aliases js and node run javascript', {}, async (h) => {
  const s = await h.shared({ env: JS_ONLY });
  for (const alias of ['js', 'node']) {
    const r = await s.execute(alias, 'console.log(typeof process.versions.v8)');
    assert.equal(r.stdout, 'string\n', `alias ${alias}`);
    assert.equal(r.language, 'javascript', `alias ${alias}`);
  }
});

e2e('javascript: an uncaught exception exits 1 with the stack in stderr', {}, async (h) => {
  const s = await h.shared({ env: JS_ONLY });
  const code = 'console.log("before the error");\nfunction f() {\n  throw new TypeError("boom 42");\n}\nf();\n';
  const r = await s.execute('javascript', code);
  assert.equal(r.exitCode, 1);
  assert.equal(r.signal, null);
  assert.equal(r.phase, 'run');
  assert.equal(r.stdout, 'before the error\n');
  assert.match(r.stderr, /^TypeError: boom 42$/m);
  assert.match(r.stderr, /^ {4}at f \(file:\/\/\/work\/main\.mjs:3:9\)$/m, 'the stack names the function and line');
});

e2e('javascript: an unhandled rejection exits 1 with the stack in stderr', {}, async (h) => {
  const s = await h.shared({ env: JS_ONLY });
  const code = [
    'async function load() {',
    '  throw new RangeError("rejected 7");',
    '}',
    'load();',
    'setTimeout(() => console.log("still running"), 2000);',
  ].join('\n');
  const r = await s.execute('javascript', code);
  assert.equal(r.exitCode, 1);
  assert.equal(r.stdout, '', 'the process ends at the rejection, before the timer');
  assert.match(r.stderr, /^RangeError: rejected 7$/m);
  assert.match(r.stderr, /at load \(file:\/\/\/work\/main\.mjs:2:9\)/);
});

e2e('javascript: top-level await', {}, async (h) => {
  const s = await h.shared({ env: JS_ONLY });
  const code = [
    'const t0 = Date.now();',
    'const v = await new Promise((resolve) => setTimeout(() => resolve(42), 50));',
    'const { setTimeout: sleep } = await import("node:timers/promises");',
    'await sleep(10);',
    'console.log(v, Date.now() - t0 >= 50);',
  ].join('\n');
  const r = await s.execute('javascript', code);
  assert.equal(r.stderr, '');
  assert.equal(r.stdout, '42 true\n');
  assert.equal(r.exitCode, 0);
});

e2e('javascript: import and require() of built-ins both work', {}, async (h) => {
  const s = await h.shared({ env: JS_ONLY });
  const code = [
    'import { join } from "node:path";',
    'import * as crypto from "node:crypto";',
    'const os = require("os");',
    'const { execFileSync } = require("node:child_process");',
    'console.log(join("a", "b"));',
    'console.log(crypto.createHash("sha256").update("abc").digest("hex").slice(0, 8));',
    'console.log(typeof os.cpus, os.userInfo().username);',
    'console.log(execFileSync("/bin/sh", ["-c", "echo child $(id -u)"]).toString().trim());',
  ].join('\n');
  const r = await s.execute('javascript', code);
  assert.equal(r.stderr, '');
  assert.equal(r.stdout, 'a/b\nba7816bf\nfunction sandbox\nchild 1000\n');
  assert.equal(r.exitCode, 0);
});

e2e('javascript: a file written in /work reads back; the code is /work/main.mjs', {}, async (h) => {
  const s = await h.shared({ env: JS_ONLY });
  const code = [
    'import fs from "node:fs/promises";',
    'await fs.writeFile("notes.txt", "line 1\\nline 2\\n");',
    'await fs.appendFile("/work/notes.txt", "line 3\\n");',
    'const text = await fs.readFile("notes.txt", "utf8");',
    'console.log(process.cwd(), text.split("\\n").length - 1, (await fs.readdir(".")).sort().join(","));',
  ].join('\n');
  const r = await s.execute('javascript', code);
  assert.equal(r.stderr, '');
  assert.equal(r.stdout, '/work 3 main.mjs,notes.txt\n');
});

e2e('javascript: stdin feeds process.stdin', {}, async (h) => {
  const s = await h.shared({ env: JS_ONLY });
  const code = 'let s = "";\nfor await (const chunk of process.stdin) s += chunk;\nprocess.stdout.write(s.toUpperCase());\n';
  const r = await s.execute('javascript', code, { stdin: 'hello\nworld\n' });
  assert.equal(r.stdout, 'HELLO\nWORLD\n');
  assert.equal(r.exitCode, 0);
  const none = await s.execute('javascript', code);
  assert.equal(none.stdout, '', 'without stdin the program reads EOF at once');
  assert.equal(none.exitCode, 0);
});

const TS_PROGRAM = `import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Stats } from "node:fs";

interface Shape {
  kind: "circle" | "square";
  size: number;
}
type Area = (s: Shape) => number;
enum Color {
  Red,
  Green = "green",
}
declare const maybe: string | undefined;
function largest<T extends { size: number }>(items: readonly T[]): T | undefined {
  return [...items].sort((a, b) => b.size - a.size)[0];
}
class Box<T> {
  constructor(private readonly value: T) {}
  get(): T {
    return this.value;
  }
}
const area: Area = (s) => (s.kind === "circle" ? Math.PI * s.size ** 2 : s.size ** 2);
const shapes: Shape[] = [
  { kind: "circle", size: 1 },
  { kind: "square", size: 3 },
];
writeFileSync(path.join("/work", "out.txt"), String(area(largest(shapes)!)));
const stats: Stats | undefined = undefined;
await Promise.resolve();
console.log(readFileSync("out.txt", "utf8"), Color.Green, Color[Color.Red], new Box<number>(7).get(), stats ?? "none");
`;

e2e('typescript: interfaces, enums, generics, type-only imports and node: built-ins run', {}, async (h) => {
  const s = await h.shared({ env: TS_ONLY });
  const r = await s.execute('typescript', TS_PROGRAM);
  assert.equal(r.stderr, '');
  assert.equal(r.stdout, '9 green Red 7 none\n');
  assert.equal(r.exitCode, 0);
  assert.equal(r.language, 'typescript');
  assert.equal(r.phase, 'run');
  const alias = await s.execute('ts', 'const n: number = 2 ** 10;\nconsole.log(n, process.version);\n');
  assert.match(alias.stdout, new RegExp(`^1024 v${NODE_MAJOR}\\.`));
  assert.equal(alias.language, 'typescript');
});

e2e('typescript: a runtime error names main.ts and its line; require() works', {}, async (h) => {
  const s = await h.shared({ env: TS_ONLY });
  const code = [
    'const os = require("node:os");',
    'interface Job { id: number }',
    'function fail(job: Job): never {',
    '  throw new Error(`job ${job.id} failed on ${typeof os.hostname()}`);',
    '}',
    'fail({ id: 3 });',
  ].join('\n');
  const r = await s.execute('typescript', code);
  assert.equal(r.exitCode, 1);
  assert.equal(r.phase, 'run');
  assert.match(r.stderr, /^Error: job 3 failed on string$/m);
  // Source maps: the user's file and line, not the transpiled main.mjs.
  assert.match(r.stderr, /at fail \(\/work\/main\.ts:4:9\)/);
  assert.doesNotMatch(r.stderr, /require/, 'no esbuild warning about require()');
});

e2e('typescript: a syntax error ends the run step before the program runs, in esbuild\'s words', {}, async (h) => {
  const s = await h.shared({ env: TS_ONLY });
  const r = await s.execute('typescript', 'const x: number = ;\nconsole.log("must not run");\n');
  // No build step: node transpiles main.ts itself (images/node/require.mjs).
  assert.equal(r.phase, 'run');
  assert.equal(r.exitCode, 1);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /main\.ts:1:18/);
  assert.match(r.stderr, /Unexpected ";"/);
});

// What swc (the transpiler in the run step) does as esbuild did when it was
// the build step, and what esbuild still does (import = require(), which
// swc refuses).
const TS_TRANSPILE = `const log: string[] = [];
function d(name: string) {
  return (v: unknown, c: { kind: string; name: string | symbol; addInitializer?: (f: () => void) => void }) => {
    log.push(\`\${name}:\${c.kind}\`);
    c.addInitializer?.(() => log.push(\`init \${name}\`));
    return v as any;
  };
}
@d("class") class C {
  @d("field") x = 1;
  @d("method") m() { return this.x; }
  @d("static") static s = 2;
  @d("accessor") accessor a = 5;
}
const c = new C();
namespace N { export const k = 3; }
const enum E { A = 4 }
class P { constructor(public p: number) {} }
console.log(log.join(","));
console.log(c.m(), C.s, c.a, N.k, E.A, new P(6).p, this, import.meta.url, process.argv[1]);
console.log(require("node:fs").readdirSync("/work").join(","));
`;

e2e('typescript: decorators, accessors, namespaces, enums, parameter properties; import = require() through esbuild', {}, async (h) => {
  const s = await h.shared({ env: TS_ONLY });
  const r = await s.execute('typescript', TS_TRANSPILE);
  assert.equal(r.stderr, '');
  assert.equal(r.exitCode, 0);
  // The 2023-11 decorators' order, as esbuild lowered them for node24
  // (the same program through esbuild printed the same lines).
  assert.equal(r.stdout, [
    'method:method,accessor:accessor,static:field,field:field,class:class,init static,init class,init method,init field,init accessor',
    '1 2 5 3 4 6 undefined file:///work/main.ts /work/main.ts',
    'main.ts',
    '',
  ].join('\n'));
  const eq = await s.execute('typescript', 'import path = require("node:path");\nconst n: string = path.basename("/a/b.txt");\nconsole.log(n);\n');
  assert.equal(eq.stderr, '');
  assert.equal(eq.stdout, 'b.txt\n');
});

e2e('typescript: without typecheck, code with a type error still runs (transpile only)', {}, async (h) => {
  const s = await h.shared({ env: TS_ONLY });
  const r = await s.execute('typescript', 'const bad: number = "x";\nconsole.log(bad, typeof bad);\n');
  assert.equal(r.exitCode, 0, r.stderr);
  assert.equal(r.phase, 'run');
  assert.equal(r.stdout, 'x string\n');
});

e2e('typescript: typecheck reports a type error as a failed build with tsc diagnostics', {}, async (h) => {
  const s = await h.shared({ env: TS_ONLY });
  const code = 'console.log("must not run");\nconst total: number = "12";\nfunction f(x) { return x; }\n';
  const r = await s.execute('typescript', code, { typecheck: true });
  assert.equal(r.phase, 'build');
  assert.notEqual(r.exitCode, 0);
  assert.equal(r.stdout, '', 'the program did not run');
  assert.match(r.stderr, /main\.ts\(2,7\): error TS2322: Type 'string' is not assignable to type 'number'\./);
  // strict: an implicit any is an error too.
  assert.match(r.stderr, /main\.ts\(3,12\): error TS7006:/);
});

e2e('typescript: typecheck passes well-typed code, Node built-ins included, and runs it', {}, async (h) => {
  const s = await h.shared({ env: TS_ONLY });
  const r = await s.execute('typescript', TS_PROGRAM, { typecheck: true });
  assert.equal(r.stderr, '');
  assert.equal(r.stdout, '9 green Red 7 none\n');
  assert.equal(r.exitCode, 0);
  assert.equal(r.phase, 'run');
  // No import or export: still a module (top-level await, no clash with
  // Node's global names).
  const tla = await s.execute('typescript', 'const process: number = await Promise.resolve(5);\nconsole.log(process);\n', {
    typecheck: true,
  });
  assert.equal(tla.stderr, '');
  assert.equal(tla.stdout, '5\n');
  // The setting is per call: the next call transpiles only again.
  const next = await s.execute('typescript', 'const n: number = "not checked";\nconsole.log(n);\n');
  assert.equal(next.stdout, 'not checked\n');
  assert.equal(next.exitCode, 0);
});

e2e('typecheck is refused for javascript, which does not offer it', { docker: false }, async (h) => {
  const s = await h.start({ env: { SANDBOX_POOL_SIZE: '0' } });
  const err = toolError(await s.call({ language: 'javascript', code: 'console.log(1)', typecheck: true }));
  assert.equal(err.code, 'invalid_arguments');
  assert.match(err.message, /typecheck/);
});
