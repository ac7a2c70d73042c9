// The adversarial suite in one place (issue 12, docs/security.md): each
// case tries one attack from inside a sandbox, asserts that the sandbox
// contains it and that the server keeps serving. scripts/test.sh runs this
// file, escape, hardening, limits and seccomp a second time with the code
// blocklist off (SBX_E2E_BLOCKLIST=off): containment never depends on it.
// With it on (warn, the default) the code still runs; the result may list
// what the blocklist saw, which changes nothing here.
import assert from 'node:assert/strict';
import { bridgeGateway } from './lib/docker.mjs';
import { e2e, runResult, toolError } from './lib/server.mjs';
import { fop } from './lib/files.mjs';
import { withStateDir } from './lib/sessions.mjs';

const ENV = { SANDBOX_POOL_SIZE: '1', SANDBOX_POOL_MAX_CONTAINERS: '3' };

async function alive(s) {
  const r = await s.execute('bash', 'echo alive');
  assert.equal(r.stdout, 'alive\n', 'the server and the pool serve the next call');
}

e2e('adversarial: bash fork bomb, memory bomb and CPU spin are contained by the pids, memory and time limits', { timeoutMs: 120_000 }, async (h) => {
  const s = await h.start({ env: { ...ENV, SANDBOX_BASH_PIDS: '64', SANDBOX_PYTHON_MEMORY_MB: '128', SANDBOX_PYTHON_WORK_MB: '32', SANDBOX_PYTHON_TMP_MB: '16', SANDBOX_LIMITS_SHM_MB: '16' } });
  // The script lives on until the bomb has hit the limit (it reads the
  // bomb's complaint with builtins only: a fork may fail by then), with
  // the call's timeout as the deadline; its end ends every process left.
  const bomb = await s.execute('bash', [
    'exec 3>&2 2>/tmp/bomb.err',
    ':(){ :|:& };:',
    'until [[ $x == *"Resource temporarily unavailable"* ]]; do read -r -d "" x </tmp/bomb.err; done',
    'printf "%s" "$x" >&3',
  ].join('\n'), { timeout: 20_000 });
  assert.match(bomb.stderr, /fork: .*Resource temporarily unavailable/, JSON.stringify(bomb).slice(0, 500));
  await alive(s);
  const mem = await s.execute('python', 'x = []\nwhile True:\n    x.append(bytearray(8 << 20))', { timeout: 20_000 });
  assert.ok(mem.oomKilled || /MemoryError/.test(mem.stderr), JSON.stringify(mem).slice(0, 500));
  assert.notEqual(mem.exitCode, 0);
  const spin = await s.execute('python', 'while True:\n    pass', { timeout: 1000 });
  assert.equal(spin.timedOut, true);
  assert.equal(spin.signal, 'SIGKILL');
  await alive(s);
});

e2e('adversarial: filling /work and /tmp ends in "No space left on device", and an output flood is capped', { timeoutMs: 120_000 }, async (h) => {
  const s = await h.start({ env: { ...ENV, SANDBOX_BASH_WORK_MB: '64', SANDBOX_BASH_TMP_MB: '32', SANDBOX_BASH_FSIZE_MB: '1024' } });
  const fill = await s.execute('bash', [
    // dd's status is its own: a grep -m1 behind a pipe could end first
    // and kill dd's last line with SIGPIPE (141).
    'out=$(dd if=/dev/zero of=/work/fill bs=1M count=200 2>&1); rc=$?; printf "%s\\n" "$out" | grep -m1 -o "No space left on device"; echo "work=$rc"',
    'out=$(dd if=/dev/zero of=/tmp/fill bs=1M count=200 2>&1); rc=$?; printf "%s\\n" "$out" | grep -m1 -o "No space left on device"; echo "tmp=$rc"',
  ].join('\n'), { timeout: 20_000 });
  assert.equal(fill.stdout, 'No space left on device\nwork=1\nNo space left on device\ntmp=1\n');
  assert.equal(fill.oomKilled, false);
  // Both full when the call ended: each named, with its size and setting.
  assert.deepEqual(fill.limitsHit, ['work', 'tmp'], JSON.stringify(fill));
  assert.match(fill.message, /\/work is full \(64 MiB\).*work_mb in \[limits\] or \[bash\] of sandbox\.ini \(SANDBOX_BASH_WORK_MB\)/);
  assert.match(fill.message, /\/tmp is full \(32 MiB\).*SANDBOX_BASH_TMP_MB/);

  const flood = await s.execute('bash', 'yes "$(printf %0100d 0)"', { timeout: 2000 });
  assert.equal(flood.timedOut, true);
  assert.equal(flood.stdoutTruncated, true);
  assert.ok(flood.stdout.length < 300_000, `stdout is capped: ${flood.stdout.length} chars`);
  await alive(s);
});

