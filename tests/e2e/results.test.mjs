// Results that fit Claude Code, and nothing lost: a chatty program's
// result stays under the text budget ([limits] result_max_tokens, 10 000
// tokens counted as 2 bytes each) with the beginning and end of each
// stream, and the whole streams are kept as resources (stdoutUri,
// stderrUri) that sandbox_file_ops read and resources/read give back byte
// for byte, one-off and in a session. A client here applies Claude
// Code's rule to every result it gets.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { BIN, e2e, runResult, serverEnv } from './lib/server.mjs';
import { fopOk } from './lib/files.mjs';
import { BUDGET, CLAUDE_CODE_LIMIT, assertClaudeCodeTakes } from './lib/claude_code.mjs';
import { createSession, waitActive, withStateDir } from './lib/sessions.mjs';

// The streams of the chatty program, byte for byte: quotes, backslashes,
// tabs, a control character (6 bytes as \u0001), é, € and an emoji on
// every line, and on stderr a byte that is not UTF-8.
function outLine(i) {
  return Buffer.from(`${String(i).padStart(6, '0')} "quoted" back\\slash\ttab \u0001 é € 😀 ${'x'.repeat(i % 17)}\n`, 'utf8');
}
function errLine(i) {
  return Buffer.concat([Buffer.from(`warning ${i}: `), Buffer.from([0xff]), Buffer.from(` ${'y'.repeat(i % 23)}\n`)]);
}
function stream(line, bytes) {
  const parts = [];
  let n = 0;
  for (let i = 0; n < bytes; i++) {
    const l = line(i);
    parts.push(l);
    n += l.length;
  }
  return Buffer.concat(parts);
}
// The same bytes written by python.
const CHATTY_PY = (outBytes, errBytes) => `
import sys
def out(i):
    return ('%06d "quoted" back\\\\slash\\ttab \\x01 \u00e9 \u20ac \\U0001F600 %s\\n' % (i, 'x' * (i % 17))).encode()
def err(i):
    return b'warning %d: \\xff %s\\n' % (i, b'y' * (i % 23))
for f, line, want in ((sys.stdout.buffer, out, ${outBytes}), (sys.stderr.buffer, err, ${errBytes})):
    n = i = 0
    while n < want:
        b = line(i)
        f.write(b)
        n += len(b)
        i += 1
    f.flush()
`;

const MARKER = /\n\.\.\. \[(\d+) bytes truncated from byte (\d+); read them at (stdoutUri|stderrUri)\] \.\.\.\n/;

/** What utf8_sanitize makes of bytes: each byte that is not UTF-8 (a lone 0xff here) as U+FFFD. */
function asText(buf) {
  return new TextDecoder('utf-8', { fatal: false }).decode(buf);
}

/** Checks a cut stream's text against its bytes: beginning, marker, end. */
function assertHeadAndTail(text, bytes, field) {
  const m = MARKER.exec(text);
  assert.ok(m, `a marker in ${field}: ${JSON.stringify(text.slice(0, 200))}`);
  assert.equal(m[3], `${field}Uri`);
  const [n, from] = [Number(m[1]), Number(m[2])];
  assert.ok(from > 1000, `${field} shows its beginning (${from} bytes)`);
  assert.ok(bytes.length - from - n > 1000, `${field} shows its end (${bytes.length - from - n} bytes)`);
  assert.equal(text.slice(0, m.index), asText(bytes.subarray(0, from)), `${field}'s beginning is the stream's`);
  assert.equal(text.slice(m.index + m[0].length), asText(bytes.subarray(from + n)), `${field}'s end is the stream's`);
}

/** Every byte behind uri, read in pages as the result's message says, each page a result Claude Code takes. */
async function readAll(s, uri, page) {
  const parts = [];
  let offset = 0;
  for (;;) {
    const r = await s.client.callTool({ name: 'sandbox_file_ops', arguments: { action: 'read', path: uri, offset, length: page } });
    assert.equal(r.isError ?? false, false, r.content?.[0]?.text);
    assertClaudeCodeTakes(r, { budget: CLAUDE_CODE_LIMIT });
    const o = JSON.parse(r.content[0].text);
    assert.equal(o.offset, offset);
    parts.push(Buffer.from(o.content, o.encoding === 'base64' ? 'base64' : 'utf8'));
    if (o.eof) break;
    offset = o.nextOffset;
  }
  return Buffer.concat(parts);
}

/** The length the message tells the model to ask for. */
function pageOf(run) {
  const m = /length: (\d+)\}/.exec(run.message);
  assert.ok(m, `the message says how to read the rest: ${run.message}`);
  return Number(m[1]);
}

