// Named sessions: sandbox_session (create, list, get, pause, resume,
// extend, destroy) and sandbox_execute with `session`: files and, for the
// interpreted languages, in-memory state survive between calls; calls in a
// session run one at a time; timeouts, cancellation and destruction leave
// the session (or its absence) in the state a user expects; sessions do not
// see each other.
//
// Session containers survive their server (on purpose), so every test uses
// its own state directory and removes its containers at the end
// (lib/sessions.mjs, withStateDir).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { e2e, runResult, toolError } from './lib/server.mjs';
import {
  GENERATED_NAME,
  SESSION_PREFIX,
  checkSession,
  createSession,
  listNames,
  pyUntilFile,
  releaseFile,
  sessionCall,
  sessionContainer,
  sessionContainers,
  sessionErr,
  sessionExecCall,
  sessionOk,
  sessionResult,
  sexec,
  sexecErr,
  sexecOk,
  shUntilFile,
  waitActive,
  waitQueued,
  waitState,
  withStateDir,
} from './lib/sessions.mjs';
import { eventually, progressText, waitFor } from './lib/wait.mjs';
import { bridgeGateway } from './lib/docker.mjs';
import { fopOk } from './lib/files.mjs';
import { serverContainers } from './lib/sandbox.mjs';

// Most tests only need python; bash warms up only where it is used.
const PYTHON = { SANDBOX_BASH_POOL_SIZE: '0' };
const BASH = { SANDBOX_PYTHON_POOL_SIZE: '0' };

// A call the test holds (it runs until releaseFile) gets a timeout well
// beyond any wait of the test's, so that only the release ends it.
const HELD = { timeout: 90_000 };

// ---- lifecycle and errors ----

e2e('session lifecycle: create, get, list, execute, destroy', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start(PYTHON);

  const before = Date.now();
  const info = await createSession(s, 'python', { name: 'life' });
  assert.equal(info.ttlSeconds, 1800, 'the default TTL');
  assert.equal(info.executions, 0);
  assert.equal(info.queued, 0);
  assert.equal(info.keepsMemory, true, 'python keeps variables');
  assert.ok(Math.abs(Date.parse(info.created) - before) < 60_000, `created ${info.created}`);
  assert.ok(Date.parse(info.deadline) > Date.parse(info.created), 'the deadline is after creation');

  // The memory figure is measured in the background (about a second after
  // create; sessions_memory.test.mjs): get shows it once it is there.
  const got = await waitFor(async () => {
    const x = checkSession((await sessionOk(s, { action: 'get', name: 'life' })).session, { name: 'life', language: 'python' });
    return x.memoryBytes !== undefined ? x : null;
  }, { timeoutMs: 30_000, what: 'get showing the memory figure' });
  assert.ok(got.memoryBytes > 0, `memoryBytes ${got.memoryBytes}`);
  assert.ok(Number.isInteger(got.memoryAgeMs) && got.memoryAgeMs >= 0, `memoryAgeMs ${got.memoryAgeMs}`);

  const listed = await sessionOk(s, { action: 'list' });
  assert.equal(listed.sessions.length, 1, JSON.stringify(listed));
  checkSession(listed.sessions[0], { name: 'life', language: 'python' });
  assert.equal(typeof listed.sessions[0].memoryBytes, 'number', 'list fills memoryBytes');
  assert.equal(typeof listed.sessions[0].memoryAgeMs, 'number', 'list fills memoryAgeMs');

  // Its container carries the session's name.
  const containers = await sessionContainers({ dir: st.dir });
  assert.equal(containers.length, 1, JSON.stringify(containers));
  assert.equal(containers[0].session, 'life');
  assert.equal(containers[0].language, 'python');
  assert.equal(containers[0].deadline, Math.floor(Date.parse(got.deadline) / 1000), 'the deadline in the name');

  const r = await sexecOk(s, 'life', 'print("in a session")');
  assert.equal(r.stdout, 'in a session\n');
  assert.equal(r.language, 'python', 'language comes from the session');
  const after = (await sessionOk(s, { action: 'get', name: 'life' })).session;
  assert.equal(after.executions, 1);
  assert.equal(after.state, 'active');
  assert.ok(Date.parse(after.lastUsed) >= Date.parse(info.lastUsed), 'lastUsed moved');

  // An explicit language that matches is fine.
  const r2 = await sexecOk(s, 'life', 'print(2)', { language: 'python' });
  assert.equal(r2.stdout, '2\n');

  assert.deepEqual(await sessionOk(s, { action: 'destroy', name: 'life' }), { destroyed: 'life' });
  assert.equal((await sessionErr(s, { action: 'get', name: 'life' })).code, 'session_not_found');
  assert.deepEqual(await listNames(s), []);
  const gone = await eventually(async () => (await sessionContainers({ dir: st.dir })).length === 0, {
    timeoutMs: 20_000,
  });
  assert.ok(gone, 'the container is removed');
});

e2e('create without a name generates an unguessable one', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start(PYTHON);
  const a = await createSession(s, 'python');
  const b = await createSession(s, 'python');
  assert.match(a.name, GENERATED_NAME);
  assert.match(b.name, GENERATED_NAME);
  assert.notEqual(a.name, b.name);
  assert.deepEqual(await listNames(s), [a.name, b.name].sort());
  const r = await sexecOk(s, a.name, 'print("ok")');
  assert.equal(r.stdout, 'ok\n');
});

e2e('sandbox_session errors: invalid_name, session_exists, unknown_language, session_not_found, language_mismatch, invalid_arguments', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start(PYTHON);

  for (const name of ['has space', 'dot.ted', 'slash/y', 'ü', 'a'.repeat(65), '']) {
    const e = await sessionErr(s, { action: 'create', language: 'python', name });
    assert.equal(e.code, 'invalid_name', `name ${JSON.stringify(name)}: ${e.message}`);
  }
  // 64 characters of the allowed set are fine.
  const long = `A-_z09${'x'.repeat(58)}`;
  await createSession(s, 'python', { name: long });
  await sessionOk(s, { action: 'destroy', name: long });

  await createSession(s, 'python', { name: 'dup' });
  const exists = await sessionErr(s, { action: 'create', language: 'python', name: 'dup' });
  assert.equal(exists.code, 'session_exists');
  assert.match(exists.message, /dup/);

  const lang = await sessionErr(s, { action: 'create', language: 'cobol', name: 'c' });
  assert.equal(lang.code, 'unknown_language');
  assert.match(lang.message, /cobol/);

  for (const action of ['get', 'pause', 'resume', 'extend', 'destroy']) {
    const e = await sessionErr(s, { action, name: 'nope' });
    assert.equal(e.code, 'session_not_found', `${action}: ${e.message}`);
  }
  const ex = await sexecErr(s, 'nope', 'print(1)');
  assert.equal(ex.code, 'session_not_found');
  const ex2 = await sexecErr(s, 'nope', 'print(1)', { language: 'python' });
  assert.equal(ex2.code, 'session_not_found');

  const mismatch = await sexecErr(s, 'dup', 'echo hi', { language: 'bash' });
  assert.equal(mismatch.code, 'language_mismatch');
  // Packages in a session call: the error says how a session gets them.
  const pk = await sexecErr(s, 'dup', 'print(1)', { packages: ['tabulate'] });
  assert.equal(pk.code, 'invalid_arguments');
  assert.match(pk.message, /for session 'dup' call sandbox_install \{session: "dup", packages\}/);

  const cases = [
    { action: 'create' }, // no language
    { action: 'get' }, // no name
    { action: 'destroy' },
    { action: 'explode', name: 'dup' },
    { action: 'create', language: 'python', ttl: 0 },
    { action: 'create', language: 'python', ttl: 'long' },
    { action: 'extend', name: 'dup', ttl: -1 },
    { name: 'dup' }, // no action
  ];
  for (const args of cases) {
    const e = await sessionErr(s, args);
    assert.equal(e.code, 'invalid_arguments', `${JSON.stringify(args)}: ${e.code} ${e.message}`);
  }
  // None of that disturbed the session.
  assert.deepEqual(await listNames(s), ['dup']);
  assert.equal((await sexecOk(s, 'dup', 'print("still here")')).stdout, 'still here\n');
});

