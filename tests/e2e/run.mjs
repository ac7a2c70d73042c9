// run.mjs - `npm test`: every test file in a `node --test` process of its
// own, several side by side, then the files that must run alone one at a
// time (README.md, "How the files run"). Each file's TAP output is printed
// whole when the file ends, headed by its counts and wall time; at the end
// one line sums up:
//
//   e2e: P passed, F failed, S skipped
//
// Exit status non-zero when a test failed, when a file failed to load, ran
// no test of its own or exited non-zero without a failed test, or when no
// test ran at all: a run that checked nothing does not pass.
//
//   node run.mjs [--jobs=N] [--blocklist-off] [--only=side|alone]
//                [--skip=FILE,...] [FILE...]
//
// FILE...          only these files (default: every *.test.mjs)
// --skip=FILE,...  not these
// --jobs=N         files side by side (default SBX_E2E_JOBS, else twice
//                  the CPUs), of which at most one more than the CPUs
//                  of the CPU-heavy ones (HEAVY; SBX_E2E_HEAVY=N sets
//                  another number)
// --blocklist-off  also the adversarial suite (ADVERSARIAL) again with the
//                  code blocklist off, beside the rest (scripts/test.sh)
// --only=side      only the files that run side by side
// --only=alone     only those that run alone (scripts/test.sh runs the two
//                  groups at different points)
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const dir = path.dirname(fileURLToPath(import.meta.url));

// Files that must not share the machine with other test files, and why.
// They run one at a time once the others are done.
const ALONE = {
  'engine.test.mjs': 'stops and restarts the engine every other file uses',
  'userns.test.mjs': 'starts a dockerd (which makes the dockremap user on its first start)',
  'load.test.mjs': 'starts a dockerd; holds the server\'s descriptors and memory to bounds under 16 clients',
  'lifecycle.test.mjs': 'holds shutdown to time figures (containers gone within 5 s, Claude Code\'s 100 and 400 ms signals)',
  'packages_orphans.test.mjs': 'looks at what a killed server left, which any server starting beside it would remove',
  'pool.test.mjs': 'asserts that calls overlap in time',
  'pool_adaptive.test.mjs': 'asserts that calls overlap in time and that an idle pool shrinks within a bound',
};

// Of those, the ones that may run at the same time as each other (and
// nothing else): userns.test.mjs's server sees only its own engine, and
// load.test.mjs's dockerd does not remap users.
const ALONE_TOGETHER = new Set(['userns.test.mjs', 'load.test.mjs']);

// The adversarial suite: run again with SBX_E2E_BLOCKLIST=off by
// --blocklist-off (containment never depends on the blocklist,
// docs/security.md).
const ADVERSARIAL = ['adversarial.test.mjs', 'escape.test.mjs', 'hardening.test.mjs', 'limits.test.mjs', 'seccomp.test.mjs'];

// Files that keep a core busy for much of their time (compilers, the
// scientific stack, image and package builds, engines of their own): no
// more than one more than the CPUs (MAX_HEAVY) run at once, so that the
// calls of the others still get CPU (they wait on containers much of the
// time: on 2 cores, 3 at once still left a quarter of the CPU idle).
const HEAVY = new Set(['analyst.test.mjs', 'blocklist.test.mjs', 'compiled.test.mjs', 'conformance.test.mjs', 'engines.test.mjs', 'files_large.test.mjs', 'ml.test.mjs',
  'package.test.mjs', 'packages.test.mjs', 'packages_registries.test.mjs', 'plugin_kit.test.mjs', 'prestart.test.mjs', 'sdk_example.test.mjs',
  'seccomp.test.mjs']);
const CPUS = os.availableParallelism?.() ?? os.cpus().length;
const MAX_HEAVY = Number(process.env.SBX_E2E_HEAVY) || CPUS + 1;

