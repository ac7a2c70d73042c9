// Preloaded (node --import) by the javascript and typescript plugins: the
// program is an ES module (main.mjs, or main.ts transpiled below, so
// top-level await works), which has no require(); this gives it one that
// resolves from /work, so that `require('node:fs')` works as well as
// `import fs from 'node:fs'`.
//
// Installed packages (docs/packages.md) arrive as NODE_PATH, read-only
// directories outside /work. require() honours NODE_PATH; ES imports do
// not, so a resolve hook retries a bare specifier that fails from each of
// those directories.
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { createRequire, registerHooks } from 'node:module';
import { pathToFileURL } from 'node:url';
import { isMainThread } from 'node:worker_threads';

globalThis.require ??= createRequire(`${process.cwd()}/`);

const dirs = (process.env.NODE_PATH ?? '').split(':').filter(Boolean);
if (dirs.length) {
  registerHooks({
    resolve(specifier, context, next) {
      try {
        return next(specifier, context);
      } catch (err) {
        if (err?.code !== 'ERR_MODULE_NOT_FOUND' || /^[./]|^[a-z]+:/i.test(specifier)) throw err;
        for (const d of dirs) {
          try {
            return next(specifier, { ...context, parentURL: pathToFileURL(`${d}/`).href });
          } catch { /* the next directory */ }
        }
        throw err;
      }
    },
  });
}

// TypeScript (the main module is a .ts file: the typescript plugin's
// main.ts): transpiled here, in the process that runs it, by swc's native
// binding (@swc/core-linux-x64-gnu, unpacked by the image's Dockerfile;
// loaded with process.dlopen so that no module of ours is in
// require.cache), and handed to node by a load hook (at the end) as the
// main module's source: an ES module with an inline source map, so stack
// traces name main.ts and its lines. A pre-started node loads the binding
// and transforms once before it waits (the load takes 2 to 3 ms, the first
// transform 1.6, the next ones well under one). What swc refuses (a syntax
// error, `import x = require()`) goes to esbuild: its output if it accepts
// the program, else its message and status (1: a syntax error ends the run
// step before the program runs).
const tsMain = isMainThread && /\.ts$/.test(process.argv[1] ?? '') ? process.argv[1] : null;
const SWC_BINDING = '/opt/sbx/lib/swc.node';
const swcOptions = (file) => Buffer.from(JSON.stringify({
  filename: file, sourceMaps: 'inline', isModule: true,
  // Decorators as esbuild lowers them for node24 (the 2023-11 proposal, in
  // the same order), auto-accessors included.
  jsc: { parser: { syntax: 'typescript', decorators: true }, target: 'esnext', transform: { decoratorVersion: '2023-11' } },
  module: { type: 'es6' },
}));
let swc = null;
const loadSwc = () => {
  const m = { exports: {} };
  process.dlopen(m, SWC_BINDING);
  swc = m.exports;
};
const transpile = (file) => {
  const source = readFileSync(file, 'utf8');
  if (!swc) loadSwc();
  try {
    return swc.transformSync(source, false, swcOptions(file)).code;
  } catch { /* esbuild's turn */ }
  const name = file.slice(file.lastIndexOf('/') + 1);
  const r = process.getBuiltinModule('node:child_process').spawnSync('/usr/local/bin/esbuild', [
    '--loader=ts', `--sourcefile=${name}`, '--format=esm', '--platform=node', '--target=node24',
    '--sourcemap=inline', '--log-level=error', '--log-override:unsupported-require-call=silent',
  ], { input: source, stdio: ['pipe', 'pipe', 'inherit'], maxBuffer: 1 << 30, encoding: 'utf8' });
  if (r.status === 0) return r.stdout;
  if (r.error) process.stderr.write(`esbuild: ${r.error.message}\n`);
  process.exit(r.status || 1);
};

// A pre-started interpreter (docs/prestart.md). The agent starts the next
// one-off call's node before the call arrives, with that call's argv and
// environment, and this is where it waits: node's start-up and the lines
// above are done, the program itself is not read yet. Closing fd 5 tells
// the agent it waits; fd 3 then brings "sbx1", the stdin mode and the
// added arguments, and node goes on to load the main module exactly as a
// node started then would. Only such a process has the agent (PID 1) as
// its parent, leads its own session and has pipes on fds 3 (read), 4
// (read) and 5 (write), and this runs on its main thread; for any other
// process this does nothing.
const accessMode = (fd) => {
  const m = /^flags:\s+([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'latin1'));
  return m ? parseInt(m[1], 8) & 3 : -1;
};
const leadsSession = () => {
  const st = readFileSync('/proc/self/stat', 'latin1');
  return Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[3]) === process.pid;
};
if (isMainThread && process.ppid === 1) {
  let waiting = false;
  try {
    waiting = [3, 4, 5].every((fd) => fstatSync(fd).isFIFO()) &&
      accessMode(3) === 0 && accessMode(4) === 0 && accessMode(5) === 1 && leadsSession();
    if (waiting && tsMain) {
      loadSwc();
      swc.transformSync('const x: number = 1', false, swcOptions('warm.ts'));
    }
    if (waiting) closeSync(5);
  } catch {
    waiting = false;
  }
  if (waiting) {
    const chunks = [];
    const buf = Buffer.allocUnsafe(65536);
    for (let n; (n = readSync(3, buf)) > 0;) chunks.push(Buffer.from(buf.subarray(0, n)));
    closeSync(3);
    const parts = Buffer.concat(chunks).toString('latin1').split('\0');
    if (parts.length < 3 || parts[0] !== 'sbx1' || parts.at(-1) !== '') process.exit(127);
    if (parts[1] === 'stdin') {
      // The program's stdin is the pipe on fd 4; node opens the lowest
      // free descriptor, 0 once it is closed. process.stdin is made on
      // first use, so it sees the pipe.
      closeSync(0);
      if (openSync('/proc/self/fd/4', 'r') !== 0) process.exit(127);
    }
    closeSync(4);
    for (const a of parts.slice(2, -1)) process.argv.push(Buffer.from(a, 'latin1').toString());
  }
}

if (tsMain) {
  const url = pathToFileURL(tsMain).href;
  const code = transpile(tsMain);
  registerHooks({
    load: (u, context, next) => (u === url ? { format: 'module', source: code, shortCircuit: true } : next(u, context)),
  });
}