e2e('max_sessions: the second session is refused until the first is destroyed', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start({ ...PYTHON, SANDBOX_SESSIONS_MAX_SESSIONS: '1' });
  await createSession(s, 'python', { name: 'one' });
  const e = await sessionErr(s, { action: 'create', language: 'python', name: 'two' });
  assert.equal(e.code, 'max_sessions');
  assert.deepEqual(await listNames(s), ['one']);
  await sessionOk(s, { action: 'destroy', name: 'one' });
  await createSession(s, 'python', { name: 'two' });
  assert.deepEqual(await listNames(s), ['two']);
});

// ---- state per language ----

e2e('python: variables, imports and functions persist; a trailing expression is displayed', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start(PYTHON);
  await createSession(s, 'python', { name: 'py' });

  const a = await sexecOk(s, 'py', 'x = 42');
  assert.equal(a.stdout, '');
  assert.equal(a.stateKept, true);
  const b = await sexecOk(s, 'py', 'print(x)');
  assert.equal(b.stdout, '42\n');
  assert.equal(b.stateKept, true);
  assert.equal(b.freshState, false, 'the second call ran in the same interpreter');

  await sexecOk(s, 'py', 'import math\ndef double(n):\n    return 2 * n\n');
  assert.equal((await sexecOk(s, 'py', 'print(double(math.floor(2.7)))')).stdout, '4\n');

  // The interactive interpreter's display of a trailing expression.
  assert.equal((await sexecOk(s, 'py', 'x + 1')).stdout, '43\n');
  assert.equal((await sexecOk(s, 'py', 'y = x * 2\n"s" * 3')).stdout, "'sss'\n");
  assert.equal((await sexecOk(s, 'py', 'None')).stdout, '', 'None is not displayed');
  assert.equal((await sexecOk(s, 'py', 'print(y)')).stdout, '84\n');
  // A big container shows 100 of its items and its count; _ is all of it.
  const big = await sexecOk(s, 'py', '{i: str(i) * 2 for i in range(100000, 0, -1)}');
  assert.match(big.stdout, /^\{100000: '100000100000', 99999: '9999999999', /);
  assert.match(big.stdout, /, 99901: '9990199901', \.\.\.\}  # 100000 items, 100 shown\n$/);
  assert.equal((await sexecOk(s, 'py', 'len(_)')).stdout, '100000\n');
  assert.match((await sexecOk(s, 'py', 'list(range(101))')).stdout, /, 99, \.\.\.\]  # 101 items, 100 shown\n$/);
  assert.equal((await sexecOk(s, 'py', 'list(range(100))')).stdout, `${JSON.stringify([...Array(100).keys()]).replaceAll(',', ', ')}\n`);
  // A DataFrame bounds its own repr.
  const df = await sexecOk(s, 'py', 'import pandas as pd\npd.DataFrame({"a": range(100000)})');
  assert.match(df.stdout, /\[100000 rows x 1 columns\]\n$/);
  assert.ok(df.stdout.length < 2000, df.stdout);

  // An error is a normal result and keeps the state.
  const err = await sexec(s, 'py', 'raise ValueError("boom")');
  assert.equal(err.exitCode, 1);
  assert.match(err.stderr, /ValueError: boom/);
  assert.equal(err.stateKept, true);
  assert.equal((await sexecOk(s, 'py', 'print(x, y)')).stdout, '42 84\n');

  // sys.exit(n) ends the call with status n and keeps the state.
  const ex = await sexec(s, 'py', 'import sys\nprint("bye")\nsys.exit(3)');
  assert.equal(ex.exitCode, 3);
  assert.equal(ex.stdout, 'bye\n');
  assert.equal(ex.stateKept, true);
  assert.equal((await sexecOk(s, 'py', 'print(x)')).stdout, '42\n');

  // stdin reaches the call.
  const inp = await sexecOk(s, 'py', 'import sys\nprint(sys.stdin.read().upper())', { stdin: 'abc' });
  assert.equal(inp.stdout, 'ABC\n');
});

e2e('python: a pandas DataFrame built in one call is used in the next without reloading', { timeoutMs: 150_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start(PYTHON);
  await createSession(s, 'python', { name: 'pd' });
  const build = await sexecOk(
    s,
    'pd',
    'import sys, pandas as pd\n' +
      'df = pd.DataFrame({"a": range(1000), "b": [i * i for i in range(1000)]})\n' +
      'pandas_id = id(sys.modules["pandas"])\n' +
      'print("built")',
  );
  assert.equal(build.stdout, 'built\n');
  const use = await sexecOk(
    s,
    'pd',
    'import sys\nprint(df.shape)\nprint(int(df["b"].sum()))\nprint(id(sys.modules["pandas"]) == pandas_id)',
  );
  // Not reloaded: the same pandas module object (how fast: bench/).
  assert.equal(use.stdout, '(1000, 2)\n332833500\nTrue\n');
  assert.equal(use.stateKept, true);
});