/** A chatty run's result, checked whole: the budget, both streams' ends, every byte behind the URIs. */
async function checkChatty(s, r, out, err) {
  assertClaudeCodeTakes(r);
  const run = runResult(r);
  assert.equal(run.exitCode, 0, run.stderr.slice(-500));
  assert.equal(run.stdoutTruncated, true);
  assert.equal(run.stderrTruncated, true);
  assert.equal(run.stdoutBytes, out.length);
  assert.equal(run.stderrBytes, err.length);
  assert.match(run.stdoutUri, /^sandbox:\/\/artifact\/[0-9a-f]{16}\/stdout$/);
  assert.match(run.stderrUri, /^sandbox:\/\/artifact\/[0-9a-f]{16}\/stderr$/);
  assert.match(run.message, /Only the beginning and end of stdout and stderr are shown here, to keep this result under 10000 tokens \(\[limits\] result_max_tokens\)/);
  assert.match(run.message, /sandbox_file_ops/);
  assertHeadAndTail(run.stdout, out, 'stdout');
  assertHeadAndTail(run.stderr, err, 'stderr');
  const page = pageOf(run);
  assert.equal(page, BUDGET, 'a page of a byte a token');
  assert.ok((await readAll(s, run.stdoutUri, page)).equals(out), 'stdout read back whole');
  assert.ok((await readAll(s, run.stderrUri, page)).equals(err), 'stderr read back whole');
  return run;
}

e2e('a chatty one-off run fits Claude Code (head and tail of both streams) and every byte of both is read back from stdoutUri and stderrUri', { timeoutMs: 180_000 }, async (h) => {
  const s = await h.shared({ env: { SANDBOX_BASH_POOL_SIZE: '0' } });
  const out = stream(outLine, 300_000);
  const err = stream(errLine, 50_000);
  const r = await s.call({ language: 'python', code: CHATTY_PY(300_000, 50_000) });
  const run = await checkChatty(s, r, out, err);

  // MCP resources/read of the same URI (under its 1 MiB limit).
  const res = await s.client.readResource({ uri: run.stdoutUri });
  assert.equal(res.contents.length, 1);
  assert.equal(res.contents[0].uri, run.stdoutUri);
  assert.ok(Buffer.from(res.contents[0].text, 'utf8').equals(out), 'resources/read gives stdout whole');
  const resErr = await s.client.readResource({ uri: run.stderrUri });
  assert.ok(Buffer.from(resErr.contents[0].blob, 'base64').equals(err), 'resources/read gives stderr whole (not UTF-8: a blob)');
});

e2e('only stderr chatty: stdout shown whole with no URI, stderr takes the budget and is kept', { timeoutMs: 120_000 }, async (h) => {
  const s = await h.shared({ env: { SANDBOX_BASH_POOL_SIZE: '0' } });
  const err = stream(errLine, 120_000);
  const r = await s.call({ language: 'python', code: `${CHATTY_PY(0, 120_000)}\nprint("done")` });
  assertClaudeCodeTakes(r);
  const run = runResult(r);
  assert.equal(run.stdout, 'done\n');
  assert.equal(run.stdoutTruncated, false);
  assert.equal('stdoutUri' in run, false);
  assert.equal('stdoutBytes' in run, false);
  assert.equal(run.stderrTruncated, true);
  assert.equal(run.stderrBytes, err.length);
  assert.match(run.message, /Only the beginning and end of stderr is shown here/);
  assertHeadAndTail(run.stderr, err, 'stderr');
  // The quiet stream gave its share: stderr shows nearly all the budget.
  assert.ok(Buffer.byteLength(r.content[0].text) > 2 * BUDGET * 0.8, `${Buffer.byteLength(r.content[0].text)} bytes used of ${2 * BUDGET}`);
  assert.ok((await readAll(s, run.stderrUri, pageOf(run))).equals(err));
});

e2e('a small output is unchanged: whole, no URIs, sizes or message', { timeoutMs: 60_000 }, async (h) => {
  const s = await h.shared({ env: { SANDBOX_BASH_POOL_SIZE: '0' } });
  const r = await s.call({ language: 'python', code: 'import sys\nprint("hello")\nprint("x" * 5000, file=sys.stderr)' });
  assertClaudeCodeTakes(r);
  const run = runResult(r);
  assert.equal(run.stdout, 'hello\n');
  assert.equal(run.stderr, `${'x'.repeat(5000)}\n`);
  for (const k of ['stdoutUri', 'stderrUri', 'stdoutBytes', 'stderrBytes', 'message']) assert.equal(k in run, false, k);
  assert.deepEqual([run.stdoutTruncated, run.stderrTruncated], [false, false]);
});

