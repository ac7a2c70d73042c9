// sandbox_execute as a user meets it: programs that work, programs that
// fail (a normal result), and the host-side refusals (isError results).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { BIN, e2e, toolError } from './lib/server.mjs';

// Only python runs in most tests here: no warm bash container needed. Tests
// with the same settings share a server (h.shared).
const PYTHON_ONLY = { SANDBOX_BASH_POOL_SIZE: '0' };
const BASH_ONLY = { SANDBOX_PYTHON_POOL_SIZE: '0' };

e2e('python: print goes to stdout with exit code 0', {}, async (h) => {
  const s = await h.shared({ env: PYTHON_ONLY });
  const r = await s.execute('python', 'import sys\nprint("hello from python", sys.version_info[0])\n');
  assert.equal(r.stdout, 'hello from python 3\n');
  assert.equal(r.stderr, '');
  assert.equal(r.exitCode, 0);
  assert.equal(r.signal, null);
  assert.equal(r.timedOut, false);
  assert.equal(r.stdoutTruncated, false);
  assert.equal(r.stderrTruncated, false);
  assert.equal(r.language, 'python');
  assert.equal(r.phase, 'run');
  assert.ok(Number.isInteger(r.durationMs) && r.durationMs >= 0, `durationMs ${r.durationMs}`);
});

e2e('python: an uncaught exception is a normal result with exit 1 and the traceback in stderr', {}, async (h) => {
  const s = await h.shared({ env: PYTHON_ONLY });
  const code = 'print("before the error", flush=True)\ndef f():\n    raise ValueError("boom 42")\nf()\n';
  const r = await s.execute('python', code); // asserts isError false
  assert.equal(r.exitCode, 1);
  assert.equal(r.signal, null);
  assert.equal(r.timedOut, false);
  assert.equal(r.stdout, 'before the error\n');
  assert.match(r.stderr, /^Traceback \(most recent call last\):/);
  assert.match(r.stderr, /line 3, in f/);
  assert.match(r.stderr, /ValueError: boom 42\n$/);
});

e2e('bash: exit code, stdout and stderr come back separately', {}, async (h) => {
  const s = await h.start({ env: BASH_ONLY });
  const r = await s.execute('bash', 'echo out; echo err >&2; exit 3');
  assert.equal(r.exitCode, 3);
  assert.equal(r.signal, null);
  assert.equal(r.stdout, 'out\n');
  assert.equal(r.stderr, 'err\n');
  assert.equal(r.timedOut, false);
  assert.equal(r.language, 'bash');
});

e2e('aliases py, python3, sh and shell run the right interpreter', {}, async (h) => {
  const s = await h.start();
  for (const alias of ['py', 'python3']) {
    const r = await s.execute(alias, 'import sys; print(sys.implementation.name)');
    assert.equal(r.stdout, 'cpython\n', `alias ${alias}`);
    assert.equal(r.language, 'python', `alias ${alias}`);
  }
  for (const alias of ['sh', 'shell']) {
    const r = await s.execute(alias, 'echo "bash ${BASH_VERSINFO[0]}"');
    assert.match(r.stdout, /^bash \d+\n$/, `alias ${alias}`);
    assert.equal(r.language, 'bash', `alias ${alias}`);
  }
});

e2e('1 MiB of code runs', {}, async (h) => {
  const s = await h.shared({ env: PYTHON_ONLY });
  const comment = `# ${'x'.repeat(1024 * 1024)}\n`;
  const r = await s.execute('python', `${comment}print("after a 1 MiB comment")\n`);
  assert.equal(r.exitCode, 0, r.stderr);
  assert.equal(r.stdout, 'after a 1 MiB comment\n');
});

e2e('code over max_code_bytes is refused with code_too_large', {}, async (h) => {
  const s = await h.start({ env: { ...PYTHON_ONLY, SANDBOX_LIMITS_MAX_CODE_BYTES: '65536' } });
  const code = `# ${'y'.repeat(100 * 1024)}\nprint("must not run")\n`;
  const err = toolError(await s.call({ language: 'python', code }));
  assert.equal(err.code, 'code_too_large');
  assert.match(err.message, /65536/, 'the message names the limit');
  // Just under the limit still runs.
  const ok = await s.execute('python', `# ${'y'.repeat(60 * 1024)}\nprint("ran")\n`);
  assert.equal(ok.stdout, 'ran\n');
});

// Refusals below happen before any container is involved, so they need no
// Docker engine; the pool is off so the server does not start any.
const NO_POOL = { SANDBOX_POOL_SIZE: '0' };