e2e('adversarial: the file size and open-file limits say their names and settings', { timeoutMs: 120_000 }, async (h) => {
  const s = await h.start({ env: { ...ENV, SANDBOX_PYTHON_FSIZE_MB: '1', SANDBOX_PYTHON_NOFILE: '32' } });
  const big = await s.execute('python', "open('/work/f', 'wb').write(b'x' * (2 << 20))", { timeout: 20_000 });
  assert.match(big.stderr, /File too large/, JSON.stringify(big).slice(0, 500));
  assert.deepEqual(big.limitsHit, ['fsize']);
  assert.match(big.message, /the file size limit \(1 MiB\); raise it with fsize_mb in \[limits\] or \[python\] of sandbox\.ini \(SANDBOX_PYTHON_FSIZE_MB\)/);
  const fds = await s.execute('python', "fs = [open('/work/g%d' % i, 'w') for i in range(100)]", { timeout: 20_000 });
  assert.match(fds.stderr, /Too many open files/, JSON.stringify(fds).slice(0, 500));
  assert.deepEqual(fds.limitsHit, ['nofile']);
  assert.match(fds.message, /the limit is 32 open files\); close files, or raise it with nofile .*SANDBOX_PYTHON_NOFILE/);
  await alive(s);
});

e2e('adversarial: a double-forked daemon that ignores SIGTERM does not outlive its call', { timeoutMs: 120_000 }, async (h) => {
  const s = await withStateDir(h).start(ENV); // the session goes with it
  const created = await s.client.callTool({ name: 'sandbox_session', arguments: { action: 'create', language: 'python', name: 'adv' } });
  assert.equal(created.isError ?? false, false, created.content?.[0]?.text);
  const daemon = `
import os, signal, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        while True:
            time.sleep(0.05)
    os._exit(0)
print("parent done")
`;
  const first = runResult(await s.call({ language: 'python', session: 'adv', code: daemon }));
  assert.equal(first.stdout, 'parent done\n');
  const ps = runResult(await s.call({ language: 'python', session: 'adv', code: 'import os\nprint(sorted(int(p) for p in os.listdir("/proc") if p.isdigit() and open(f"/proc/{p}/cmdline","rb").read().count(b"sleep") + open(f"/proc/{p}/cmdline","rb").read().count(b"-c") == 0 and p != str(os.getpid()) and os.getppid() != int(p) and int(p) != 1 and b"repl" not in open(f"/proc/{p}/cmdline","rb").read()))' }));
  assert.equal(ps.stdout, '[]\n', `no process of the first call is left: ${ps.stdout}`);
  await alive(s);
});

