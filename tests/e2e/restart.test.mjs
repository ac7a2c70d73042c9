// Sessions survive their server: after a kill -9 or a clean exit (an editor
// restarting it), a new server started with the same state directory and
// working directory takes the same slot and re-adopts the sessions, with
// their interpreter state. Two servers running at once with the same state
// directory hold different slots and never touch each other's sessions.
//
// Every test has its own state directory and removes its session
// containers at the end (lib/sessions.mjs, withStateDir).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, e2e, toolError } from './lib/server.mjs';
import { eventually, progressText, waitFor } from './lib/wait.mjs';
import {
  createSession,
  killServer,
  listNames,
  sessionContainers,
  sessionCall,
  sessionErr,
  sessionExecCall,
  sessionOk,
  sexec,
  sexecErr,
  sexecOk,
  stateSlots,
  withStateDir,
} from './lib/sessions.mjs';

const PYTHON = { SANDBOX_BASH_POOL_SIZE: '0' };

/** Waits until the server lists exactly these sessions (adoption runs in the background). */
async function waitListed(s, names, { timeoutMs = 30_000 } = {}) {
  const want = [...names].sort();
  let got;
  const ok = await eventually(
    async () => {
      got = await listNames(s);
      return JSON.stringify(got) === JSON.stringify(want);
    },
    { timeoutMs, intervalMs: 250 },
  );
  assert.ok(ok, `${s.label} lists ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
}

/** Runs print(<expr>) in a session; the call must succeed. */
function printIn(s, name, expr) {
  return sexecOk(s, name, `print(${expr})`);
}

e2e('a session survives kill -9 of the server, interpreter state included', { timeoutMs: 180_000 }, async (h) => {
  const st = withStateDir(h);
  const s1 = await st.start(PYTHON);
  await createSession(s1, 'python', { name: 'keep' });
  await sexecOk(s1, 'keep', 'x = 42\nopen("/work/f.txt", "w").write("file kept")');
  const before = (await sessionOk(s1, { action: 'get', name: 'keep' })).session;
  const [slot] = stateSlots(st.dir);
  assert.ok(slot, `a slot in ${st.dir}`);
  const [c1] = await sessionContainers({ dir: st.dir });
  assert.equal(c1?.session, 'keep', `container name: ${c1?.name}`);

  await killServer(s1);

  const s2 = await st.start(PYTHON);
  assert.notEqual(s2.pid, s1.pid);
  await waitListed(s2, ['keep']);
  assert.deepEqual(stateSlots(st.dir), [slot], 'the new server took the same slot');
  const r = await printIn(s2, 'keep', 'x, open("/work/f.txt").read()');
  assert.equal(r.stdout, "42 file kept\n");
  assert.equal(r.freshState, false, 'the same interpreter');
  assert.equal(r.stateKept, true);
  const after = (await sessionOk(s2, { action: 'get', name: 'keep' })).session;
  assert.equal(after.language, 'python');
  assert.equal(after.created, before.created, 'creation time remembered');
  // The deadline comes back from the container's name: to the second.
  const sec = (t) => Math.floor(Date.parse(t) / 1000);
  assert.equal(sec(after.deadline), sec(before.deadline), `deadline remembered: ${after.deadline} vs ${before.deadline}`);
  assert.equal(after.ttlSeconds, before.ttlSeconds);
  assert.equal(after.executions, before.executions + 1, 'execution count remembered');
  const [c2] = await sessionContainers({ dir: st.dir });
  assert.equal(c2.id, c1.id, 'the same container');
});

e2e('a session survives a clean exit of the server (an editor restart)', { timeoutMs: 180_000 }, async (h) => {
  const st = withStateDir(h);
  const s1 = await st.start(PYTHON);
  await createSession(s1, 'python', { name: 'calm', ttl: 600 });
  await sexecOk(s1, 'calm', 'x = 42\ndef f():\n    return x + 1');
  await s1.close();
  assert.equal((await sessionContainers({ dir: st.dir })).length, 1, 'the container stays after a clean exit');

  const s2 = await st.start(PYTHON);
  await waitListed(s2, ['calm']);
  const r = await printIn(s2, 'calm', 'x, f()');
  assert.equal(r.stdout, '42 43\n');
  assert.equal(r.freshState, false);
  assert.equal((await sessionOk(s2, { action: 'get', name: 'calm' })).session.ttlSeconds, 600, 'TTL remembered');
  // And it can be destroyed by its new server.
  await sessionOk(s2, { action: 'destroy', name: 'calm' });
  const removed = await eventually(async () => (await sessionContainers({ dir: st.dir })).length === 0, {
    timeoutMs: 20_000,
  });
  assert.ok(removed, 'destroyed after the restart: container removed');
});

e2e('a paused session survives a restart and resumes with its state', { timeoutMs: 180_000 }, async (h) => {
  const st = withStateDir(h);
  const s1 = await st.start(PYTHON);
  await createSession(s1, 'python', { name: 'frozen' });
  await sexecOk(s1, 'frozen', 'x = 42');
  await sessionOk(s1, { action: 'pause', name: 'frozen' });
  await killServer(s1);

  const s2 = await st.start(PYTHON);
  await waitListed(s2, ['frozen']);
  assert.equal((await sessionOk(s2, { action: 'get', name: 'frozen' })).session.state, 'paused');
  assert.equal((await sexecErr(s2, 'frozen', 'print(x)')).code, 'session_paused');
  await sessionOk(s2, { action: 'resume', name: 'frozen' });
  const r = await printIn(s2, 'frozen', 'x');
  assert.equal(r.stdout, '42\n');
});

e2e('two servers with one state directory: separate slots, each sees and re-adopts only its own sessions', { timeoutMs: 240_000 }, async (h) => {
  const st = withStateDir(h);
  const a1 = await st.start(PYTHON);
  await createSession(a1, 'python', { name: 'sa' });
  await sexecOk(a1, 'sa', 'x = "A"');
  const b = await st.start(PYTHON);
  await createSession(b, 'python', { name: 'sb' });
  await sexecOk(b, 'sb', 'x = "B"');

  const slots = stateSlots(st.dir);
  assert.equal(slots.length, 2, `two slots: ${JSON.stringify(slots)}`);
  const bySlot = Object.fromEntries(
    (await sessionContainers({ dir: st.dir })).map((c) => [c.session, c.slot]),
  );
  assert.ok(bySlot.sa && bySlot.sb && bySlot.sa !== bySlot.sb, `different slots: ${JSON.stringify(bySlot)}`);

  assert.deepEqual(await listNames(a1), ['sa']);
  assert.deepEqual(await listNames(b), ['sb']);
  assert.equal((await sexecErr(a1, 'sb', 'print(x)')).code, 'session_not_found', "A cannot use B's session");
  assert.equal((await sessionErr(b, { action: 'get', name: 'sa' })).code, 'session_not_found');
  // Names are per server: B may have its own "sa".
  await createSession(b, 'python', { name: 'sa' });
  await sessionOk(b, { action: 'destroy', name: 'sa' });

  await killServer(a1);
  const a2 = await st.start(PYTHON);
  await waitListed(a2, ['sa']);
  assert.equal((await printIn(a2, 'sa', 'x')).stdout, 'A\n');
  // B's session was never touched, and is never listed by A's successor.
  assert.equal((await printIn(b, 'sb', 'x')).stdout, 'B\n');
  // Nothing more can come: a server adopts its slot's containers from one
  // listing, all in one go, and a2 listed 'sa' (waitListed) only once that
  // was done.
  assert.deepEqual(await listNames(a2), ['sa']);
  assert.deepEqual(await listNames(b), ['sb']);
  assert.equal((await sexecErr(a2, 'sb', 'print(x)')).code, 'session_not_found');
  assert.deepEqual(stateSlots(st.dir).sort(), slots, 'no new slot: the restarted server took its predecessor\'s');
  const after = Object.fromEntries(
    (await sessionContainers({ dir: st.dir })).map((c) => [c.session, c.slot]),
  );
  assert.deepEqual(after, bySlot, 'both containers are still there, in their slots');
});

e2e('a server started in another working directory does not adopt the sessions', { timeoutMs: 180_000 }, async (h) => {
  const st = withStateDir(h);
  const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-sandbox-e2e-cwd-'));
  h.t.after(() => fs.rmSync(elsewhere, { recursive: true, force: true }));
  const s1 = await st.start(PYTHON);
  await createSession(s1, 'python', { name: 'here' });
  await sexecOk(s1, 'here', 'x = 42');
  const [slot] = stateSlots(st.dir);
  await s1.close();

  // Same state directory, another project: another slot, nothing adopted.
  const other = await h.start({ env: st.env(PYTHON), cwd: elsewhere });
  // Its adoption is over once it saved its state: the new slot's file.
  const newSlot = await waitFor(() => stateSlots(st.dir).find((x) => x !== slot), { what: 'a second slot' });
  await waitFor(() => fs.existsSync(path.join(st.dir, `${newSlot}.json`)), {
    timeoutMs: 30_000,
    what: `${newSlot}.json, written once the server has adopted what its slot had`,
  });
  assert.deepEqual(await listNames(other), []);
  assert.equal((await sexecErr(other, 'here', 'print(x)')).code, 'session_not_found');
  const slots = stateSlots(st.dir);
  assert.equal(slots.length, 2, `a second slot: ${JSON.stringify(slots)}`);
  assert.notEqual(slots.find((x) => x !== slot).split('-')[0], slot.split('-')[0], 'another slot key');
  const left = await sessionContainers({ dir: st.dir });
  assert.deepEqual(left.map((c) => [c.session, c.slot]), [['here', slot]], 'the session container is untouched');

  // Back in the original directory, it is found again.
  const s2 = await st.start(PYTHON);
  await waitListed(s2, ['here']);
  assert.equal((await printIn(s2, 'here', 'x')).stdout, '42\n');
});

/** A plugin directory holding only the built-in python plugin (a copy: links are refused). */
function onlyPython(h) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-sandbox-e2e-plugins-'));
  h.t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.copyFileSync(path.join(ROOT, 'build/lib/mcp-sandbox/plugins/python.so'), path.join(dir, 'python.so'));
  return { SANDBOX_SERVER_BUILTIN_PLUGINS: 'no', SANDBOX_SERVER_PLUGINS_DIR: dir };
}

// A contributor restarts the server without a plugin (theirs, not built,
// or left out): that language's sessions are not this server's to run nor
// to remove. They stay as they are, answer session_unavailable (not
// session_not_found), count against max_sessions, and the next server with
// the plugin adopts them with their state.
e2e('a restart without a language\'s plugin keeps its sessions; the plugin back, they are adopted with their state', { timeoutMs: 180_000 }, async (h) => {
  const st = withStateDir(h);
  const NO_POOL = { SANDBOX_POOL_SIZE: '0' };
  const s1 = await st.start(NO_POOL);
  await createSession(s1, 'bash', { name: 'keep', ttl: 600 });
  await createSession(s1, 'bash', { name: 'drop' });
  await createSession(s1, 'bash', { name: 'brief', ttl: 3 });
  await sexecOk(s1, 'keep', 'export KEPT=42; echo "file kept" > /work/f.txt');
  const before = (await sessionOk(s1, { action: 'get', name: 'keep' })).session;
  const c1 = await sessionContainers({ dir: st.dir });
  assert.deepEqual(c1.map((c) => c.session).sort(), ['brief', 'drop', 'keep']);
  await s1.close();

  const s2 = await st.start({ ...NO_POOL, ...onlyPython(h), SANDBOX_SESSIONS_MAX_SESSIONS: '3' });
  // Their clocks run on: 'brief' (3 s idle) expires here like any session.
  await waitFor(async () => !(await sessionContainers({ dir: st.dir })).some((c) => c.session === 'brief'), {
    timeoutMs: 30_000,
    what: 'the unavailable session past its TTL removed',
  });
  assert.equal((await sessionErr(s2, { action: 'get', name: 'brief' })).code, 'session_not_found');
  // Adoption is over once a listing answers; the unavailable ones are in none.
  assert.deepEqual(await listNames(s2), []);
  const e = await sessionErr(s2, { action: 'get', name: 'keep' });
  assert.equal(e.code, 'session_unavailable', e.message);
  assert.match(e.message, /bash plugin/);
  const x = await sexecErr(s2, 'keep', 'echo $KEPT');
  assert.equal(x.code, 'session_unavailable', x.message);
  assert.equal((await sessionErr(s2, { action: 'create', language: 'python', name: 'keep' })).code, 'session_exists');
  assert.match(s2.stderr, /session keep \(container [0-9a-f]{12}\) is a bash session and the bash plugin is not loaded/);
  // They count against max_sessions (3): their containers run.
  await createSession(s2, 'python', { name: 'py' });
  assert.equal((await sessionErr(s2, { action: 'create', language: 'python' })).code, 'max_sessions');
  await sessionOk(s2, { action: 'destroy', name: 'py' });
  // One may be destroyed without its plugin: its container goes.
  await sessionOk(s2, { action: 'destroy', name: 'drop' });
  assert.equal((await sessionErr(s2, { action: 'get', name: 'drop' })).code, 'session_not_found');
  await waitFor(async () => !(await sessionContainers({ dir: st.dir })).some((c) => c.session === 'drop' || c.session === 'py'), {
    timeoutMs: 20_000,
    what: 'the destroyed sessions\' containers to be gone',
  });
  const c2 = await sessionContainers({ dir: st.dir });
  assert.deepEqual(c2.map((c) => [c.session, c.id]), [['keep', c1.find((c) => c.session === 'keep').id]], 'keep\'s container is untouched');
  await s2.close();
  const saved = JSON.parse(fs.readFileSync(path.join(st.dir, `${stateSlots(st.dir)[0]}.json`), 'utf8'));
  assert.deepEqual(saved.sessions.map((x) => x.name), ['keep'], 'its entry is kept in the state file');

  const s3 = await st.start(NO_POOL);
  await waitListed(s3, ['keep']);
  const r = await sexecOk(s3, 'keep', 'echo "$KEPT $(cat /work/f.txt)"');
  assert.equal(r.stdout, '42 file kept\n');
  assert.equal(r.freshState, false, 'the same interpreter');
  const after = (await sessionOk(s3, { action: 'get', name: 'keep' })).session;
  assert.equal(after.ttlSeconds, 600, 'TTL remembered');
  assert.equal(after.created, before.created, 'creation time remembered');
  assert.equal(after.executions, before.executions + 1, 'execution count remembered');
});

// Notes in the session whether it was interrupted.
const ORPHAN = 'import time\ntry:\n    print("started", flush=True)\n    time.sleep(60)\nexcept KeyboardInterrupt:\n    interrupted = True\n    raise';

e2e('kill -9 during a call: the next server stops the orphaned call and the session works at once', { timeoutMs: 180_000 }, async (h) => {
  const st = withStateDir(h);
  const s1 = await st.start(PYTHON);
  await createSession(s1, 'python', { name: 'mid' });
  await sexecOk(s1, 'mid', 'x = 42');
  // In flight when the server dies: its client never gets an answer.
  const out = progressText();
  const orphan = s1.client
    .callTool({ name: 'sandbox_execute', arguments: { session: 'mid', code: ORPHAN } }, undefined, {
      timeout: 120_000,
      onprogress: out.onprogress,
    })
    .then(
      () => 'answered',
      () => 'failed',
    );
  await out.until(/^started$/m, 'the orphan-to-be printing "started"', { timeoutMs: 60_000 });
  await killServer(s1);
  assert.equal(await orphan, 'failed', 'the call in flight is lost with its server');

  const s2 = await st.start(PYTHON);
  await waitListed(s2, ['mid']);
  // The orphaned sleep(60) did not run on: it was interrupted (had it
  // run to its end, `interrupted` would not exist).
  const r = await printIn(s2, 'mid', 'x, interrupted');
  assert.equal(r.stdout, '42 True\n');
  assert.equal(r.freshState, false, 'the interrupted sleep kept the interpreter');
});

e2e('a session whose TTL passed while no server ran is removed by the server that adopts it', { timeoutMs: 180_000 }, async (h) => {
  const st = withStateDir(h);
  const s1 = await st.start(PYTHON);
  await createSession(s1, 'python', { name: 'stale', ttl: 2 });
  await createSession(s1, 'python', { name: 'fresh', ttl: 600 });
  const [slot] = stateSlots(st.dir);
  await s1.close();
  // The event is the clock passing the stale session's expiry, as the
  // server saved it (last use + TTL), while no server runs.
  const saved = JSON.parse(fs.readFileSync(path.join(st.dir, `${slot}.json`), 'utf8'));
  const e = saved.sessions.find((x) => x.name === 'stale');
  assert.ok(e, `the state file names the stale session: ${JSON.stringify(saved)}`);
  const expires = e.lastUsed + e.ttl * 1000;
  await waitFor(() => Date.now() > expires, {
    timeoutMs: 30_000,
    what: `the stale session's expiry (${new Date(expires).toISOString()}) to pass`,
  });
  const s2 = await st.start(PYTHON);
  const gone = await eventually(
    async () => JSON.stringify(await listNames(s2)) === JSON.stringify(['fresh']),
    { timeoutMs: 20_000, intervalMs: 250 },
  );
  assert.ok(gone, `only the fresh session is left: ${JSON.stringify(await listNames(s2))}`);
  assert.equal((await sessionErr(s2, { action: 'get', name: 'stale' })).code, 'session_not_found');
  const removed = await eventually(
    async () => (await sessionContainers({ dir: st.dir })).map((c) => c.session).join() === 'fresh',
    { timeoutMs: 20_000 },
  );
  assert.ok(removed, `the stale container is removed: ${JSON.stringify(await sessionContainers({ dir: st.dir }))}`);
});

