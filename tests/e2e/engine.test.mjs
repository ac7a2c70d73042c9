// The engine going away while the server runs (docs/security.md): calls
// during the outage fail at once with docker_unavailable; the pool comes
// back by itself; a session whose container survived is kept (with its
// state), one whose container died is reported session_lost; the server
// is never restarted.
//
// Two outages: the connection to the engine cut (a TCP relay to this
// machine's engine, made and closed by the test: the containers live on),
// and the engine of the test run stopped and started again (its
// containers die with it).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { ROOT, e2e, runResult, toolError } from './lib/server.mjs';
import { dockerReachable } from './lib/docker.mjs';
import { eventually } from './lib/wait.mjs';

/** A TCP relay on 127.0.0.1 to the engine's unix socket, that the test can cut and restore. */
function engineRelay(port = 0) {
  const socks = new Set();
  const server = net.createServer((c) => {
    const u = net.connect('/var/run/docker.sock');
    socks.add(c);
    socks.add(u);
    c.pipe(u);
    u.pipe(c);
    const end = () => { c.destroy(); u.destroy(); socks.delete(c); socks.delete(u); };
    c.on('error', end); u.on('error', end); c.on('close', end); u.on('close', end);
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve({
    port: server.address().port,
    cut: () => new Promise((r) => { for (const s of socks) s.destroy(); server.close(() => r()); }),
  })));
}

async function sessionCall(s, args, timeout = 60_000) {
  return s.client.callTool({ name: 'sandbox_execute', arguments: args }, undefined, { timeout });
}

// "At once": a call during the outage must be answered within this
// deadline (a hung call would wait for the engine's own timeouts).
const AT_ONCE = 5000;

e2e('the connection to the engine cut and restored: calls fail at once, the pool and the session come back with their state', { timeoutMs: 180_000 }, async (h) => {
  let relay = await engineRelay();
  const port = relay.port;
  h.t.after(() => relay.cut());
  const s = await h.start({ env: { DOCKER_HOST: `tcp://127.0.0.1:${port}`, SANDBOX_DOCKER_ALLOW_PLAINTEXT: 'yes', SANDBOX_POOL_SIZE: '0', SANDBOX_BASH_POOL_SIZE: '1' } });
  assert.equal((await s.execute('bash', 'echo before')).stdout, 'before\n');
  const created = await s.client.callTool({ name: 'sandbox_session', arguments: { action: 'create', language: 'bash', name: 'kept' } });
  assert.equal(created.isError ?? false, false, created.content?.[0]?.text);
  assert.equal(runResult(await sessionCall(s, { session: 'kept', code: 'X=state; echo $X' })).stdout, 'state\n');

  await relay.cut();
  const oneOff = await s.call({ language: 'bash', code: 'echo during' }, { requestTimeoutMs: AT_ONCE });
  assert.equal(toolError(oneOff).code, 'docker_unavailable', toolError(oneOff).message);
  // The session notices, finds the engine away, and says so at once.
  const during = await eventually(async () => {
    const r = await sessionCall(s, { session: 'kept', code: 'echo $X' }, AT_ONCE);
    return r.isError && toolError(r).code === 'docker_unavailable' ? r : null;
  }, { timeoutMs: 20_000 });
  assert.ok(during, 'a session call during the outage answers docker_unavailable');

  relay = await engineRelay(port);
  // The session reconnects through the relay, its shell variables kept.
  const back = await eventually(async () => {
    const r = await sessionCall(s, { session: 'kept', code: 'echo $X' });
    return r.isError ? null : runResult(r);
  }, { timeoutMs: 30_000 });
  assert.ok(back, 'the session answers again');
  assert.equal(back.stdout, 'state\n');
  assert.equal(back.stateKept, true);
  const after = await eventually(async () => {
    const r = await s.call({ language: 'bash', code: 'echo after' });
    return r.isError ? null : runResult(r);
  }, { timeoutMs: 30_000 });
  assert.equal(after?.stdout, 'after\n', 'one-off calls work again');
  await s.client.callTool({ name: 'sandbox_session', arguments: { action: 'destroy', name: 'kept' } });
});

e2e('the engine stopped and started again: calls fail at once, the pool comes back, the session whose container died is session_lost', { timeoutMs: 240_000 }, async (h) => {
  assert.ok((await dockerReachable()).ok);
  const s = await h.start({ env: { SANDBOX_POOL_SIZE: '0', SANDBOX_BASH_POOL_SIZE: '1' } });
  assert.equal((await s.execute('bash', 'echo before')).stdout, 'before\n');
  const created = await s.client.callTool({ name: 'sandbox_session', arguments: { action: 'create', language: 'bash', name: 'dies' } });
  assert.equal(created.isError ?? false, false, created.content?.[0]?.text);

  // Stop the engine of this test run (its containers die with it).
  const pid = Number(fs.readFileSync('/var/run/docker.pid', 'utf8'));
  let started = false;
  h.t.after(() => {
    if (!started) execFileSync('bash', [path.join(ROOT, 'scripts/docker-up.sh')], { stdio: 'ignore' });
  });
  process.kill(pid, 'SIGTERM');
  await eventually(() => { try { process.kill(pid, 0); return false; } catch { return true; } }, { timeoutMs: 60_000 });

  const oneOff = await s.call({ language: 'bash', code: 'echo during' }, { requestTimeoutMs: AT_ONCE });
  assert.equal(toolError(oneOff).code, 'docker_unavailable', toolError(oneOff).message);
  const during = await sessionCall(s, { session: 'dies', code: 'echo x' }, AT_ONCE);
  // The engine stops its containers before it goes: the session may know
  // already that its container died.
  assert.ok(['docker_unavailable', 'session_lost'].includes(toolError(during).code), toolError(during).message);

  execFileSync('bash', [path.join(ROOT, 'scripts/docker-up.sh')], { stdio: 'ignore' });
  started = true;
  // The session's container died with the engine: lost, not "not found".
  const lost = await eventually(async () => {
    const r = await sessionCall(s, { session: 'dies', code: 'echo x' });
    return r.isError && toolError(r).code === 'session_lost' ? toolError(r) : null;
  }, { timeoutMs: 60_000 });
  assert.ok(lost, 'the session is reported lost');
  assert.match(lost.message, /was lost/);
  const after = await eventually(async () => {
    const r = await s.call({ language: 'bash', code: 'echo after' });
    return r.isError ? null : runResult(r);
  }, { timeoutMs: 60_000 });
  assert.equal(after?.stdout, 'after\n', 'the pool came back without a restart of the server');
});
