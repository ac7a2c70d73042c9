// The warm pool: calls run side by side, the server stays responsive, and a
// reused container carries nothing over from the call before.
import assert from 'node:assert/strict';
import { e2e, runResult } from './lib/server.mjs';
import { containerOf, section } from './lib/sandbox.mjs';
import { pyUntilFile, releaseFile } from './lib/sessions.mjs';
import { progressText } from './lib/wait.mjs';

e2e('four python calls run at the same time', { timeoutMs: 90_000 }, async (h) => {
  const s = await h.start({ env: { SANDBOX_PYTHON_POOL_SIZE: '4', SANDBOX_BASH_POOL_SIZE: '0' } });
  const code = 'import time, socket\nt0 = time.time()\ntime.sleep(1)\nprint(socket.gethostname(), t0, time.time())';
  const round = () => Promise.all([1, 2, 3, 4].map(() => s.execute('python', code)));
  // The first round may wait for containers to start; the second shows
  // whether calls overlap.
  await round();
  const results = await round();
  const spans = results.map((r) => {
    assert.equal(r.exitCode, 0, r.stderr);
    const [host, start, end] = r.stdout.trim().split(' ');
    return { host, start: Number(start), end: Number(end) };
  });
  assert.equal(new Set(spans.map((x) => x.host)).size, 4, 'four containers');
  const lastStart = Math.max(...spans.map((x) => x.start));
  const firstEnd = Math.min(...spans.map((x) => x.end));
  assert.ok(lastStart < firstEnd, `all four sleeps were running at once (last start ${lastStart}, first end ${firstEnd})`);
  // How fast four run at once is bench/'s to measure, not this test's.
});

e2e('ping answers while a long call runs', { timeoutMs: 60_000 }, async (h) => {
  const s = await h.start({ env: { SANDBOX_BASH_POOL_SIZE: '0' } });
  let done = false;
  // The call runs until the test releases it: the pings below are answered
  // while it certainly runs.
  const p = progressText();
  const code = `import socket\nprint(socket.gethostname(), flush=True)\n${pyUntilFile('/work/release')}print("released")`;
  const long = s.client
    .callTool({ name: 'sandbox_execute', arguments: { language: 'python', code, timeout: 50_000 } }, undefined, {
      onprogress: p.onprogress,
      timeout: 55_000,
    })
    .finally(() => {
      done = true;
    });
  await p.until(/^[0-9a-f]{12}$/m, 'the long call printing its host');
  for (let i = 0; i < 3; i++) {
    assert.deepEqual(await s.client.ping(), {});
    assert.equal(done, false, 'the long call was still running');
  }
  await releaseFile(await containerOf(s, p.text.split('\n')[0].trim()), '/work/release');
  const r = await long;
  assert.equal(r.isError ?? false, false);
  assert.match(runResult(r).stdout, /^[0-9a-f]{12}\nreleased\n$/);
});

// One container allowed in all, so the second call must reuse the first's
// container after its reset; the hostname and the Docker API confirm it.
const REUSE = { SANDBOX_POOL_MAX_CONTAINERS: '1', SANDBOX_POOL_SIZE: '1' };

e2e('pool hygiene (bash): a reused container keeps no process, file or IPC object', { timeoutMs: 90_000 }, async (h) => {
  const s = await h.start({ env: { ...REUSE, SANDBOX_PYTHON_POOL_SIZE: '0' } });
  const dirty = `
cat /etc/hostname
setsid nohup sleep 300 >/dev/null 2>&1 &
sleep 60 >/dev/null 2>&1 &
disown -a
echo left >/work/left-in-work; echo left >/work/.hidden
echo left >/tmp/left-in-tmp; mkdir -p /tmp/dir/sub; echo left >/tmp/dir/sub/f
echo left >/dev/shm/left-in-shm
mkdir -p /work/locked/sub; echo left >/work/locked/sub/f; chmod 000 /work/locked
mkfifo /work/fifo
ipcmk -M 4096 >/dev/null; ipcmk -Q >/dev/null; ipcmk -S 2 >/dev/null
echo "--- check ---"
ls -A /work /tmp /dev/shm | tr '\\n' ' '; echo
echo "ipc $(tail -n +2 /proc/sysvipc/shm | wc -l) $(tail -n +2 /proc/sysvipc/msg | wc -l) $(tail -n +2 /proc/sysvipc/sem | wc -l)"
echo "sleeps $(ps -u 1000 -o comm= | grep -cx sleep)"
`;
  const r1 = await s.execute('bash', dirty);
  assert.equal(r1.exitCode, 0, r1.stderr);
  const host = r1.stdout.split('\n')[0];
  const id = await containerOf(s, host);
  // The mess really was made.
  const made = section(r1.stdout, 'check');
  assert.match(made, /left-in-work/);
  assert.match(made, /left-in-shm/);
  assert.match(made, /^ipc 1 1 1$/m);
  assert.match(made, /^sleeps 2$/m);

  const check = `
cat /etc/hostname
echo "--- self ---"; echo "$$ $(basename "$0")"
echo "--- files ---"; find /work /tmp /dev/shm -mindepth 1 2>&1
echo "--- shm ---"; tail -n +2 /proc/sysvipc/shm
echo "--- msg ---"; tail -n +2 /proc/sysvipc/msg
echo "--- sem ---"; tail -n +2 /proc/sysvipc/sem
echo "--- ps ---"; ps -u 1000 -o pid=,ppid=,comm=
echo "--- end ---"
`;
  const r2 = await s.execute('bash', check);
  assert.equal(r2.exitCode, 0, r2.stderr);
  assert.equal(r2.stdout.split('\n')[0], host, 'the second call ran in the same container');
  assert.equal(await containerOf(s, host), id);
  const [self, script] = section(r2.stdout, 'self').trim().split(' ');
  const files = section(r2.stdout, 'files').trim().split('\n').filter(Boolean);
  assert.deepEqual(
    files.filter((f) => f !== `/work/${script}`),
    [],
    'nothing is left in /work, /tmp or /dev/shm but this call\'s own code',
  );
  assert.equal(section(r2.stdout, 'shm'), '', 'no SysV shared memory segment');
  assert.equal(section(r2.stdout, 'msg'), '', 'no SysV message queue');
  assert.equal(section(r2.stdout, 'sem'), '', 'no SysV semaphore');
  const others = section(r2.stdout, 'ps')
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter(([pid, ppid]) => pid !== self && ppid !== self);
  assert.deepEqual(others, [], 'no uid-1000 process but this call\'s own');
});