e2e('python-ml (create with ml: true): numpy state persists', { timeoutMs: 180_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start({ SANDBOX_POOL_SIZE: '0' });
  const info = await createSession(s, 'python', { name: 'ml', ml: true });
  assert.equal(info.language, 'python-ml');
  assert.equal(info.keepsMemory, true);
  const a = await sexecOk(s, 'ml', 'import numpy as np\na = np.arange(5)', { requestTimeoutMs: 150_000 });
  assert.equal(a.language, 'python-ml');
  assert.equal((await sexecOk(s, 'ml', 'int(a.sum())')).stdout, '10\n');
  // python with ml: true is the same language as the session's.
  assert.equal((await sexecOk(s, 'ml', 'print(a[-1])', { language: 'python', ml: true })).stdout, '4\n');
  // So is python without it: one family, and the session fixes the
  // runtime (docs/sessions.md, "Running code in a session").
  for (const args of [{ language: 'python' }, { language: 'python', ml: false }, { language: 'py' }]) {
    const r = await sexecOk(s, 'ml', 'import torch\nprint(a[-1], torch.tensor([2]).item())', args);
    assert.deepEqual([r.stdout, r.language, r.stateKept], ['4 2\n', 'python-ml', true], JSON.stringify(args));
  }
  // Another language is still another.
  const bash = await sexecErr(s, 'ml', 'echo hi', { language: 'bash' });
  assert.equal(bash.code, 'language_mismatch');
  assert.match(bash.message, /^session 'ml' runs python-ml, not bash$/);
});

e2e('while a python-ml session\'s interpreter starts, the pool starts no container to refill itself; then it does', { timeoutMs: 240_000 }, async (h) => {
  const st = withStateDir(h);
  // python-ml keeps one warm container once in use (the session's, taken
  // cold, leaves the pool), nothing else is warm.
  const s = await st.start({ SANDBOX_POOL_SIZE: '0', SANDBOX_PYTHON_ML_POOL_SIZE: '1', SANDBOX_POOL_WARM_AT_START: '' });
  const pooled = async () => (await serverContainers(s.pid))
    .filter((c) => c.Labels['org.mcp-sandbox.language'] === 'python-ml' && !c.Names.some((n) => n.startsWith(`/${SESSION_PREFIX}`)));
  await createSession(s, 'python', { name: 'mlhold', ml: true });
  // A pause while it starts says so (no call is running yet).
  const early = await sessionErr(s, { action: 'pause', name: 'mlhold' });
  assert.equal(early.code, 'session_busy');
  assert.match(early.message, /^the session is starting \(its interpreter is loading\); pause it once its state is active$/);
  // The containers first, then the state: a session still starting at
  // the second look was starting at the first. Its imports take seconds,
  // so there are looks while they run, 100 ms apart: back to back, each
  // one asking the engine for its container list, they were 14 000 in 45 s
  // while the suite ran, a core's worth of the engine's CPU.
  let looks = 0;
  for (;;) {
    const before = await pooled();
    const { state } = (await sessionOk(s, { action: 'get', name: 'mlhold' })).session;
    if (state !== 'starting') break;
    looks++;
    assert.deepEqual(before.map((c) => c.Names[0]), [], 'no container warms up beside the interpreter\'s imports');
    await delay(100);
  }
  assert.ok(looks > 0, 'the interpreter was seen starting');
  assert.equal((await sexecOk(s, 'mlhold', 'import torch\nprint(torch.tensor([3]).item())')).stdout, '3\n');
  // Its container was started for it, so not warmed up: no fork server
  // holds a second copy of the imports beside the interpreter (POOL_BARE).
  const zygotes = await sexecOk(s, 'mlhold', [
    'import os',
    'def cmd(p):',
    '    try:',
    '        return open(f"/proc/{p}/cmdline", "rb").read()',
    '    except OSError:',
    '        return b""',
    'print(sum(b"/opt/sbx/zygote" in cmd(p) for p in os.listdir("/proc") if p.isdigit()))',
  ].join('\n'));
  assert.equal(zygotes.stdout, '0\n', 'no fork server in a container started for the session');
  // Then the floor is kept again.
  await waitFor(async () => (await pooled()).length === 1, { timeoutMs: 120_000, what: 'the python-ml floor refilled' });
});

e2e('a python-ml session takes files while its interpreter starts: a write and an import do not wait for the imports', { timeoutMs: 240_000 }, async (h) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-sandbox-e2e-root-'));
  h.t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  fs.writeFileSync(path.join(root, 'sales.csv'), 'region,amount\nn,1\ns,2\n');
  const st = withStateDir(h);
  const s = await h.start({ env: st.env({ SANDBOX_POOL_SIZE: '0', SANDBOX_PYTHON_ML_POOL_SIZE: '1', SANDBOX_POOL_WARM_AT_START: 'python-ml' }), args: ['--files-root', root] });
  await createSession(s, 'python', { name: 'mlfiles', ml: true });
  const state = async () => (await sessionOk(s, { action: 'get', name: 'mlfiles' })).session.state;
  // A write and an import that begin and end while the session is still
  // starting ran beside its imports: before, each waited for them and
  // the session was active when it answered. The imports take seconds,
  // the files milliseconds; should they end in between, try again.
  let beside = false;
  for (let i = 0; !beside; i++) {
    if ((await state()) !== 'starting') break;
    await fopOk(s, { action: 'write', session: 'mlfiles', path: `w${i}.txt`, content: 'x' });
    await fopOk(s, { action: 'import', session: 'mlfiles', from: 'sales.csv', path: `in${i}.csv` });
    beside = (await state()) === 'starting';
  }
  assert.ok(beside, 'a write and an import answered while the interpreter started');
  // The files are there for the first call, which runs once it is up.
  const r = await sexecOk(s, 'mlfiles', "import pandas as pd\nprint(pd.read_csv('in0.csv').amount.sum(), open('w0.txt').read())");
  assert.equal(r.stdout, '3 x\n');
  await waitFor(() => /session mlfiles: interpreter ready in \d+ ms/.test(s.stderr), { what: 'the interpreter ready, logged' });
});

e2e('a python session refuses the machine-learning runtime and says to create an ml session', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start({ ...PYTHON, SANDBOX_PYTHON_ML_POOL_SIZE: '0' });
  await createSession(s, 'python', { name: 'plain' });
  const want = /^session 'plain' runs python, without its machine-learning runtime python-ml: create a session with ml: true \(language python-ml\) for that, or run once with ml: true and no session$/;
  for (const args of [{ language: 'python-ml' }, { language: 'python_ml' }, { language: 'python', ml: true }]) {
    const e = await sexecErr(s, 'plain', 'import torch', args);
    assert.equal(e.code, 'language_mismatch', JSON.stringify(args));
    assert.match(e.message, want, JSON.stringify(args));
    // sandbox_install names the same runtime the same way.
    const i = toolError(await s.client.callTool({ name: 'sandbox_install', arguments: { session: 'plain', packages: ['x'], ...args } }));
    assert.equal(i.code, 'language_mismatch', JSON.stringify(args));
    assert.match(i.message, want);
  }
  // The session is untouched: plain python still runs there.
  assert.equal((await sexecOk(s, 'plain', 'print(6 * 7)', { language: 'python', ml: false })).stdout, '42\n');
});