e2e('in a session: the same chatty program fits, and its streams are read back whole by URI (tool and resources/read)', { timeoutMs: 180_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await h.start({ env: st.env({ SANDBOX_BASH_POOL_SIZE: '0' }) });
  await createSession(s, 'python', { name: 'chatty' });
  await waitActive(s, 'chatty');
  const out = stream(outLine, 300_000);
  const err = stream(errLine, 50_000);
  const r = await s.call({ session: 'chatty', code: CHATTY_PY(300_000, 50_000) });
  const run = await checkChatty(s, r, out, err);
  assert.equal(run.session, 'chatty');
  assert.equal(run.stateKept, true);
  const res = await s.client.readResource({ uri: run.stdoutUri });
  assert.ok(Buffer.from(res.contents[0].text, 'utf8').equals(out));
  // The streams are not files of the session: /work holds none of them.
  const list = await fopOk(s, { action: 'list', session: 'chatty' });
  assert.deepEqual(list.entries.map((e) => e.name).filter((n) => /std(out|err)/.test(n)), []);
});

e2e('a stream over its capture cap says so, with its size and the setting that raises it; result_max_tokens sets the budget', { timeoutMs: 120_000 }, async (h) => {
  const s = await h.start({
    env: { SANDBOX_PYTHON_POOL_SIZE: '0', SANDBOX_BASH_STDOUT_CAP: '65536', SANDBOX_LIMITS_RESULT_MAX_TOKENS: '3000' },
  });
  const r = await s.call({ language: 'bash', code: 'seq 1 200000' });
  assertClaudeCodeTakes(r, { budget: 3000 });
  const run = runResult(r);
  let total = 0;
  for (let i = 1; i <= 200000; i++) total += String(i).length + 1;
  assert.equal(run.stdoutTruncated, true);
  assert.equal(run.stdoutBytes, total, 'the program\'s own count, past the cap');
  assert.match(run.message, /stdout was \d+ bytes, over its capture cap of 65536: its beginning and end were kept, its middle was not \(raise stdout_cap in sandbox\.ini's \[limits\] or \[bash\] section, or SANDBOX_BASH_STDOUT_CAP; at most 8388608\)/);
  assert.match(run.message, /under 3000 tokens/);
  // What is kept is what was captured: the beginning, the agent's marker, the end.
  const kept = await readAll(s, run.stdoutUri, pageOf(run));
  assert.ok(kept.length <= 65536 && kept.length > 65000, `${kept.length} bytes kept`);
  assert.match(kept.toString(), /^1\n2\n3\n[\s\S]*\n\.\.\. \[\d+ bytes truncated\] \.\.\.\n[\s\S]*199999\n200000\n$/);
});

e2e('with no artifact store the result still fits, and says the rest is not kept', { timeoutMs: 60_000 }, async (h) => {
  const s = await h.start({ env: { SANDBOX_PYTHON_POOL_SIZE: '0', SANDBOX_ARTIFACTS_STORE_MAX_MB: '0' } });
  const r = await s.call({ language: 'bash', code: 'seq 1 100000' });
  assertClaudeCodeTakes(r);
  const run = runResult(r);
  assert.equal(run.stdoutTruncated, true);
  assert.equal(run.stdoutBytes, 588895);
  assert.equal('stdoutUri' in run, false);
  assert.match(run.message, /The rest is not kept: no artifacts are kept here \(\[artifacts\] store_max_mb is 0\)\./);
  // The marker names no place to read from.
  assert.match(run.stdout, /\n\.\.\. \[\d+ bytes truncated\] \.\.\.\n/);
});

e2e('mcp-sandbox run --json prints the streams whole (no budget: a script reads it, not a model)', { timeoutMs: 120_000 }, async () => {
  const p = spawnSync(BIN, ['run', 'bash', '-', '--json'], {
    input: 'seq 1 100000',
    env: serverEnv({ SANDBOX_POOL_SIZE: '0' }),
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    timeout: 110_000,
  });
  assert.equal(p.status, 0, p.stderr);
  const run = JSON.parse(p.stdout);
  const want = Array.from({ length: 100000 }, (_, i) => `${i + 1}\n`).join('');
  assert.equal(run.stdout, want);
  assert.equal(run.stdoutTruncated, false);
  assert.equal('stdoutUri' in run, false);
});
