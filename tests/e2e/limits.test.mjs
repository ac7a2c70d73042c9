// Limits a user runs into: the timeout (and what it leaves behind) and the
// output caps, plus output that is not text.
import assert from 'node:assert/strict';
import { e2e } from './lib/server.mjs';
import { containerOf, section } from './lib/sandbox.mjs';
import { progressText } from './lib/wait.mjs';

// One container in all, for bash: the next call must reuse it (after reset).
const ONE_BASH_CONTAINER = {
  SANDBOX_POOL_MAX_CONTAINERS: '1',
  SANDBOX_PYTHON_POOL_SIZE: '0',
  SANDBOX_BASH_POOL_SIZE: '1',
};

e2e('timeout kills the code and every process it started, keeping partial output', { timeoutMs: 90_000 }, async (h) => {
  const s = await h.start({ env: ONE_BASH_CONTAINER });
  const code = [
    'echo "host $(cat /etc/hostname)"',
    'echo "before the sleep"',
    'setsid nohup sleep 300 >/dev/null 2>&1 &',
    'sleep 300',
    'echo "after the sleep"',
  ].join('\n');
  // Had the timeout not been honoured, the call would run for 300 s and
  // the test's deadline fail it; how fast the kill comes is bench/'s.
  const r = await s.execute('bash', code, { timeout: 1000 });
  assert.equal(r.timedOut, true);
  assert.notEqual(r.exitCode, 0, 'a killed program did not succeed');
  assert.match(r.stdout, /^host [0-9a-f]{12}\nbefore the sleep\n$/, 'output printed before the kill is kept');
  assert.ok(r.durationMs >= 1000, `durationMs ${r.durationMs} >= the timeout`);
  const host1 = /^host (\w+)/.exec(r.stdout)[1];
  const id1 = await containerOf(s, host1);

  // Same container (the only one allowed): nothing of the last call runs.
  const after = await s.execute('bash', 'cat /etc/hostname; echo "--- ps ---"; ps -eo user:12,pid,comm');
  assert.equal(after.exitCode, 0, after.stderr);
  const host2 = after.stdout.split('\n')[0];
  assert.equal(host2, host1, 'the second call ran in the same container');
  assert.equal(await containerOf(s, host2), id1);
  const procs = section(after.stdout, 'ps').trim().split('\n').slice(1);
  const sleeps = procs.filter((l) => /\bsleep$/.test(l.trim()));
  assert.deepEqual(sleeps, [], `processes left from the timed-out call:\n${procs.join('\n')}`);
});

e2e('python: timeout keeps output flushed before the kill', {}, async (h) => {
  const s = await h.start({ env: { SANDBOX_BASH_POOL_SIZE: '0' } });
  const r = await s.execute('python', 'import time\nprint("started", flush=True)\ntime.sleep(60)\nprint("never")', {
    timeout: 1500,
  });
  assert.equal(r.timedOut, true);
  assert.equal(r.stdout, 'started\n');
  assert.notEqual(r.exitCode, 0);
});

// Bytes `seq 1 n` writes.
function seqBytes(n) {
  let total = 0;
  for (let i = 1; i <= n; i++) total += String(i).length + 1;
  return total;
}

const MARKER = /\n\.\.\. \[(\d+) bytes truncated\] \.\.\.\n/;

/** Checks a capped `seq 1 200000` and returns the parts around the marker. */
function assertCappedSeq(out, cap) {
  const total = seqBytes(200000);
  const m = MARKER.exec(out);
  assert.ok(m, `a truncation marker in the output (${out.length} chars)`);
  const head = out.slice(0, m.index);
  const tail = out.slice(m.index + m[0].length);
  assert.ok(head.startsWith('1\n2\n3\n4\n5\n'), 'the beginning is kept');
  assert.ok(tail.endsWith('199998\n199999\n200000\n'), 'the end is kept');
  assert.ok(Buffer.byteLength(out) <= cap, `${Buffer.byteLength(out)} bytes returned, cap ${cap}`);
  assert.ok(head.length + tail.length >= cap / 2, `most of the cap is used (${head.length} + ${tail.length})`);
  assert.equal(head.length + tail.length + Number(m[1]), total, 'kept + truncated bytes = bytes written');
  return { head, tail };
}

