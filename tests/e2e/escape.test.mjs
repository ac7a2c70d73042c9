// Hostile code: each test tries to break one claim of the security model
// (docs/architecture.md, README "Security model") and checks that the
// attempt fails and the server keeps serving.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { BIN, e2e, runResult } from './lib/server.mjs';
import { withStateDir } from './lib/sessions.mjs';

const ONE = { SANDBOX_POOL_SIZE: '1', SANDBOX_POOL_MAX_CONTAINERS: '2' };

// The seccomp floor has its own file: seccomp.test.mjs.

e2e('user code cannot signal, trace or inspect the agent (PID 1)', {}, async (h) => {
  const s = await h.start({ env: { ...ONE, SANDBOX_PYTHON_POOL_SIZE: '0' } });
  const r = await s.execute(
    'bash',
    [
      'kill -9 1 2>/dev/null; echo "kill=$?"',
      'kill -STOP 1 2>/dev/null; echo "stop=$?"',
      'cat /proc/1/environ >/dev/null 2>&1; echo "environ=$?"',
      'ls /proc/1/fd >/dev/null 2>&1; echo "fd=$?"',
      'cat /proc/1/mem >/dev/null 2>&1; echo "mem=$?"',
      'echo x > /opt/sbx/agent 2>/dev/null; echo "overwrite=$?"',
    ].join('\n'),
  );
  assert.equal(r.exitCode, 0, r.stderr);
  for (const k of ['kill', 'stop', 'environ', 'fd', 'mem', 'overwrite'])
    assert.match(r.stdout, new RegExp(`^${k}=[1-9]`, 'm'), `${k} should fail:\n${r.stdout}`);
  // The agent is alive and answering.
  const again = await s.execute('bash', 'echo still here');
  assert.equal(again.stdout, 'still here\n');
});

e2e('a fork bomb hits the pids limit and the server keeps serving', { timeoutMs: 90_000 }, async (h) => {
  const s = await h.start({ env: { ...ONE, SANDBOX_BASH_POOL_SIZE: '0', SANDBOX_PYTHON_PIDS: '64' } });
  const code = `
import os, errno
n = 0
try:
    while n < 10000:
        if os.fork() == 0:
            import time; time.sleep(30); os._exit(0)
        n += 1
except OSError as e:
    print("stopped after", n, "forks:", errno.errorcode[e.errno])
`;
  const r = await s.execute('python', code, { timeout: 20_000 });
  assert.match(r.stdout, /^stopped after \d+ forks: EAGAIN$/m, JSON.stringify(r));
  const n = Number(r.stdout.match(/after (\d+)/)[1]);
  assert.ok(n < 64, `at most the pids limit (64) of processes, got ${n}`);
  // The result names the limit and its setting, though the program did not.
  assert.deepEqual(r.limitsHit, ['pids'], JSON.stringify(r));
  assert.match(r.message, /the limit of 64 processes and threads was reached; raise it with pids in \[limits\] or \[python\] of sandbox\.ini \(SANDBOX_PYTHON_PIDS\)/);
  const after = await s.execute('python', 'print("ok")');
  assert.equal(after.stdout, 'ok\n');
});

e2e('exceeding the memory limit kills the program, not the server', { timeoutMs: 90_000 }, async (h) => {
  // Its own state directory: the session's container goes with it.
  const s = await withStateDir(h).start({ ...ONE, SANDBOX_BASH_POOL_SIZE: '0', SANDBOX_PYTHON_MEMORY_MB: '128', SANDBOX_PYTHON_WORK_MB: '32', SANDBOX_PYTHON_TMP_MB: '16', SANDBOX_LIMITS_SHM_MB: '16' });
  const r = await s.execute('python', 'x = bytearray(400 * 1024 * 1024)\nprint("allocated")', { timeout: 20_000 });
  assert.notEqual(r.stdout, 'allocated\n');
  assert.ok(r.exitCode !== 0, JSON.stringify(r));
  // The OOM killer: the result says so and names the limit.
  assert.equal(r.signal, 'SIGKILL', JSON.stringify(r));
  assert.equal(r.oomKilled, true, JSON.stringify(r));
  assert.match(r.message, /more than the 128 MiB memory limit/);
  assert.match(r.message, /SANDBOX_PYTHON_MEMORY_MB/);
  assert.deepEqual(r.limitsHit, ['memory']);
  const after = await s.execute('python', 'print("ok")');
  assert.equal(after.stdout, 'ok\n');
  assert.equal(after.oomKilled, false);
  assert.equal(after.limitsHit, undefined);
  assert.equal(after.message, undefined);
  // In a session the interpreter is what the kernel kills: the call says
  // so too, and the next call starts a fresh one.
  const created = await s.client.callTool({ name: 'sandbox_session', arguments: { action: 'create', language: 'python', name: 'oom' } });
  assert.equal(created.isError ?? false, false, created.content?.[0]?.text);
  const killed = runResult(await s.call({ session: 'oom', code: 'x = bytearray(400 * 1024 * 1024)' }));
  assert.equal(killed.oomKilled, true, JSON.stringify(killed));
  assert.match(killed.message, /more than the 128 MiB memory limit/);
  assert.match(killed.message, /interpreter went with it, so its variables, imports and definitions are gone/);
  assert.match(killed.message, /SANDBOX_PYTHON_MEMORY_MB/);
  assert.equal(killed.stateKept, false);
  const next = runResult(await s.call({ session: 'oom', code: 'print(1 + 1)' }));
  assert.equal(next.stdout, '2\n');
  assert.equal(next.oomKilled, false);
  // Not "state kept" and "fresh state" at once: the state was lost before.
  assert.deepEqual([next.freshState, next.stateKept], [true, false], JSON.stringify(next));
  assert.match(next.message, /new interpreter: the variables, imports and definitions of earlier calls are gone/);
  const then = runResult(await s.call({ session: 'oom', code: 'y = 1\nprint(y)' }));
  assert.deepEqual([then.freshState, then.stateKept, then.message], [false, true, undefined]);
});