e2e('pool hygiene (python): a reused container keeps no process, file or IPC object', { timeoutMs: 90_000 }, async (h) => {
  const s = await h.start({ env: { ...REUSE, SANDBOX_BASH_POOL_SIZE: '0' } });
  const dirty = `
import ctypes, os, socket, subprocess
print(socket.gethostname())
subprocess.Popen(["sleep", "300"], start_new_session=True,
                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
if os.fork() == 0:          # a child that outlives its parent
    os.setsid()
    null = os.open("/dev/null", os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.execvp("sleep", ["sleep", "301"])
for p in ("/work/left.txt", "/tmp/left.txt", "/dev/shm/left.bin"):
    with open(p, "w") as f:
        f.write("left")
os.makedirs("/work/locked/sub")
open("/work/locked/sub/f", "w").close()
os.chmod("/work/locked", 0)
libc = ctypes.CDLL(None, use_errno=True)
IPC_PRIVATE, IPC_CREAT = 0, 0o1000
shm = libc.shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0o600)
msg = libc.msgget(IPC_PRIVATE, IPC_CREAT | 0o600)
print("ipc ids", shm, msg)
print("--- check ---")
print("shm", len(open("/proc/sysvipc/shm").read().splitlines()) - 1)
print("listing", sorted(os.listdir("/work")), sorted(os.listdir("/tmp")), sorted(os.listdir("/dev/shm")))
`;
  const r1 = await s.execute('python', dirty);
  assert.equal(r1.exitCode, 0, r1.stderr);
  const host = r1.stdout.split('\n')[0];
  const id = await containerOf(s, host);
  const made = section(r1.stdout, 'check');
  assert.match(made, /^shm 1$/m, 'a shared memory segment was made');
  assert.match(made, /left\.bin/);
  assert.match(r1.stdout, /^ipc ids \d+ \d+$/m);

  const check = `
import os, socket, sys
print(socket.gethostname())
me = os.path.abspath(sys.argv[0])
left = []
for top in ("/work", "/tmp", "/dev/shm"):
    for root, dirs, files in os.walk(top, onerror=lambda e: left.append("unreadable " + str(e.filename))):
        left += [os.path.join(root, n) for n in dirs + files]
print("files", [p for p in left if p != me])
print("shm", open("/proc/sysvipc/shm").read().splitlines()[1:])
print("msg", open("/proc/sysvipc/msg").read().splitlines()[1:])
others = []
for pid in os.listdir("/proc"):
    if not pid.isdigit() or int(pid) == os.getpid():
        continue
    try:
        st = open(f"/proc/{pid}/status").read()
    except OSError:
        continue
    fields = dict(l.split(":\\t", 1) for l in st.splitlines() if ":\\t" in l)
    if fields["Uid"].split()[0] == "1000":
        others.append((pid, fields["Name"]))
print("procs", others)
`;
  const r2 = await s.execute('python', check);
  assert.equal(r2.exitCode, 0, r2.stderr);
  const lines = r2.stdout.trim().split('\n');
  assert.equal(lines[0], host, 'the second call ran in the same container');
  assert.equal(await containerOf(s, host), id);
  assert.equal(lines[1], 'files []', 'nothing is left in /work, /tmp or /dev/shm but this call\'s own code');
  assert.equal(lines[2], 'shm []', 'no SysV shared memory segment');
  assert.equal(lines[3], 'msg []', 'no SysV message queue');
  assert.equal(lines[4], 'procs []', 'no uid-1000 process but this one');
});