e2e('javascript: top-level let, functions and classes persist; the completion value is displayed', { timeoutMs: 150_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start(PYTHON);
  await createSession(s, 'javascript', { name: 'js' });
  const a = await sexecOk(s, 'js', 'let n = 41;\nfunction inc(v) { return v + 1; }\nclass Box { constructor(v) { this.v = v; } }');
  assert.equal(a.stdout, '');
  assert.equal(a.language, 'javascript');
  const b = await sexecOk(s, 'js', 'n = inc(n);\nconsole.log(n, new Box("b").v);');
  assert.equal(b.stdout, '42 b\n');
  assert.equal(b.stateKept, true);
  assert.equal(b.freshState, false);
  // The completion value, shown with util.inspect.
  assert.equal((await sexecOk(s, 'js', 'n * 2')).stdout, '84\n');
  assert.equal((await sexecOk(s, 'js', '({ k: [1, "two"] })')).stdout, "{ k: [ 1, 'two' ] }\n");
  assert.equal((await sexecOk(s, 'js', 'undefined')).stdout, '', 'undefined is not displayed');
  // Imports persist too, and top-level await works.
  await sexecOk(s, 'js', 'import path from "node:path";\nconst v = await Promise.resolve(7);');
  assert.equal((await sexecOk(s, 'js', 'console.log(path.basename("/a/b.txt"), v)')).stdout, 'b.txt 7\n');
  // A timeout during an await is an interrupt: the state is kept.
  const t = await sexec(s, 'js', 'await new Promise((r) => setTimeout(r, 30000));', { timeout: 1000 });
  assert.equal(t.timedOut, true);
  assert.equal(t.stateKept, true, `signal ${t.signal}, stderr ${t.stderr}`);
  assert.equal((await sexecOk(s, 'js', 'console.log(n)')).stdout, '42\n');
});

e2e('typescript: const persists and can be redeclared in a later call', { timeoutMs: 150_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start(PYTHON);
  await createSession(s, 'typescript', { name: 'ts' });
  await sexecOk(s, 'ts', 'const greeting: string = "hello";\ninterface P { n: number }\nconst p: P = { n: 1 };');
  const b = await sexecOk(s, 'ts', 'console.log(greeting, p.n);');
  assert.equal(b.stdout, 'hello 1\n');
  assert.equal(b.stateKept, true);
  const c = await sexecOk(s, 'ts', 'const greeting: number = 5;\nconsole.log(greeting + 1);');
  assert.equal(c.stdout, '6\n', c.stderr);
  assert.equal((await sexecOk(s, 'ts', 'console.log(typeof greeting, greeting)')).stdout, 'number 5\n');
});

e2e('bash: variables, functions, exports and the working directory persist', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start(BASH);
  await createSession(s, 'bash', { name: 'sh' });
  const a = await sexecOk(
    s,
    'sh',
    'X=hello\nexport E=exported\ngreet() { echo "hi $1"; }\nmkdir -p /work/sub/dir\ncd /work/sub/dir',
  );
  assert.equal(a.stdout, '');
  const b = await sexecOk(s, 'sh', 'echo "$X"; greet you; pwd; bash -c \'echo "child sees $E"\'');
  assert.equal(b.stdout, 'hello\nhi you\n/work/sub/dir\nchild sees exported\n');
  assert.equal(b.stateKept, true);
  assert.equal(b.freshState, false);
  // A failing command is a normal result with its status; state stays.
  const c = await sexec(s, 'sh', 'echo err >&2; false');
  assert.equal(c.exitCode, 1);
  assert.equal(c.stderr, 'err\n');
  assert.equal((await sexecOk(s, 'sh', 'echo "$X $(pwd)"')).stdout, 'hello /work/sub/dir\n');
  // exit ends the interpreter: reported, and the next call starts afresh
  // (in /work, without X) with the files still there.
  const ex = await sexec(s, 'sh', 'echo data > /work/sub/dir/f; exit 4');
  assert.equal(ex.exitCode, 4);
  assert.equal(ex.stateKept, false);
  const fresh = await sexecOk(s, 'sh', 'echo "[$X] $(pwd) $(cat /work/sub/dir/f)"');
  assert.equal(fresh.freshState, true);
  assert.equal(fresh.stdout, '[] /work data\n');
});

e2e('go: each call is a program, files in /work persist, stateKept is false', { timeoutMs: 180_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start({ SANDBOX_POOL_SIZE: '0' });
  const info = await createSession(s, 'go', { name: 'gosess' });
  assert.equal(info.keepsMemory, false, 'go keeps files, not memory');
  const a = await sexecOk(
    s,
    'gosess',
    'if err := os.WriteFile("/work/note.txt", []byte("written by call 1"), 0644); err != nil {\n\tpanic(err)\n}\nfmt.Println("wrote")',
    { requestTimeoutMs: 150_000 },
  );
  assert.equal(a.stdout, 'wrote\n');
  assert.equal(a.stateKept, false);
  const b = await sexecOk(
    s,
    'gosess',
    'b, err := os.ReadFile("/work/note.txt")\nif err != nil {\n\tpanic(err)\n}\nfmt.Println(string(b))',
    { requestTimeoutMs: 150_000 },
  );
  assert.equal(b.stdout, 'written by call 1\n');
  assert.equal(b.stateKept, false);
  assert.equal(b.language, 'go');
});

// ---- expiry ----

e2e('ttl: an idle session expires and its container is removed', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start(PYTHON);
  const info = await createSession(s, 'python', { name: 'short', ttl: 2 });
  assert.equal(info.ttlSeconds, 2);
  const t0 = Date.now();
  assert.ok(
    Math.abs(Date.parse(info.expires) - Date.parse(info.lastUsed) - 2000) <= 1000,
    `expires ${info.expires} = lastUsed ${info.lastUsed} + 2 s`,
  );
  assert.equal((await sessionContainers({ dir: st.dir })).length, 1);
  // Gone within a few seconds (TTL 2 s, checked every second; the
  // interpreter's start-up counts as a use).
  const gone = await eventually(
    async () => (await sessionCall(s, { action: 'get', name: 'short' })).isError === true,
    { timeoutMs: 15_000, intervalMs: 250 },
  );
  const waited = Date.now() - t0;
  assert.ok(gone, 'the session expired');
  assert.ok(waited >= 1500, `expired after ${waited} ms, before its 2 s TTL`);
  assert.equal((await sessionErr(s, { action: 'get', name: 'short' })).code, 'session_not_found');
  assert.equal((await sexecErr(s, 'short', 'print(1)')).code, 'session_not_found');
  assert.deepEqual(await listNames(s), []);
  const removed = await eventually(async () => (await sessionContainers({ dir: st.dir })).length === 0, {
    timeoutMs: 20_000,
  });
  assert.ok(removed, `its container is removed: ${JSON.stringify(await sessionContainers({ dir: st.dir }))}`);
});