e2e('stdout over the cap keeps its beginning and end with a marker between, and says how to raise the cap', {}, async (h) => {
  // No result budget (result_max_tokens = 0): the capture as it is
  // (results.test.mjs has the budget).
  const s = await h.start({
    env: { SANDBOX_PYTHON_POOL_SIZE: '0', SANDBOX_LIMITS_STDOUT_CAP: '102400', SANDBOX_LIMITS_RESULT_MAX_TOKENS: '0' },
  });
  const r = await s.execute('bash', 'seq 1 200000; echo done >&2');
  assert.equal(r.exitCode, 0);
  assert.equal(r.stdoutTruncated, true);
  assert.equal(r.stderrTruncated, false);
  assert.equal(r.stderr, 'done\n');
  assertCappedSeq(r.stdout, 102400);
  assert.equal(r.stdoutBytes, seqBytes(200000));
  assert.equal('stdoutUri' in r, false, 'nothing more to read: the middle was never captured');
  assert.match(r.message, /stdout was \d+ bytes, over its capture cap of 102400: .* \(raise stdout_cap in sandbox\.ini's \[limits\] or \[bash\] section, or SANDBOX_BASH_STDOUT_CAP; at most 8388608\)/);
});

e2e('stderr over the cap likewise, with caps set through the environment', {}, async (h) => {
  const s = await h.start({
    env: { SANDBOX_PYTHON_POOL_SIZE: '0', SANDBOX_LIMITS_STDERR_CAP: '4096', SANDBOX_LIMITS_STDOUT_CAP: '2048' },
  });
  const r = await s.execute('bash', 'seq 1 200000 >&2; echo small');
  assert.equal(r.exitCode, 0);
  assert.equal(r.stderrTruncated, true);
  assert.equal(r.stdoutTruncated, false);
  assert.equal(r.stdout, 'small\n');
  assertCappedSeq(r.stderr, 4096);
  const big = await s.execute('bash', 'seq 1 200000');
  assert.equal(big.stdoutTruncated, true);
  assertCappedSeq(big.stdout, 2048);
});

e2e('binary and invalid UTF-8 output arrives as valid text with U+FFFD', {}, async (h) => {
  const s = await h.start({ env: { SANDBOX_PYTHON_POOL_SIZE: '0' } });
  const r = await s.execute('bash', "printf '\\xff\\xfe\\x00abc'; printf 'ok \\xc3\\xa9 \\xe2\\x82 end' >&2");
  assert.equal(r.exitCode, 0);
  // The SDK parsed the JSON; the invalid bytes became U+FFFD and the bytes
  // after them are still there.
  assert.match(r.stdout, /^\uFFFD\uFFFD[\u0000\uFFFD]abc$/);
  assert.match(r.stderr, /^ok é \uFFFD+ end$/);
});

e2e('cancelling a call kills its code and frees its container', { timeoutMs: 90_000 }, async (h) => {
  const s = await h.start({ env: ONE_BASH_CONTAINER });
  const abort = new AbortController();
  const out = progressText();
  const call = s.client.callTool(
    { name: 'sandbox_execute', arguments: { language: 'bash', code: 'echo started; sleep 300 & sleep 300' } },
    undefined,
    { signal: abort.signal, timeout: 60_000, onprogress: out.onprogress },
  );
  await out.until(/^started$/m, 'the code printing "started"', { timeoutMs: 60_000 });
  abort.abort('the user changed their mind');
  await assert.rejects(call); // the SDK sends notifications/cancelled
  // The only container is free again (else this call would wait for the
  // 300 s sleep, past the test's deadline), and nothing of the cancelled
  // code runs.
  const r = await s.execute('bash', 'ps -u 1000 -o comm=');
  assert.equal(r.exitCode, 0, r.stderr);
  assert.doesNotMatch(r.stdout, /^sleep$/m, `processes:\n${r.stdout}`);
  assert.deepEqual(await s.client.ping(), {});
});
