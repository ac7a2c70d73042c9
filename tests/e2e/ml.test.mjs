// python-ml: the scientific stack, served by the pre-imported fork server
// (images/python-ml/forkserver.py, agent/zygote.h) in a pooled container.
import assert from 'node:assert/strict';
import { e2e } from './lib/server.mjs';
import { parseStatus } from './lib/sandbox.mjs';
import { waitFor } from './lib/wait.mjs';

// One warm python-ml container and nothing else, so consecutive calls meet
// the same container (and its fork server) after a reset. The tests share
// one such server (each fork server imports the whole stack, about 3 s of
// CPU), but the last, which watches a new server's pool warm up.
const ML_ONLY = { SANDBOX_POOL_SIZE: '0', SANDBOX_PYTHON_ML_POOL_SIZE: '1', SANDBOX_POOL_WARM_AT_START: 'python-ml' };
// The first call of a container also waits for the server's imports.
const SLOW = { requestTimeoutMs: 120_000 };

// Processes other than the agent, this program and the fork server (its
// parent), and the parent's pid.
const LIST_OTHERS = `import os
me, ppid = os.getpid(), os.getppid()
others = sorted(open(f"/proc/{p}/cmdline").read().replace("\\0", " ").strip()
                for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, me, ppid))
print(others, ppid)
`;

e2e('python-ml: numpy, pandas, sklearn and torch import and compute', { timeoutMs: 180_000 }, async (h) => {
  const s = await h.shared({ env: ML_ONLY });
  const r = await s.execute(
    'python-ml',
    'import numpy, pandas, sklearn, torch; print(torch.tensor([1,2]).sum().item())',
    SLOW,
  );
  assert.equal(r.stderr, '');
  assert.equal(r.stdout, '3\n');
  assert.equal(r.exitCode, 0);
  assert.equal(r.language, 'python-ml');
});

e2e('python-ml: matplotlib saves a PNG with the Agg backend and no warnings', { timeoutMs: 180_000 }, async (h) => {
  const s = await h.shared({ env: ML_ONLY });
  const code = `import matplotlib
import matplotlib.pyplot as plt
import seaborn
fig, ax = plt.subplots()
ax.plot([1, 2, 3], [3, 1, 2])
ax.set_title("test")
fig.savefig("plot.png")
data = open("plot.png", "rb").read()
print(matplotlib.get_backend(), data[:8] == b"\\x89PNG\\r\\n\\x1a\\n", len(data) > 1000)
`;
  const r = await s.execute('python-ml', code, SLOW);
  assert.equal(r.stderr, '', 'no warnings (font cache, config dir, backend)');
  assert.equal(r.stdout, 'agg True True\n');
  assert.equal(r.exitCode, 0);
});

e2e('python-ml: every execution has fresh random state, from one surviving fork server', { timeoutMs: 180_000 }, async (h) => {
  const s = await h.shared({ env: ML_ONLY });
  const code = `import os, random, socket, numpy, torch
print(socket.gethostname(), os.getppid(), random.random(), numpy.random.rand(), torch.rand(1).item())
`;
  // The pool may hand out a second container while the first is being
  // reset; run until one container has served twice.
  const runs = [];
  const byHost = new Map();
  let again;
  for (let i = 0; i < 6 && !again; i++) {
    const r = await s.execute('python-ml', code, SLOW);
    assert.equal(r.stderr, '');
    const run = r.stdout.trim().split(' ');
    assert.equal(run.length, 5, r.stdout);
    runs.push(run);
    if (byHost.has(run[0])) again = [byHost.get(run[0]), run];
    byHost.set(run[0], run);
  }
  assert.ok(again, 'a container served twice');
  const [a, b] = again;
  // Same parent: the second run was forked by the server the first one
  // started, which survived the pool's reset in between.
  assert.notEqual(a[1], '1', 'forked by the fork server, not the agent');
  assert.equal(a[1], b[1], 'the fork server survives the reset');
  for (const [k, name] of [[2, 'random.random()'], [3, 'numpy.random.rand()'], [4, 'torch.rand()']]) {
    assert.equal(new Set(runs.map((r) => r[k])).size, runs.length, name);
  }
});

e2e('python-ml: ordinary code runs; an exception gives a traceback and exit 1', { timeoutMs: 180_000 }, async (h) => {
  const s = await h.shared({ env: ML_ONLY });
  const ok = `import os, sys, re
import torch
model = torch.nn.Linear(2, 1)
model.eval()
print(re.compile(r"a+").fullmatch("aaa") is not None, sys.argv, __name__, os.getcwd())
`;
  const r = await s.execute('python-ml', ok, SLOW);
  assert.equal(r.stderr, '');
  assert.equal(r.stdout, "True ['main.py'] __main__ /work\n");
  const bad = 'print("before", flush=True)\ndef f():\n    raise ValueError("boom 42")\nf()\n';
  const e = await s.execute('python-ml', bad, SLOW);
  assert.equal(e.exitCode, 1);
  assert.equal(e.stdout, 'before\n');
  assert.equal(
    e.stderr,
    'Traceback (most recent call last):\n  File "/work/main.py", line 4, in <module>\n    f()\n' +
      '  File "/work/main.py", line 3, in f\n    raise ValueError("boom 42")\nValueError: boom 42\n',
  );
  const exit = await s.execute('python-ml', 'import sys; sys.exit(7)', SLOW);
  assert.equal(exit.exitCode, 7);
});