// The longest files start first, so that none is left to run by itself at
// the end (seconds in a full run of scripts/test.sh on a 2-core machine;
// rough, only the order matters).
const LONG = {
  'soak.test.mjs': 110,
  'blocklist.test.mjs': 109,
  'sessions.test.mjs': 109,
  'plugin_kit.test.mjs': 108,
  'ml.test.mjs': 105,
  'engines.test.mjs': 103,
  'packages_registries.test.mjs': 100,
  'conformance.test.mjs': 70,
  'packages.test.mjs': 67,
  'artifacts.test.mjs': 64,
  'restart.test.mjs': 59,
  'files.test.mjs': 52,
  'package.test.mjs': 48,
  'analyst.test.mjs': 45,
  'files_large.test.mjs': 30,
  'prestart.test.mjs': 31,
  'seccomp.test.mjs': 26,
  'sdk_example.test.mjs': 20,
};

const args = process.argv.slice(2);
const opt = (name) => args.find((a) => a === name || a.startsWith(`${name}=`));
const jobsArg = opt('--jobs');
const jobs = Number(jobsArg ? jobsArg.split('=')[1] : process.env.SBX_E2E_JOBS || 2 * CPUS);
if (!Number.isInteger(jobs) || jobs < 1) {
  console.log(`e2e: --jobs wants a whole number of files at once, not ${jobsArg ?? process.env.SBX_E2E_JOBS}`);
  process.exit(1);
}
const blocklistOff = Boolean(opt('--blocklist-off'));
const group = opt('--only')?.split('=')[1];
const skip = opt('--skip')?.split('=')[1]?.split(',') ?? [];
const only = args.filter((a) => !a.startsWith('--'));
const unknown = args.filter((a) => a.startsWith('--') && !/^--(jobs=.*|blocklist-off|only=(side|alone)|skip=.*)$/.test(a));
if (unknown.length) {
  console.log(`e2e: unknown option ${unknown.join(' ')}`);
  process.exit(1);
}
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.test.mjs') && (!only.length || only.includes(f)))
  .sort();
if (only.length && files.length !== only.length) {
  console.log(`e2e: no such test file among ${only.join(' ')}`);
  process.exit(1);
}
const unknownSkip = skip.filter((f) => !readdirSync(dir).includes(f));
if (unknownSkip.length) {
  console.log(`e2e: --skip names no test file: ${unknownSkip.join(' ')}`);
  process.exit(1);
}

/** One `node --test` run: a file, the environment it adds, whether it runs alone. */
let runs = files.filter((f) => !skip.includes(f)).map((file) => ({ file, env: {}, alone: file in ALONE }));
if (blocklistOff)
  for (const file of ADVERSARIAL)
    if (files.includes(file) && !skip.includes(file)) runs.push({ file, env: { SBX_E2E_BLOCKLIST: 'off' }, alone: file in ALONE });
if (group) runs = runs.filter((r) => r.alone === (group === 'alone'));
const label = (r) => `${r.file}${Object.keys(r.env).length ? ` (${Object.entries(r.env).map(([k, v]) => `${k}=${v}`).join(' ')})` : ''}`;

// Each file's process runs in a process group of its own, which a signal
// to run.mjs ends whole: the test file, its servers and what they started.
const children = new Set();
for (const sig of ['SIGINT', 'SIGTERM'])
  process.on(sig, () => {
    for (const c of children) {
      try {
        process.kill(-c.pid, sig);
      } catch {
        // gone already
      }
    }
    process.exit(1);
  });