e2e('extend pushes the expiry (and can change the TTL)', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start({ ...PYTHON, SANDBOX_SESSIONS_MAX_TTL: '600' });
  const info = await createSession(s, 'python', { name: 'ext', ttl: 2 });
  const e1 = Date.parse(info.expires);
  const ext = (await sessionOk(s, { action: 'extend', name: 'ext', ttl: 60 })).session;
  checkSession(ext, { name: 'ext', language: 'python' });
  assert.equal(ext.ttlSeconds, 60);
  const e2 = Date.parse(ext.expires);
  assert.ok(e2 >= e1 + 55_000, `expires moved from ${info.expires} to ${ext.expires}`);
  assert.ok(Math.abs(e2 - Date.parse(ext.lastUsed) - 60_000) <= 1000, 'expires = lastUsed + ttl');
  // It outlives its original 2 s TTL: wait for the clock to pass that
  // expiry and one more of the server's expiry checks (every second).
  await waitFor(() => Date.now() > e1 + 1500, { timeoutMs: 30_000, what: `the original expiry (${info.expires}) to pass` });
  const got = (await sessionOk(s, { action: 'get', name: 'ext' })).session;
  assert.equal(got.ttlSeconds, 60);
  // extend without a ttl restarts the same TTL from now (now being more
  // than a second after the last extend).
  await waitFor(() => Date.now() > Date.parse(ext.lastUsed) + 1100, { what: 'a second to pass since the extend' });
  const again = (await sessionOk(s, { action: 'extend', name: 'ext' })).session;
  assert.equal(again.ttlSeconds, 60);
  assert.ok(Date.parse(again.expires) > e2 + 1000, `expires moved again: ${again.expires} vs ${ext.expires}`);
  // Above max_ttl is refused, for extend and for create.
  assert.equal((await sessionErr(s, { action: 'extend', name: 'ext', ttl: 601 })).code, 'invalid_arguments');
  assert.equal(
    (await sessionErr(s, { action: 'create', language: 'python', name: 'big', ttl: 601 })).code,
    'invalid_arguments',
  );
  assert.equal((await sexecOk(s, 'ext', 'print("alive")')).stdout, 'alive\n');
});

// ---- pause / resume ----

e2e('pause freezes a session: execute says session_paused, resume brings it back with its variables', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start(PYTHON);
  await createSession(s, 'python', { name: 'p' });
  await sexecOk(s, 'p', 'x = 42');
  const paused = (await sessionOk(s, { action: 'pause', name: 'p' })).session;
  assert.equal(paused.state, 'paused');
  assert.equal((await sessionOk(s, { action: 'get', name: 'p' })).session.state, 'paused');
  const [c] = await sessionContainers({ dir: st.dir });
  const status = execFileSync('docker', ['inspect', '-f', '{{.State.Status}}', c.id]).toString().trim();
  assert.equal(status, 'paused', 'the container is frozen');
  const e = await sexecErr(s, 'p', 'print(x)');
  assert.equal(e.code, 'session_paused');
  assert.match(e.message, /resume/);
  // Pausing again is harmless.
  assert.equal((await sessionOk(s, { action: 'pause', name: 'p' })).session.state, 'paused');
  const resumed = (await sessionOk(s, { action: 'resume', name: 'p' })).session;
  assert.equal(resumed.state, 'active');
  const r = await sexecOk(s, 'p', 'print(x)');
  assert.equal(r.stdout, '42\n');
  assert.equal(r.stateKept, true);
  assert.equal(r.freshState, false);
  // A busy session cannot be paused. The call runs until the test lets
  // it end, so the session is surely busy when the pause comes.
  const busy = sexecOk(s, 'p', `${pyUntilFile('/work/go')}print("slept")`, HELD);
  await waitState(s, 'p', 'busy');
  assert.equal((await sessionErr(s, { action: 'pause', name: 'p' })).code, 'session_busy');
  await releaseFile(c, '/work/go');
  assert.equal((await busy).stdout, 'slept\n');
});

// ---- one call at a time ----

e2e('calls in one session run in order: the second waits for the first', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start(PYTHON);
  await createSession(s, 'python', { name: 'q' });
  await waitActive(s, 'q');
  // The first call runs until the test lets it end (a file it creates in
  // the container), so it is surely still running while the test looks.
  const [c] = await sessionContainers({ dir: st.dir });
  const first = sexec(
    s,
    'q',
    'import os, time\nwith open("/work/order.txt", "a") as f:\n    f.write("first-start\\n")\nwhile not os.path.exists("/work/go"):\n    time.sleep(0.05)\nwith open("/work/order.txt", "a") as f:\n    f.write("first-end\\n")\nprint("first")',
  );
  await waitState(s, 'q', 'busy');
  const second = sexec(s, 'q', 'print(open("/work/order.txt").read(), end="")\nprint("second")');
  // While the first runs, the second is queued.
  await waitQueued(s, 'q', 1);
  const mid = (await sessionOk(s, { action: 'get', name: 'q' })).session;
  assert.equal(mid.state, 'busy');
  assert.equal(mid.queued, 1);
  await releaseFile(c, '/work/go');
  const [r1, r2] = await Promise.all([first, second]);
  assert.equal(r1.stdout, 'first\n');
  assert.equal(r2.stdout, 'first-start\nfirst-end\nsecond\n', 'the second call ran after the first had finished');
  const end = (await sessionOk(s, { action: 'get', name: 'q' })).session;
  assert.equal(end.queued, 0);
  assert.equal(end.executions, 2);
  // Time spent waiting in the queue does not count against the timeout:
  // a call with a 1 s timeout waits behind one the test holds until the
  // waiting call has been in the queue for longer than its timeout.
  const long = sexecOk(s, 'q', pyUntilFile('/work/go-long'), HELD);
  await waitState(s, 'q', 'busy');
  const sent = Date.now();
  const waiting = sexecOk(s, 'q', 'print("in time")', { timeout: 1000 });
  await waitQueued(s, 'q', 1);
  const queuedAt = Date.now();
  // Elapsed time is what is under test here, so the test watches the
  // clock; the call must stay queued all along (a call never re-enters
  // the queue, so seeing it there now means it has been there since).
  await waitFor(
    async () => {
      const q = (await sessionOk(s, { action: 'get', name: 'q' })).session;
      assert.equal(q.queued, 1, 'the call with a 1 s timeout is still queued');
      return Date.now() - queuedAt >= 1500;
    },
    { intervalMs: 100, what: 'the queued call to outwait its 1 s timeout in the queue' },
  );
  await releaseFile(c, '/work/go-long');
  const waited = await waiting;
  assert.ok(Date.now() - sent >= 1500, 'the call came back after more than its timeout');
  assert.equal(waited.timedOut, false);
  assert.equal(waited.stdout, 'in time\n');
  await long;
});

e2e('max_queued 0: a second call while one runs gets session_busy', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start({ ...PYTHON, SANDBOX_SESSIONS_MAX_QUEUED: '0' });
  await createSession(s, 'python', { name: 'b' });
  await waitActive(s, 'b');
  // The first call runs until the test lets it end: it surely still runs
  // when the second comes.
  const c = await sessionContainer(st.dir, 'b');
  const first = sexec(s, 'b', `${pyUntilFile('/work/go')}print("first done")`, HELD);
  await waitState(s, 'b', 'busy');
  const e = await sexecErr(s, 'b', 'print("second")');
  assert.equal(e.code, 'session_busy');
  assert.match(e.message, /\bb\b/, 'the message names the session');
  await releaseFile(c, '/work/go');
  const r1 = await first;
  assert.equal(r1.stdout, 'first done\n');
  // Free again.
  assert.equal((await sexecOk(s, 'b', 'print("third")')).stdout, 'third\n');
});