e2e('python-ml: a timeout kills the program and its daemons, not the fork server', { timeoutMs: 180_000 }, async (h) => {
  const s = await h.shared({ env: ML_ONLY });
  // Warm the servers first (the pool may alternate between two
  // containers), so the timeout hits user code, not the imports.
  const hosts = new Set();
  for (let i = 0; i < 6 && hosts.size < 2; i++) {
    hosts.add((await s.execute('python-ml', 'import socket; print(socket.gethostname())', SLOW)).stdout);
  }
  const code = `import subprocess, time
subprocess.Popen(["setsid", "sleep", "1000"])
subprocess.Popen(["sleep", "1001"], start_new_session=True)
print("started", flush=True)
time.sleep(1000)
`;
  const r = await s.execute('python-ml', code, { timeout: 3000, ...SLOW });
  assert.equal(r.timedOut, true);
  assert.equal(r.stdout, 'started\n');
  const after = await s.execute('python-ml', LIST_OTHERS, SLOW);
  assert.equal(after.exitCode, 0, after.stderr);
  assert.match(after.stdout, /^\[\] \d+\n$/, 'no survivors');
  assert.notEqual(after.stdout.trim().split(' ')[1], '1');
});

e2e('python-ml: uid 1000, no capabilities, no_new_privs and seccomp hold in forked children', { timeoutMs: 180_000 }, async (h) => {
  const s = await h.shared({ env: ML_ONLY });
  const r = await s.execute(
    'python-ml',
    'import os, ctypes\nprint(os.getuid(), os.getgid(), os.getppid() != 1)\n' +
      'libc = ctypes.CDLL(None, use_errno=True)\n' +
      'print(libc.personality(0x0040000), ctypes.get_errno())\n' +
      'print(open("/proc/self/status").read())',
    SLOW,
  );
  assert.equal(r.exitCode, 0, r.stderr);
  const [ids, pers, ...rest] = r.stdout.split('\n');
  assert.equal(ids, '1000 1000 True');
  assert.equal(pers, '-1 95', 'personality(ADDR_NO_RANDOMIZE) is denied by the seccomp floor (ENOTSUP)');
  const st = parseStatus(rest.join('\n'));
  for (const k of ['CapEff', 'CapPrm', 'CapInh', 'CapBnd', 'CapAmb']) assert.equal(st[k], '0000000000000000', k);
  assert.equal(st.Uid?.split(/\s+/).join(' '), '1000 1000 1000 1000');
  assert.equal(st.NoNewPrivs, '1');
  assert.equal(st.Seccomp, '2');
});

e2e('python with "ml": true runs python-ml', { timeoutMs: 180_000 }, async (h) => {
  const s = await h.shared({ env: ML_ONLY });
  const r = await s.execute('python', 'import torch; print(torch.tensor([1,2]).sum().item())', { ml: true, ...SLOW });
  assert.equal(r.stdout, '3\n');
  assert.equal(r.language, 'python-ml');
});

e2e('python-ml: a pooled container is warmed up before its first call, within the start\'s timeout, not a program\'s', { timeoutMs: 180_000 }, async (h) => {
  // A program timeout shorter than the fork server's imports (about 2.5 s
  // on a quiet machine): the warm-up is part of the container's start and
  // has start_timeout_ms (60 s), as on a machine busy enough to make the
  // imports outlast the usual 30 s.
  const s = await h.start({ env: { ...ML_ONLY, SANDBOX_SERVER_LOG_LEVEL: 'debug', SANDBOX_PYTHON_ML_TIMEOUT_MS: '1500' } });
  // The pool starts the container and runs the plugin's warm-up code in
  // it (which starts the fork server and its imports) before anyone gets
  // it, and says so in its log.
  const warm = /\[python-ml\] container ([0-9a-f]{12}) warmed up\n/;
  const [, warmed] = await waitFor(() => warm.exec(s.stderr), {
    timeoutMs: 150_000,
    intervalMs: 200,
    what: 'the pool logging "[python-ml] container ... warmed up"',
  });
  // The first call runs in that container, in a child of a fork server
  // that had the modules imported before the call came (they are in
  // sys.modules before the code imports anything). How fast that makes
  // the call is measured by bench/.
  const r = await s.execute(
    'python-ml',
    'import socket, sys\n' +
      'print(socket.gethostname(), all(m in sys.modules for m in ("numpy", "pandas", "sklearn", "torch")))\n' +
      'import numpy, pandas, sklearn, torch; print(torch.tensor([1,2]).sum().item())',
    SLOW,
  );
  assert.equal(r.stdout, `${warmed} True\n3\n`);
});
