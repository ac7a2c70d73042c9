// run.mjs - `npm test`: run the test files one at a time (they share the
// machine's cores and Docker engine). Node >= 20.10 does it with
// --test-concurrency=1; older Node (Debian bookworm ships 18) gets one
// `node --test` per file. The TAP output passes through; at the end one
// line sums up:
//
//   e2e: P passed, F failed, S skipped
//
// Exit status non-zero when a test failed, when a file failed to load or
// ran no test of its own, or when no test ran at all: a run that checked
// nothing does not pass. File names given as arguments run only those.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const dir = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.test.mjs') && (!only.length || only.includes(f)))
  .sort();
if (only.length && files.length !== only.length) {
  console.log(`e2e: no such test file among ${only.join(' ')}`);
  process.exit(1);
}
const [major, minor] = process.versions.node.split('.').map(Number);

/** Runs node --test on these files; resolves to { status, tap }. */
function runNode(list) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--test', '--test-reporter=tap', ...extra, ...list], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let tap = '';
    child.stdout.on('data', (c) => {
      process.stdout.write(c);
      tap += c.toString('utf8');
    });
    child.on('close', (code, signal) => resolve({ status: code ?? (signal ? 1 : 0), tap }));
  });
}

/** The summary numbers of one TAP stream ("# pass N" ...), and the files reported as tests themselves. */
function summarise(tap) {
  // The last such line: the summary comes at the end (a diagnostic line
  // could look like one).
  const num = (k) => Number([...tap.matchAll(new RegExp(`^# ${k} (\\d+)$`, 'gm'))].at(-1)?.[1] ?? 0);
  // node --test reports a file as a test of its own when it failed to
  // load or registered no test: a top-level result named after the file.
  const fileResults = [];
  for (const m of tap.matchAll(/^(not ok|ok) \d+ - (.*)$/gm)) {
    const name = m[2].replace(/ # (SKIP|TODO)\b.*$/, '');
    if (files.includes(path.basename(name)) && (name === path.basename(name) || path.isAbsolute(name)))
      fileResults.push({ file: path.basename(name), ok: m[1] === 'ok' });
  }
  return {
    pass: num('pass'),
    fail: num('fail') + num('cancelled'),
    skipped: num('skipped') + num('todo'),
    fileResults,
  };
}

const extra = [];
const runs = [];
if (major > 20 || (major === 20 && minor >= 10)) {
  extra.push('--test-concurrency=1');
  runs.push(await runNode(files));
} else {
  for (const f of files) runs.push(await runNode([f]));
}

let pass = 0;
let fail = 0;
let skipped = 0;
let status = 0;
const problems = [];
for (const r of runs) {
  const s = summarise(r.tap);
  pass += s.pass;
  fail += s.fail;
  skipped += s.skipped;
  for (const f of s.fileResults) {
    // Counted as a passed test by node: it is none.
    if (f.ok) pass--;
    problems.push(`${f.file}: ${f.ok ? 'ran no test' : 'failed to load or to finish'}`);
  }
  if (r.status !== 0) status = 1;
}
if (pass + fail === 0) problems.push(`no test ran (${skipped} skipped)`);
for (const p of problems) console.log(`e2e: ${p}`);
console.log(`e2e: ${pass} passed, ${fail} failed, ${skipped} skipped`);
process.exit(status || problems.length || fail ? 1 : 0);