e2e('max_queued 0: the first call right after create is not refused because the interpreter is starting', { timeoutMs: 120_000 }, async (h) => {
  // create answers before the interpreter is up (docs/sessions.md: "a call
  // that arrives before it is ready waits for it"); the server's own
  // start-up work is not a call of the user's that fills the queue.
  const st = withStateDir(h);
  const s = await st.start({ ...PYTHON, SANDBOX_SESSIONS_MAX_QUEUED: '0' });
  await createSession(s, 'python', { name: 'early' });
  const r = await sexecOk(s, 'early', 'print("first")');
  assert.equal(r.stdout, 'first\n');
});

e2e('different sessions run in parallel', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start({ ...PYTHON, SANDBOX_PYTHON_POOL_SIZE: '2' });
  await createSession(s, 'python', { name: 'par1' });
  await createSession(s, 'python', { name: 'par2' });
  await waitActive(s, 'par1');
  await waitActive(s, 'par2');
  // Each call runs until the test lets it end, which it does once both
  // have started: had the second to wait for the first, it would never
  // start and the wait would fail.
  const c1 = await sessionContainer(st.dir, 'par1');
  const c2 = await sessionContainer(st.dir, 'par2');
  const code = `import time\nt0 = time.time()\nprint("started", flush=True)\n${pyUntilFile('/work/go')}print(t0, time.time())`;
  const out1 = progressText();
  const out2 = progressText();
  const calls = Promise.all([
    sexecOk(s, 'par1', code, { ...HELD, onprogress: out1.onprogress }),
    sexecOk(s, 'par2', code, { ...HELD, onprogress: out2.onprogress }),
  ]);
  await out1.until(/^started$/m, 'the call in par1 to start', { timeoutMs: 60_000 });
  await out2.until(/^started$/m, 'the call in par2 to start while the one in par1 runs', { timeoutMs: 60_000 });
  await releaseFile(c1, '/work/go');
  await releaseFile(c2, '/work/go');
  const [a, b] = await calls;
  const [as, ae] = a.stdout.trim().split('\n').pop().split(' ').map(Number);
  const [bs, be] = b.stdout.trim().split('\n').pop().split(' ').map(Number);
  assert.ok(Math.max(as, bs) < Math.min(ae, be), `the calls overlapped: ${a.stdout} / ${b.stdout}`);
});

e2e('destroy of a busy session ends its running and queued calls with session_destroyed', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start(PYTHON);
  await createSession(s, 'python', { name: 'doomed' });
  await waitActive(s, 'doomed');
  const running = sessionExecCall(s, 'doomed', 'import time\nprint("started", flush=True)\ntime.sleep(60)');
  await waitState(s, 'doomed', 'busy');
  const queued = sessionExecCall(s, 'doomed', 'print("never")');
  await waitQueued(s, 'doomed', 1);
  assert.deepEqual(await sessionOk(s, { action: 'destroy', name: 'doomed' }), { destroyed: 'doomed' });
  // Ended by the destroy, not by the code: a finished sleep(60) would be
  // a result, not session_destroyed.
  const [r1, r2] = await Promise.all([running, queued]);
  assert.equal(toolError(r1).code, 'session_destroyed');
  assert.equal(toolError(r2).code, 'session_destroyed');
  assert.equal((await sessionErr(s, { action: 'get', name: 'doomed' })).code, 'session_not_found');
  const removed = await eventually(async () => (await sessionContainers({ dir: st.dir })).length === 0, {
    timeoutMs: 20_000,
  });
  assert.ok(removed, 'the container is removed');
  // The name can be used again.
  await createSession(s, 'python', { name: 'doomed' });
  assert.equal((await sexecOk(s, 'doomed', 'print("reborn")')).stdout, 'reborn\n');
});

// ---- timeouts ----

e2e('timeout in a session interrupts the code and keeps the state', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start(PYTHON);
  await createSession(s, 'python', { name: 't' });
  await sexecOk(s, 't', 'x = 42');
  const r = await sexec(s, 't', 'import time\nprint("sleeping", flush=True)\ntime.sleep(30)', { timeout: 1000 });
  assert.equal(r.timedOut, true);
  assert.equal(r.signal, 'SIGINT');
  assert.equal(r.stateKept, true);
  assert.equal(r.stdout, 'sleeping\n', 'output before the interrupt is kept');
  assert.match(r.stderr, /KeyboardInterrupt/);
  const next = await sexecOk(s, 't', 'print(x)');
  assert.equal(next.stdout, '42\n');
  assert.equal(next.freshState, false);
  assert.equal(next.stateKept, true);
});

e2e('timeout in a session: code that ignores the interrupt is killed; state lost, files kept', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start(PYTHON);
  await createSession(s, 'python', { name: 'k' });
  await sexecOk(s, 'k', 'x = 42\nwith open("/work/keep.txt", "w") as f:\n    f.write("kept")');
  const stubborn =
    'import time\nprint("stubborn", flush=True)\nwhile True:\n    try:\n        time.sleep(10)\n    except KeyboardInterrupt:\n        pass\n';
  const t0 = Date.now();
  const r = await sexec(s, 'k', stubborn, { timeout: 1000 });
  const wall = Date.now() - t0;
  assert.equal(r.timedOut, true);
  assert.equal(r.signal, 'SIGKILL');
  assert.equal(r.stateKept, false);
  assert.equal(r.stdout, 'stubborn\n');
  assert.match(r.stderr, /KeyboardInterrupt|^$/, 'nothing but the interrupt on stderr');
  // durationMs counts up to the interrupt; the call itself took the grace too.
  assert.ok(r.durationMs >= 1000, `durationMs ${r.durationMs}`);
  assert.ok(wall >= 1900, `the call came back after ${wall} ms: timeout 1 s + grace 1 s`);
  const next = await sexec(s, 'k', 'print(open("/work/keep.txt").read())\nprint(x)');
  assert.equal(next.freshState, true, 'a new interpreter');
  assert.equal(next.stdout, 'kept\n', 'files in /work survive');
  assert.equal(next.exitCode, 1);
  assert.match(next.stderr, /NameError: name 'x' is not defined/);
  // The new interpreter keeps state from here on.
  await sexecOk(s, 'k', 'z = 7');
  const later = await sexecOk(s, 'k', 'print(z)');
  assert.equal(later.stdout, '7\n');
  assert.equal(later.freshState, false);
});