// Calls sent the moment a restarted server starts, before it has listed
// its predecessor's sessions, wait for the re-adoption instead of being
// told session_not_found; create counts the adopted sessions against the
// limit; a destroy in that window removes the container. Twenty restarts
// in a row, each after a kill -9, with the predecessor at the limit.
e2e('calls right after a kill -9 restart wait for the re-adoption: 20 rounds in a row at the session limit', { timeoutMs: 300_000 }, async (h) => {
  const st = withStateDir(h);
  const env = { SANDBOX_POOL_SIZE: '0', SANDBOX_SESSIONS_MAX_SESSIONS: '4' };
  const s0 = await st.start(env);
  await createSession(s0, 'python', { name: 'p' });
  await createSession(s0, 'bash', { name: 'b' });
  await createSession(s0, 'javascript', { name: 'j' });
  await createSession(s0, 'bash', { name: 'q' });
  await sexecOk(s0, 'p', 'n = 0\nopen("/work/mark.txt", "w").write("marked")');
  let prev = s0;
  for (let round = 1; round <= 20; round++) {
    await killServer(prev);
    const s = await st.start(env);
    prev = s;
    // All at once, without waiting for anything.
    const [p, b, extra, nope, destroyed, j, mark] = await Promise.all([
      sexec(s, 'p', 'n += 1\nprint(n)'),
      sessionCall(s, { action: 'get', name: 'b' }),
      sessionCall(s, { action: 'create', language: 'python', name: 'extra' }),
      sessionExecCall(s, 'nope', 'print(1)'),
      sessionCall(s, { action: 'destroy', name: 'q' }),
      sexec(s, 'j', 'console.log("j")'),
      s.client.readResource({ uri: 'sandbox://session/p/mark.txt' }),
    ]);
    const where = `round ${round}`;
    assert.equal(p.stdout, `${round}\n`, `${where}: p kept its state: ${JSON.stringify(p)}`);
    assert.equal(p.stateKept, true, where);
    assert.equal(b.isError ?? false, false, `${where}: get b: ${b.content?.[0]?.text}`);
    assert.equal(toolError(extra).code, 'max_sessions', `${where}: the adopted sessions count against the limit`);
    assert.equal(toolError(nope).code, 'session_not_found', where);
    assert.equal(destroyed.isError ?? false, false, `${where}: destroy q: ${destroyed.content?.[0]?.text}`);
    assert.equal(j.stdout, 'j\n', `${where}: ${JSON.stringify(j)}`);
    assert.equal(mark.contents[0].text, 'marked', `${where}: a session's file read as a resource`);
    // The destroyed session's container is gone; a new q takes its place.
    await waitFor(async () => !(await sessionContainers({ dir: st.dir })).some((c) => c.session === 'q'), { timeoutMs: 10_000, what: `${where}: q's container removed` });
    await createSession(s, 'bash', { name: 'q' });
    assert.deepEqual((await sessionContainers({ dir: st.dir })).map((c) => c.session).sort(), ['b', 'j', 'p', 'q'], where);
  }
});
