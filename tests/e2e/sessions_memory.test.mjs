// A session's memory figure (docs/sessions.md, "Memory"): measured in the
// background, so that sandbox_session get and list and sandbox_inspect
// answer without asking the engine (its statistics endpoint takes about a
// second to answer). The engine sits behind a gate of the test's
// (lib/docker.mjs, engineGate) that can hold or fail the statistics
// requests while everything else goes through: a look that waited for the
// engine would not answer while they are held.
import assert from 'node:assert/strict';
import { e2e } from './lib/server.mjs';
import { createSession, sessionContainer, sessionOk, sexecOk, withStateDir } from './lib/sessions.mjs';
import { engineGate } from './lib/docker.mjs';
import { waitFor } from './lib/wait.mjs';

// No memory budget: the pool does not measure its boxes, so every
// statistics request the gate sees is a session's.
const PYTHON = { SANDBOX_BASH_POOL_SIZE: '0', SANDBOX_POOL_MEMORY_BUDGET_MB: '0' };
// A refresh a second apart keeps the test short (the default is 5 s).
const REFRESH_MS = 1000;
// A look answers from what the server knows: far within this even on a
// loaded machine, and never while the engine holds the statistics.
const AT_ONCE = { requestTimeoutMs: 10_000 };
const MiB = 1 << 20;

/** get, list and sandbox_inspect's view of the session name, asked at once. */
async function looks(s, name) {
  const got = (await sessionOk(s, { action: 'get', name }, AT_ONCE)).session;
  const listed = (await sessionOk(s, { action: 'list' }, AT_ONCE)).sessions.find((x) => x.name === name);
  const r = await s.client.callTool({ name: 'sandbox_inspect', arguments: { what: 'sessions' } }, undefined,
    { timeout: AT_ONCE.requestTimeoutMs });
  assert.equal(r.isError ?? false, false, r.content?.[0]?.text);
  const inspected = r.structuredContent.sessions.list.find((x) => x.name === name);
  assert.ok(listed && inspected, `${name} in list and inspect`);
  return { got, listed, inspected };
}

/** The session's figure once a get shows one that pred accepts. */
function figure(s, name, pred, what) {
  return waitFor(async () => {
    const got = (await sessionOk(s, { action: 'get', name }, AT_ONCE)).session;
    return got.memoryBytes !== undefined && pred(got) ? got : null;
  }, { timeoutMs: 30_000, intervalMs: 200, what });
}

e2e('session memory: get, list and inspect answer while the engine holds its statistics; the figure and its age come, follow the program, and outlive a failing engine', { timeoutMs: 150_000 }, async (h) => {
  const st = withStateDir(h);
  const gate = await engineGate(h, { mode: 'hold' });
  const s = await st.start({ ...PYTHON, DOCKER_HOST: gate.host, SANDBOX_SESSIONS_MEMORY_REFRESH_MS: String(REFRESH_MS) });
  await createSession(s, 'python', { name: 'm' });
  const m = (await sessionContainer(st.dir, 'm')).id;

  // Every look answers at once, with no figure yet: none waits for the
  // engine, which holds every statistics request.
  for (const [how, x] of Object.entries(await looks(s, 'm'))) {
    assert.equal(x.memoryBytes, undefined, `${how}: no figure before the first measurement: ${JSON.stringify(x)}`);
    assert.equal(x.memoryAgeMs, undefined, `${how}: no age without a figure`);
  }
  // The new session was measured at once, in the background: the engine
  // holds that one request (the looks asked for none).
  await waitFor(() => gate.held(m) === 1, { timeoutMs: 30_000, what: 'the first measurement held by the engine' });
  assert.equal(gate.seen(), 1, 'one statistics request');
  // Calls go on meanwhile.
  assert.equal((await sexecOk(s, 'm', 'print(6 * 7)')).stdout, '42\n');

  // The engine answers: the figure comes, with its age, in every look.
  gate.pass();
  const first = await figure(s, 'm', () => true, 'the first figure');
  assert.ok(Number.isInteger(first.memoryBytes) && first.memoryBytes > 0, JSON.stringify(first));
  assert.ok(Number.isInteger(first.memoryAgeMs) && first.memoryAgeMs >= 0 && first.memoryAgeMs < 30_000, JSON.stringify(first));
  for (const [how, x] of Object.entries(await looks(s, 'm'))) {
    assert.ok(Number.isInteger(x.memoryBytes) && x.memoryBytes > 0, `${how}: ${JSON.stringify(x)}`);
    assert.ok(Number.isInteger(x.memoryAgeMs) && x.memoryAgeMs >= 0, `${how}: ${JSON.stringify(x)}`);
  }

  // The program takes 150 MiB (written, so resident): a later measurement
  // shows it, taken without anyone asking for it.
  await sexecOk(s, 'm', 'held = b"\\x01" * (150 << 20)');
  const grown = await figure(s, 'm', (g) => g.memoryBytes >= first.memoryBytes + 100 * MiB,
    `the figure to grow by 100 MiB from ${first.memoryBytes}`);
  assert.ok(grown.memoryAgeMs < 30_000, JSON.stringify(grown));
  // Its age grows between measurements and falls back at each: the
  // measurements go on by themselves.
  let oldest = 0;
  await waitFor(async () => {
    const g = (await sessionOk(s, { action: 'get', name: 'm' }, AT_ONCE)).session;
    if (g.memoryAgeMs < oldest) return true;
    oldest = Math.max(oldest, g.memoryAgeMs);
    return false;
  }, { timeoutMs: 30_000, intervalMs: 100, what: 'a newer measurement (its age falling back)' });

  // The engine fails every statistics request: the last figure stays, and
  // its age grows past several refreshes.
  gate.fail();
  const failedFrom = gate.seen();
  await waitFor(() => gate.seen() >= failedFrom + 2, { timeoutMs: 30_000, what: 'two failed measurements' });
  const kept = await figure(s, 'm', (g) => g.memoryAgeMs > 2 * REFRESH_MS, 'the figure ageing past two refreshes');
  assert.ok(kept.memoryBytes >= first.memoryBytes + 100 * MiB, `the last figure is kept: ${JSON.stringify(kept)}`);

  // A session destroyed while its measurement is held: withdrawn, and the
  // server serves on.
  gate.hold();
  await createSession(s, 'python', { name: 'gone' });
  const gone = (await sessionContainer(st.dir, 'gone')).id;
  await waitFor(() => gate.held(gone) === 1, { timeoutMs: 30_000, what: 'the new session\'s measurement held' });
  assert.deepEqual(await sessionOk(s, { action: 'destroy', name: 'gone' }, AT_ONCE), { destroyed: 'gone' });
  await waitFor(() => gate.held(gone) === 0, { timeoutMs: 30_000, what: 'the destroyed session\'s measurement withdrawn' });
  const { got } = await looks(s, 'm');
  assert.equal(got.memoryBytes, kept.memoryBytes, 'm keeps its figure');
  assert.equal((await sexecOk(s, 'm', 'print(len(held) >> 20)')).stdout, '150\n');
});