e2e('interrupt_grace_ms is configurable', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start({ ...PYTHON, SANDBOX_SESSIONS_INTERRUPT_GRACE_MS: '3000' });
  await createSession(s, 'python', { name: 'g' });
  const stubborn = 'import time\nwhile True:\n    try:\n        time.sleep(10)\n    except KeyboardInterrupt:\n        pass\n';
  const t0 = Date.now();
  const r = await sexec(s, 'g', stubborn, { timeout: 500 });
  const wall = Date.now() - t0;
  assert.equal(r.signal, 'SIGKILL');
  assert.equal(r.stateKept, false);
  assert.ok(wall >= 3300, `the call came back after ${wall} ms: timeout 0.5 s + grace 3 s`);
});

// ---- nothing outlives a call ----

e2e('a daemonized child (setsid nohup) is killed when the call times out', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start(BASH);
  await createSession(s, 'bash', { name: 'd' });
  const r = await sexec(
    s,
    'd',
    "setsid nohup sh -c 'while :; do date +%s%N >> /work/tick; sleep 0.1; done' >/dev/null 2>&1 &\n" +
      'until [ -s /work/tick ]; do sleep 0.05; done; echo "ticks $(wc -l < /work/tick)"\nsleep 30',
    { timeout: 1500 },
  );
  assert.equal(r.timedOut, true);
  assert.equal(r.signal, 'SIGINT', 'the interrupt was enough for bash');
  assert.equal(r.stateKept, true);
  assert.match(r.stdout, /^ticks [1-9]\d*\n$/, 'the daemon was running');
  const check = await sexecOk(
    s,
    'd',
    'a=$(wc -l < /work/tick); sleep 1; b=$(wc -l < /work/tick); echo "$a $b"\n' +
      'echo "--- ps ---"; ps -eo pid=,args= | grep -F /work/tick | grep -v grep || true\n' +
      'echo "--- proc ---"; for p in /proc/[0-9]*; do tr "\\0" " " < $p/cmdline 2>/dev/null | grep -F /work/tick; done; true',
  );
  const [line, rest] = check.stdout.split('--- ps ---\n');
  const [a, b] = line.trim().split(' ').map(Number);
  assert.ok(a > 0 && a === b, `the tick file stopped growing: ${line.trim()}`);
  assert.equal(rest, '--- proc ---\n', `no such process is left:\n${check.stdout}`);
  assert.equal(check.freshState, false);
});

e2e('a double-forked python daemon is gone after its call ends normally', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start(PYTHON);
  await createSession(s, 'python', { name: 'df' });
  const r = await sexecOk(
    s,
    'df',
    [
      'import os, time',
      'if os.fork() == 0:',
      '    os.setsid()',
      '    if os.fork() == 0:',
      '        null = os.open("/dev/null", os.O_RDWR)',
      '        for fd in (0, 1, 2):',
      '            os.dup2(null, fd)',
      '        while True:',
      '            with open("/work/tick", "a") as f:',
      '                f.write("t\\n")',
      '            time.sleep(0.1)',
      '    os._exit(0)',
      'deadline = time.time() + 20',
      'while time.time() < deadline and not (os.path.exists("/work/tick") and os.path.getsize("/work/tick")):',
      '    time.sleep(0.05)',
      'print(len(open("/work/tick").readlines()) > 0)',
      'kept = "yes"',
    ].join('\n'),
  );
  assert.equal(r.stdout, 'True\n', 'the daemon was running');
  const check = await sexecOk(
    s,
    'df',
    [
      'import os, time',
      'a = len(open("/work/tick").readlines()); time.sleep(1); b = len(open("/work/tick").readlines())',
      'others = []',
      'for pid in os.listdir("/proc"):',
      '    if pid.isdigit() and int(pid) != os.getpid():',
      '        try:',
      '            st = open(f"/proc/{pid}/status").read()',
      '        except OSError:',
      '            continue',
      '        f = dict(l.split(":\\t", 1) for l in st.splitlines() if ":\\t" in l)',
      '        if f["Uid"].split()[0] == "1000":',
      '            others.append((pid, f["Name"], f["State"].split()[0], f["PPid"]))',
      'print(a == b, a > 0, kept)',
      'print("live", [p for p in others if p[2] != "Z"])',
      'print("zombies", [p for p in others if p[2] == "Z"])',
    ].join('\n'),
  );
  const [first, live, zombies] = check.stdout.trim().split('\n');
  assert.equal(first, 'True True yes', 'the tick file stopped growing; the state is kept');
  // The interpreter itself is this process (os.getpid()), so no other
  // process of the sandbox user may remain: neither the daemon...
  assert.equal(live, 'live []', 'no process the last call started is alive');
  // ...nor the intermediate child, which exited without being waited for:
  // in a one-off run it would go with its parent; in a session its parent
  // is the interpreter, which lives on.
  assert.equal(zombies, 'zombies []', 'no zombie of the last call is left in the process table');
});

// ---- cancellation ----

// Sleeps a minute, noting in the session whether it was interrupted.
const NOTES_INTERRUPT =
  'import time\ntry:\n    print("started", flush=True)\n    time.sleep(60)\nexcept KeyboardInterrupt:\n    interrupted = True\n    raise';

e2e('cancelling a session call interrupts it and the session is usable at once, state kept', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start(PYTHON);
  await createSession(s, 'python', { name: 'c' });
  await sexecOk(s, 'c', 'x = 42');
  const abort = new AbortController();
  const out = progressText();
  const call = sessionExecCall(s, 'c', NOTES_INTERRUPT, { signal: abort.signal, onprogress: out.onprogress });
  await out.until(/^started$/m, 'the code printing "started"', { timeoutMs: 60_000 });
  abort.abort('changed my mind');
  await assert.rejects(call); // the SDK sends notifications/cancelled
  // Interrupted, not left to finish its sleep(60) (then `interrupted`
  // would not exist).
  const r = await sexecOk(s, 'c', 'print(x, interrupted)');
  assert.equal(r.stdout, '42 True\n');
  assert.equal(r.freshState, false, 'the interpreter survived the cancellation');
  const info = (await sessionOk(s, { action: 'get', name: 'c' })).session;
  assert.equal(info.state, 'active');
  assert.equal(info.queued, 0);
});

e2e('cancelling a one-off call stops it; the server keeps serving', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start({ ...PYTHON, SANDBOX_POOL_MAX_CONTAINERS: '1' });
  const abort = new AbortController();
  const out = progressText();
  // Sleeps past the test's deadline: only a stopped call frees the
  // container for the next one in time.
  const call = s.client.callTool(
    { name: 'sandbox_execute', arguments: { language: 'python', code: 'import time\nprint("started", flush=True)\ntime.sleep(600)' } },
    undefined,
    { signal: abort.signal, timeout: 90_000, onprogress: out.onprogress },
  );
  await out.until(/^started$/m, 'the code printing "started"', { timeoutMs: 60_000 });
  abort.abort('changed my mind');
  await assert.rejects(call);
  // The only container allowed is free again.
  const r = await s.execute('python', 'print("next")', { requestTimeoutMs: 90_000 });
  assert.equal(r.stdout, 'next\n');
});

// ---- progress ----