e2e('tmpfs sizes that exceed the memory limit are refused when the configuration loads', { docker: false }, async () => {
  const r = spawnSync(BIN, ['check-config'], {
    encoding: 'utf8',
    env: { ...process.env, SANDBOX_PYTHON_MEMORY_MB: '128' },
  });
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /\[python\] work_mb 256 \+ tmp_mb 64 \+ shm_mb 64 = 384 MiB exceed memory_mb 128/);
  const ok = spawnSync(BIN, ['check-config'], { encoding: 'utf8', env: { ...process.env, SANDBOX_PYTHON_MEMORY_MB: '384' } });
  assert.equal(ok.status, 0, ok.stderr);
});

e2e('file size and /work size limits hold', { timeoutMs: 60_000 }, async (h) => {
  const s = await h.start({
    env: { ...ONE, SANDBOX_PYTHON_POOL_SIZE: '0', SANDBOX_BASH_FSIZE_MB: '1', SANDBOX_BASH_WORK_MB: '8' },
  });
  const big = await s.execute('bash', 'head -c 2097152 /dev/zero > /work/big 2>&1; echo "rc=$?"; stat -c %s /work/big');
  assert.match(big.stdout, /^rc=[1-9]/m, big.stdout);
  assert.match(big.stdout, /^1048576$/m, 'the file stops at the 1 MiB fsize limit');
  const full = await s.execute(
    'bash',
    'for i in $(seq 1 12); do head -c 1000000 /dev/zero > /work/f$i 2>/dev/null || { echo "full at $i"; break; }; done; df -m /work | tail -1',
  );
  assert.match(full.stdout, /^full at \d+$/m, full.stdout);
});

// The agent's relay socket (agent/relay.c) is how a restarted server
// reaches a session's agent; user code shares the container's network
// namespace, so it can reach the abstract socket. It must be refused, and
// above all not become the agent's connection (which would cut off the
// real host and hand the attacker the protocol).
e2e('user code cannot speak to the agent through its relay socket', { timeoutMs: 90_000 }, async (h) => {
  const s = await h.start({ env: { ...ONE, SANDBOX_BASH_POOL_SIZE: '0' } });
  const created = await s.client.callTool({
    name: 'sandbox_session',
    arguments: { action: 'create', name: 'victim', language: 'python' },
  });
  assert.notEqual(created.isError, true, JSON.stringify(created));
  try {
    const run = async (code) => {
      const r = await s.client.callTool({ name: 'sandbox_execute', arguments: { session: 'victim', code } });
      assert.notEqual(r.isError, true, JSON.stringify(r));
      return runResult(r);
    };
    assert.equal((await run('secret = 42')).exitCode, 0);
    const attack = await run(`
import socket, struct, subprocess
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    s.connect("\\0mcp-sandbox-agent")
    s.sendall(struct.pack(">IBI", 5, 1, 7))   # AP_HELLO, id 7
    s.settimeout(5)
    print("reply", len(s.recv(4096)))
except OSError as e:
    print("refused", e.errno)
try:
    r = subprocess.run(["/opt/sbx/agent", "relay"], input=struct.pack(">IBI", 5, 1, 8),
                       capture_output=True, timeout=10)
    print("relay", len(r.stdout), r.returncode)
except PermissionError:
    print("relay denied")
`);
    assert.equal(attack.exitCode, 0, attack.stderr);
    // Either refused outright or closed without a single byte back.
    assert.match(attack.stdout, /^(reply 0|refused \d+)\n/m, attack.stdout);
    // The agent binary is root's alone (mode 0700): not even run.
    assert.match(attack.stdout, /^relay denied$/m, attack.stdout);
    // The real host still holds the connection, and the state is there.
    const after = await run('print(secret)');
    assert.equal(after.stdout, '42\n');
    assert.equal(after.stateKept, true);
  } finally {
    await s.client.callTool({ name: 'sandbox_session', arguments: { action: 'destroy', name: 'victim' } });
  }
});