e2e('an unknown language is refused with unknown_language and the list of languages', { docker: false }, async (h) => {
  const s = await h.shared({ env: NO_POOL });
  const err = toolError(await s.call({ language: 'cobol', code: 'DISPLAY "HI".' }));
  assert.equal(err.code, 'unknown_language');
  assert.match(err.message, /cobol/);
  assert.match(err.message, /python/);
  assert.match(err.message, /bash/);
});

e2e('arguments of the wrong type are refused with invalid_arguments', { docker: false }, async (h) => {
  const s = await h.shared({ env: NO_POOL });
  const cases = [
    [{ language: 'python', code: 42 }, /code/],
    [{ language: 7, code: 'print(1)' }, /language/],
    [{ language: 'python' }, /code/],
    [{ code: 'print(1)' }, /language/],
    [{ language: 'python', code: 'print(1)', timeout: 'soon' }, /timeout/],
    [{ language: 'python', code: 'print(1)', timeout: -5 }, /timeout/],
    [{ language: 'python', code: 'print(1)', colour: 'blue' }, /colour/],
    [{ language: 'python', code: 'print(1)', stdin: 5 }, /stdin/],
    [{ language: 'python', code: 'print(1)', optimize: true }, /optimize/],
  ];
  for (const [args, names] of cases) {
    const err = toolError(await s.call(args));
    assert.equal(err.code, 'invalid_arguments', `arguments ${JSON.stringify(args)}: ${err.message}`);
    assert.match(err.message, names, `arguments ${JSON.stringify(args)}: the message names the field`);
  }
});

e2e('an unknown tool is a JSON-RPC error -32602', { docker: false }, async (h) => {
  const s = await h.shared({ env: NO_POOL });
  await assert.rejects(
    s.client.callTool({ name: 'no_such_tool', arguments: {} }),
    (e) => {
      assert.ok(e instanceof McpError, `expected McpError, got ${e}`);
      assert.equal(e.code, -32602);
      assert.match(e.message, /no_such_tool/);
      return true;
    },
  );
  // The server is still there.
  assert.deepEqual(await s.client.ping(), {});
});

e2e('a missing image gives image_missing naming scripts/build-images.sh', {}, async (h) => {
  const s = await h.start({ env: { SANDBOX_BASH_IMAGE: 'mcp-sandbox/does-not-exist:latest' } });
  const err = toolError(await s.call({ language: 'bash', code: 'echo hi' }));
  assert.equal(err.code, 'image_missing');
  assert.match(err.message, /mcp-sandbox\/does-not-exist:latest/);
  assert.match(err.message, /scripts\/build-images\.sh/);
  // Other languages are not affected.
  const r = await s.execute('python', 'print("python still works")');
  assert.equal(r.stdout, 'python still works\n');
});

e2e('an unreachable Docker engine gives docker_unavailable', { docker: false }, async (h) => {
  const s = await h.start({ env: { SANDBOX_DOCKER_HOST: 'unix:///nonexistent.sock' } });
  const err = toolError(await s.call({ language: 'bash', code: 'echo hi' }));
  assert.equal(err.code, 'docker_unavailable');
  assert.match(err.message, /nonexistent\.sock/, 'the message says where Docker was looked for');
});

e2e('stdin feeds the program; without it the program reads EOF', {}, async (h) => {
  const s = await h.shared({ env: NO_POOL });
  const r = await s.execute('python', 'import sys\nprint(sys.stdin.read().upper(), end="")', { stdin: 'hello\nworld\n' });
  assert.equal(r.stdout, 'HELLO\nWORLD\n');
  const sh = await s.execute('bash', 'read -r a; read -r b; echo "$b $a"', { stdin: 'one\ntwo\n' });
  assert.equal(sh.stdout, 'two one\n');
  const none = await s.execute('bash', 'cat; echo "rc=$?"');
  assert.equal(none.stdout, 'rc=0\n');
});

// main.c re-executes the server once (through /proc/self/exe, so that
// GnuTLS skips its start-up): the process keeps the name it was started
// under, so ps, top and `pgrep -x mcp-sandbox` find it.
e2e('the server is named mcp-sandbox in ps, not "exe" after its re-exec', {}, async (h) => {
  const s = await h.shared({ env: PYTHON_ONLY });
  assert.equal(fs.readFileSync(`/proc/${s.pid}/comm`, 'utf8'), 'mcp-sandbox\n');
  assert.equal(fs.readlinkSync(`/proc/${s.pid}/exe`), fs.realpathSync(BIN), 'the re-exec ran this binary');
  const found = execFileSync('pgrep', ['-x', 'mcp-sandbox'], { encoding: 'utf8' }).split('\n');
  assert.ok(found.includes(String(s.pid)), `pgrep -x mcp-sandbox: ${found.join(' ')}`);
});