const TICKER = 'import time\nfor i in range(8):\n    print(f"line {i}", flush=True)\n    time.sleep(0.2)\n';
const TICKER_OUT = Array.from({ length: 8 }, (_, i) => `line ${i}\n`).join('');

function checkProgress(events, final) {
  assert.ok(events.length >= 2, `at least 2 progress notifications, got ${events.length}: ${JSON.stringify(events)}`);
  for (let i = 1; i < events.length; i++)
    assert.ok(events[i].progress > events[i - 1].progress, `progress increases: ${JSON.stringify(events)}`);
  assert.ok(events.every((e) => e.beforeResult), 'every notification came before the result');
  const text = events.map((e) => e.message ?? '').join('');
  assert.match(text, /line 0\n/, `messages carry the output: ${JSON.stringify(text)}`);
  assert.match(text, /line 1\n/, `messages carry the output: ${JSON.stringify(text)}`);
  assert.ok(TICKER_OUT.startsWith(text), `messages are the output, in order, each part once: ${JSON.stringify(text)}`);
  assert.equal(final.stdout, TICKER_OUT, 'the final result is complete');
}

async function withProgress(callFn) {
  const events = [];
  let resolved = false;
  const onprogress = (p) => events.push({ ...p, beforeResult: !resolved });
  const r = await callFn(onprogress);
  resolved = true;
  return { r, events };
}

e2e('progress notifications stream the output of a one-off call before its result', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start(PYTHON);
  const { r, events } = await withProgress((onprogress) =>
    s.client.callTool({ name: 'sandbox_execute', arguments: { language: 'python', code: TICKER } }, undefined, {
      onprogress,
      timeout: 60_000,
    }),
  );
  assert.equal(r.isError ?? false, false, r.content?.[0]?.text);
  checkProgress(events, runResult(r));
});

e2e('progress notifications stream the output of a session call; a silent call gets heartbeats', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start(PYTHON);
  await createSession(s, 'python', { name: 'prog' });
  await waitActive(s, 'prog');
  const { r, events } = await withProgress((onprogress) => sessionExecCall(s, 'prog', TICKER, { onprogress }));
  checkProgress(events, sessionResult(r, 'prog'));
  // No output: heartbeats every second. The call stays silent until the
  // test has seen two of them and lets it end.
  const c = await sessionContainer(st.dir, 'prog');
  const heard = [];
  const quietCall = withProgress((onprogress) =>
    sessionExecCall(s, 'prog', `${pyUntilFile('/work/go')}print("done")`, {
      ...HELD,
      onprogress: (p) => {
        heard.push(p);
        onprogress(p);
      },
    }),
  );
  await waitFor(() => heard.length >= 2, { intervalMs: 50, timeoutMs: 30_000, what: 'two heartbeats of a silent call' });
  await releaseFile(c, '/work/go');
  const quiet = await quietCall;
  assert.equal(sessionResult(quiet.r, 'prog').stdout, 'done\n');
  assert.ok(quiet.events.length >= 2, `heartbeats: ${JSON.stringify(quiet.events)}`);
  for (let i = 1; i < quiet.events.length; i++) assert.ok(quiet.events[i].progress > quiet.events[i - 1].progress);
  // progress is the time since the call started (ms): heartbeats come a
  // second apart, and carry no output while the code prints none.
  for (const [i, e] of heard.slice(0, 2).entries()) {
    assert.ok(e.progress >= 1000 * (i + 1), `heartbeat ${i} at ${e.progress} ms`);
    assert.ok(!e.message, `a heartbeat carries no output: ${JSON.stringify(e)}`);
  }
});

// ---- isolation ----

e2e('sessions are isolated: files, processes and network', { timeoutMs: 150_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start({ SANDBOX_POOL_SIZE: '1' });
  await createSession(s, 'bash', { name: 'A' });
  await createSession(s, 'python', { name: 'B' });
  await waitActive(s, 'A');
  await waitActive(s, 'B');
  await sexecOk(s, 'A', 'echo secret > /work/secret-of-A.txt; cat /etc/hostname');
  // A runs a recognisable sleeper while B looks around: A's call counts
  // it once it runs, then waits for the test to let it end (after B has
  // looked) and counts it again, so B surely looked while it ran.
  const cA = await sessionContainer(st.dir, 'A');
  const aOut = progressText();
  const count = 'ps -eo args= | grep -c "^sleep 20.123"';
  const aCall = sexec(
    s,
    'A',
    'sleep 20.123 &\n' +
      `until ${count} >/dev/null; do sleep 0.05; done\n` +
      `${count}\n${shUntilFile('/work/go')}${count}`,
    { ...HELD, onprogress: aOut.onprogress },
  );
  await aOut.until(/^1$/m, "A's count of its sleeper (it runs)", { timeoutMs: 60_000 });
  // This machine's Docker bridge gateway: the one address tried.
  const gw = await bridgeGateway();
  const b = await sexecOk(
    s,
    'B',
    [
      'import os, socket, subprocess',
      'print("files", sorted(os.listdir("/work")), os.path.exists("/work/secret-of-A.txt"))',
      'cmds = []',
      'for pid in os.listdir("/proc"):',
      '    if pid.isdigit():',
      '        try:',
      '            cmds.append(open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\\0", b" ").decode())',
      '        except OSError:',
      '            pass',
      'print("proc", any("20.123" in c for c in cmds))',
      'ps = subprocess.run(["ps", "-eo", "args="], capture_output=True, text=True).stdout',
      'print("ps", "20.123" in ps)',
      'try:',
      `    socket.create_connection(("${gw}", 2375), timeout=3).close()`,
      '    print("net open")',
      'except OSError as e:',
      '    print("net closed")',
      'print("ifaces", sorted(os.listdir("/sys/class/net")))',
    ].join('\n'),
  );
  await releaseFile(cA, '/work/go');
  const a = await aCall;
  assert.equal(a.timedOut, false, 'A\'s call ran until the test let it end');
  assert.equal(a.stdout, '1\n1\n', 'A\'s sleeper was running, before and after B looked (A sees it)');
  const lines = b.stdout.trim().split('\n');
  assert.ok(lines[0].startsWith('files ') && lines[0].endsWith(' False'), `B cannot see A's file: ${lines[0]}`);
  assert.doesNotMatch(lines[0], /secret/);
  assert.equal(lines[1], 'proc False', "B's /proc does not show A's process");
  assert.equal(lines[2], 'ps False', "B's ps does not show A's process");
  assert.equal(lines[3], 'net closed', 'no network');
  assert.equal(lines[4], "ifaces ['lo']", 'only loopback');
  // And the other way round: A does not see B's files.
  await sexecOk(s, 'B', 'open("/work/secret-of-B.txt", "w").write("b")');
  const aLook = await sexecOk(s, 'A', 'ls -A /work');
  assert.match(aLook.stdout, /secret-of-A\.txt/);
  assert.doesNotMatch(aLook.stdout, /secret-of-B/);
});