e2e('adversarial: the agent (PID 1) and the host stay out of reach: /proc/1, mountinfo, namespaces, mounts, raw and vsock sockets', { timeoutMs: 120_000 }, async (h) => {
  const s = await h.start({ env: ENV });
  const probe = await s.execute('bash', [
    'for f in /proc/1/environ /proc/1/mem /proc/1/maps /proc/1/root/opt/sbx/agent; do head -c1 "$f" >/dev/null 2>&1; echo "$f=$?"; done',
    'unshare -Ur id >/dev/null 2>&1; echo "unshare=$?"',
    'mkdir -p /tmp/cg; mount -t cgroup -o memory cgroup /tmp/cg >/dev/null 2>&1; echo "mount=$?"',
    'echo "mounts=[$(awk \'{print $5}\' /proc/self/mountinfo | grep -E "^/(var/lib/docker|home|boot|root|run/docker)" | tr "\\n" " ")]"',
  ].join('\n'));
  for (const k of ['/proc/1/environ', '/proc/1/mem', '/proc/1/maps', '/proc/1/root/opt/sbx/agent', 'unshare', 'mount'])
    assert.match(probe.stdout, new RegExp(`^${k}=[1-9]`, 'm'), `${k} must fail:\n${probe.stdout}`);
  assert.match(probe.stdout, /^mounts=\[\]$/m, 'no host mount point is visible');
  const sockets = await s.execute('python', `
import errno, socket
for name, fam, kind in (("raw", socket.AF_INET, socket.SOCK_RAW), ("packet", socket.AF_PACKET, socket.SOCK_RAW), ("vsock", socket.AF_VSOCK, socket.SOCK_STREAM), ("netlink", socket.AF_NETLINK, socket.SOCK_RAW)):
    try:
        socket.socket(fam, kind, 1 if name == "raw" else 0)
        print(name, "OPEN")
    except OSError as e:
        print(name, errno.errorcode.get(e.errno, e.errno))
`);
  assert.equal(sockets.exitCode, 0, sockets.stderr);
  for (const line of sockets.stdout.trim().split('\n')) assert.doesNotMatch(line, /OPEN/, line);
  await alive(s);
});

e2e('adversarial: connections to the sandbox loopback and to the engine ports on the bridge gateway fail', { timeoutMs: 120_000 }, async (h) => {
  const s = await h.start({ env: ENV });
  const gw = await bridgeGateway();
  const r = await s.execute('python', `
import errno, socket
for host in ("127.0.0.1", "${gw}"):
    for port in (22, 80, 2375, 2376, 8080):
        c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        c.settimeout(2)
        try:
            c.connect((host, port))
            print(host, port, "CONNECTED")
        except OSError as e:
            print(host, port, errno.errorcode.get(e.errno, e.errno) if e.errno else "timeout")
        c.close()
`, { timeout: 30_000 });
  assert.equal(r.exitCode, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines.length, 10, r.stdout);
  for (const line of lines) assert.match(line, /ECONNREFUSED|ENETUNREACH|EHOSTUNREACH|timeout/, line);
  await alive(s);
});

e2e('adversarial: symlinks and hard links in /work do not lead file operations out of it', { timeoutMs: 120_000 }, async (h) => {
  const s = await withStateDir(h).start(ENV); // the session goes with it
  const created = await s.client.callTool({ name: 'sandbox_session', arguments: { action: 'create', language: 'bash', name: 'links' } });
  assert.equal(created.isError ?? false, false, created.content?.[0]?.text);
  const made = runResult(await s.call({ language: 'bash', session: 'links', code: [
    'ln -s /etc/passwd /work/soft; ln -s /proc/1/root /work/root; ln -s / /work/top',
    'ln /etc/passwd /work/hard 2>/dev/null; echo "hard=$?"',
  ].join('\n') }));
  assert.match(made.stdout, /^hard=[1-9]/m, 'a hard link to a file outside /work cannot be made');
  for (const path of ['soft', 'root/environ', 'top/etc/passwd', 'hard']) {
    const e = toolError(await fop(s, { action: 'read', session: 'links', path }));
    assert.ok(['invalid_path', 'not_found'].includes(e.code), `${path}: ${e.code} ${e.message}`);
  }
  const w = toolError(await fop(s, { action: 'write', session: 'links', path: 'top/tmp/x', content: 'x' }));
  assert.equal(w.code, 'invalid_path');
  await alive(s);
});