/** Runs one file; resolves to the run with { status, out, err, seconds }. */
function runFile(r) {
  return new Promise((resolve) => {
    const start = Date.now();
    const child = spawn(process.execPath, ['--test', '--test-reporter=tap', r.file], {
      cwd: dir,
      env: { ...process.env, ...r.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    children.add(child);
    const chunks = [];
    let err = '';
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => {
      err += c.toString('utf8');
    });
    child.on('close', (code, signal) => {
      children.delete(child);
      resolve(Object.assign(r, {
        status: code ?? (signal ? 1 : 0),
        out: Buffer.concat(chunks).toString('utf8'),
        err,
        seconds: (Date.now() - start) / 1000,
      }));
    });
  });
}

/** The summary numbers of one file's TAP stream ("# pass N" ...), and what is wrong with the file itself. */
function summarise(r) {
  // The last such line: the summary comes at the end (a diagnostic line
  // could look like one).
  const num = (k) => Number([...r.out.matchAll(new RegExp(`^# ${k} (\\d+)$`, 'gm'))].at(-1)?.[1] ?? 0);
  // node --test reports a file as a test of its own when it failed to
  // load or registered no test: a top-level result named after the file.
  let fileResult = null;
  for (const m of r.out.matchAll(/^(not ok|ok) \d+ - (.*)$/gm)) {
    const name = m[2].replace(/ # (SKIP|TODO)\b.*$/, '');
    if (path.basename(name) === r.file && (name === r.file || path.isAbsolute(name))) fileResult = m[1] === 'ok';
  }
  const s = { pass: num('pass'), fail: num('fail') + num('cancelled'), skipped: num('skipped') + num('todo'), problem: null };
  if (fileResult !== null) {
    // Counted as a passed test by node: it is none.
    if (fileResult) s.pass--;
    s.problem = `${label(r)}: ${fileResult ? 'ran no test' : 'failed to load or to finish'}`;
  } else if (r.status !== 0 && s.fail === 0) {
    s.problem = `${label(r)}: node --test exited ${r.status} with no failed test`;
  }
  return s;
}

function report(r) {
  r.sum = summarise(r);
  const { pass, fail, skipped } = r.sum;
  console.log(`# ---- ${label(r)}: ${pass} passed, ${fail} failed, ${skipped} skipped in ${r.seconds.toFixed(1)} s${r.alone ? ' (alone)' : ''}`);
  process.stdout.write(r.out);
  if (r.err) process.stdout.write(r.err.replace(/^/gm, '# stderr: '));
}

/** Runs these side by side, `jobs` at once, MAX_HEAVY of them HEAVY. */
function sideBySide(list) {
  const queue = [...list].sort((a, b) => (LONG[b.file] ?? 0) - (LONG[a.file] ?? 0));
  let running = 0;
  let heavy = 0;
  return new Promise((resolve) => {
    const next = () => {
      while (running < jobs) {
        const i = queue.findIndex((r) => !HEAVY.has(r.file) || heavy < MAX_HEAVY);
        if (i < 0) break;
        const [r] = queue.splice(i, 1);
        const h = HEAVY.has(r.file) ? 1 : 0;
        running++;
        heavy += h;
        runFile(r).then(() => {
          running--;
          heavy -= h;
          report(r);
          next();
        });
      }
      if (!running && !queue.length) resolve();
    };
    next();
  });
}

const t0 = Date.now();
const side = runs.filter((r) => !r.alone);
await sideBySide(side);
const sideSeconds = (Date.now() - t0) / 1000;
const alone = runs.filter((x) => x.alone);
for (const r of alone.filter((x) => !ALONE_TOGETHER.has(x.file))) report(await runFile(r));
await Promise.all(alone.filter((x) => ALONE_TOGETHER.has(x.file)).map(async (r) => report(await runFile(r))));

let pass = 0;
let fail = 0;
let skipped = 0;
let status = 0;
const problems = [];
for (const r of runs) {
  pass += r.sum.pass;
  fail += r.sum.fail;
  skipped += r.sum.skipped;
  if (r.sum.problem) problems.push(r.sum.problem);
  if (r.status !== 0) status = 1;
}
if (pass + fail === 0) problems.push(`no test ran (${skipped} skipped)`);
const failed = runs.filter((r) => r.sum.fail).map(label);
const slowest = [...runs].sort((a, b) => b.seconds - a.seconds).slice(0, 8).map((r) => `${label(r)} ${r.seconds.toFixed(0)} s`);
const took = [];
if (side.length) took.push(`${side.length} runs ${jobs} at a time in ${sideSeconds.toFixed(0)} s`);
if (runs.length > side.length) took.push(`${runs.length - side.length} alone in ${((Date.now() - t0) / 1000 - sideSeconds).toFixed(0)} s`);
console.log(`e2e: ${took.join(', then ') || 'nothing to run'}; slowest: ${slowest.join(', ')}`);
if (failed.length) console.log(`e2e: failed in ${failed.join(', ')}`);
for (const p of problems) console.log(`e2e: ${p}`);
console.log(`e2e: ${pass} passed, ${fail} failed, ${skipped} skipped`);
process.exit(status || problems.length || fail ? 1 : 0);
