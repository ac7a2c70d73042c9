// How the pool sizes itself (docs/config.md): only the languages warm at
// start get containers when the server starts, another language is warmed
// by its first call, the pool grows with the callers and shrinks back to
// its floor when idle, and the memory budget caps the containers it starts
// on its own (never a caller's).
import assert from 'node:assert/strict';
import { SHIPPED_POOL, e2e } from './lib/server.mjs';
import { serverContainers } from './lib/sandbox.mjs';
import { eventually } from './lib/wait.mjs';

const LANGUAGE = 'org.mcp-sandbox.language';

/** This server's containers counted per language, e.g. { bash: 2, python: 2 } (keys sorted). */
async function perLanguage(s) {
  const out = {};
  for (const c of await serverContainers(s.pid)) {
    const lang = c.Labels[LANGUAGE];
    out[lang] = (out[lang] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(out).sort());
}

/** Waits until the server's stderr matches re (a log line). */
async function logged(s, re, timeoutMs = 60_000) {
  const ok = await eventually(() => re.test(s.stderr), { timeoutMs });
  assert.ok(ok, `the server never logged ${re}`);
}

/** Waits until this server runs exactly `want` containers per language. */
async function settlesAt(s, want, timeoutMs = 30_000) {
  let last;
  const ok = await eventually(
    async () => {
      last = await perLanguage(s);
      return JSON.stringify(last) === JSON.stringify(want);
    },
    { timeoutMs },
  );
  assert.ok(ok, `containers per language: expected ${JSON.stringify(want)}, last seen ${JSON.stringify(last)}`);
}

e2e('a just-started server with the shipped pool settings runs only python and bash containers', { timeoutMs: 120_000 }, async (h) => {
  const s = await h.start({ env: SHIPPED_POOL });
  await logged(s, /\[python\] warm: 2 containers/);
  await logged(s, /\[bash\] warm: 2 containers/);
  assert.deepEqual(
    await perLanguage(s),
    { bash: 2, python: 2 },
    'two warm containers each of python and bash, and nothing else',
  );
});

e2e('a first call in a language that is not warm succeeds and warms that language', { timeoutMs: 120_000 }, async (h) => {
  const s = await h.start({ env: SHIPPED_POOL });
  await logged(s, /\[python\] warm:/);
  await logged(s, /\[bash\] warm:/);
  assert.equal((await perLanguage(s)).javascript, undefined, 'no javascript container before its first call');
  const r = await s.execute('javascript', 'console.log(6 * 7)');
  assert.equal(r.exitCode, 0, r.stderr);
  assert.equal(r.stdout, '42\n');
  await logged(s, /\[javascript\] warm: 2 containers/);
  await settlesAt(s, { bash: 2, javascript: 2, python: 2 });
  // And the warm pool serves the next call.
  assert.equal((await s.execute('javascript', 'console.log("again")')).stdout, 'again\n');
});

e2e('the pool grows with concurrent callers and shrinks back to its floor when idle', { timeoutMs: 120_000 }, async (h) => {
  const s = await h.start({
    env: {
      SANDBOX_POOL_WARM_AT_START: 'python',
      SANDBOX_BASH_POOL_SIZE: '0',
      SANDBOX_PYTHON_POOL_SIZE: '1',
      SANDBOX_PYTHON_POOL_MAX_SIZE: '2',
      SANDBOX_POOL_IDLE_SHRINK_S: '2',
    },
  });
  await settlesAt(s, { python: 1 });
  // Four calls that overlap need four containers: the floor is one and the
  // ceiling two, but callers are never refused a container of their own.
  const code = 'import socket, time\nt0 = time.time()\ntime.sleep(2)\nprint(socket.gethostname(), t0, time.time())';
  const results = await Promise.all([1, 2, 3, 4].map(() => s.execute('python', code)));
  const spans = results.map((r) => {
    assert.equal(r.exitCode, 0, r.stderr);
    const [host, start, end] = r.stdout.trim().split(' ');
    return { host, start: Number(start), end: Number(end) };
  });
  assert.equal(new Set(spans.map((x) => x.host)).size, 4, 'four containers served the four calls');
  assert.ok(
    Math.max(...spans.map((x) => x.start)) < Math.min(...spans.map((x) => x.end)),
    'the four calls ran at the same time',
  );
  // Idle for two seconds: back to the floor, and the floor still serves.
  await settlesAt(s, { python: 1 });
  assert.equal((await s.execute('python', 'print("still warm")')).stdout, 'still warm\n');
  await settlesAt(s, { python: 1 });
});

e2e('the memory budget holds back warm containers but never a caller\'s own', { timeoutMs: 120_000 }, async (h) => {
  const s = await h.start({
    env: { SANDBOX_POOL_WARM_AT_START: 'python', SANDBOX_BASH_POOL_SIZE: '0', SANDBOX_PYTHON_POOL_SIZE: '2', SANDBOX_POOL_MEMORY_BUDGET_MB: '1' },
  });
  await logged(s, /\[python\] no more warm containers: the memory budget \(1 MiB\) would be exceeded/);
  assert.deepEqual(await perLanguage(s), {}, 'no warm container fits in 1 MiB');
  const r = await s.execute('python', 'print("served")');
  assert.equal(r.stdout, 'served\n');
  // The caller's container stays (the floor wants two), no second one.
  await settlesAt(s, { python: 1 });
  assert.equal((await s.execute('python', 'print("again")')).stdout, 'again\n');
  assert.deepEqual(await perLanguage(s), { python: 1 });
});
