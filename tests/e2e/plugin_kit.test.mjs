// The plugin SDK's conformance kit through a real engine: `mcp-sandbox
// check-plugin PATH.so --run` on each built-in plugin and on the SDK's
// example runs the plugin's samples (hello world, standard input, a failing
// program, a timeout, the first two through the interpreter that waited for
// them where the language has one, and where the language has a session
// interpreter the session contract: a variable kept, no control pipe
// handed on to a program the code starts, two interrupts in a row
// survived) with only the plugin's directory served, and every check
// passes. The kit's verdicts without an engine (the built-in plugins
// and the broken fixtures) are a unit test: tests/plugin-kit/check_kit.cmake.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { BIN, ROOT, e2e } from './lib/server.mjs';

const run = promisify(execFile);
const BUILTIN = path.join(ROOT, 'build/lib/mcp-sandbox/plugins');
const PERL = path.join(ROOT, 'build/tests/fixture-plugins/perl.so');

// What each may skip: the example has no lexer, no session interpreter
// and no pre-started interpreter; go and rust have no session interpreter
// (a session runs each call as a program) and no pre-started one (they are
// bound by their compilers), python-ml has its fork server instead.
const SESSION = ['run: session', 'run: control fds', 'run: interrupts'];
const SKIPS = {
  'perl.so': ['lex_mask', ...SESSION, 'run: prestart'],
  'go.so': [...SESSION, 'run: prestart'],
  'rust.so': [...SESSION, 'run: prestart'],
  'python-ml.so': ['run: prestart'],
};

for (const so of [...fs.readdirSync(BUILTIN).filter((f) => f.endsWith('.so')).sort().map((f) => path.join(BUILTIN, f)), PERL]) {
  e2e(`check-plugin --run ${path.basename(so)}: every check passes, the samples through the engine included`, { timeoutMs: 300_000 }, async () => {
    let out;
    try {
      out = (await run(BIN, ['check-plugin', so, '--run'], { timeout: 280_000, maxBuffer: 4 << 20 })).stdout;
    } catch (e) {
      assert.fail(`check-plugin exited ${e.code}:\n${e.stdout}\n${e.stderr}`);
    }
    const lines = out.split('\n').filter((l) => /^(pass|FAIL|skip) /.test(l));
    const verdict = Object.fromEntries(lines.map((l) => [l.slice(6, 28).trim(), l.slice(0, 4)]));
    const skips = SKIPS[path.basename(so)] ?? [];
    for (const check of ['file', 'load', 'name', 'policy', 'lex_mask', 'blocklist', 'run: hello', 'run: stdin', 'run: failing program', 'run: timeout', 'run: prestart', ...SESSION])
      assert.equal(verdict[check], skips.includes(check) ? 'skip' : 'pass', `${check}:\n${out}`);
    assert.match(out, new RegExp(`^\\d+ passed, 0 failed, ${skips.length} skipped$`, 'm'), out);
  });
}

// A plugin that declares a pre-started interpreter its image does not
// have: every call runs the ordinary way with the same result (the
// samples pass), and the kit says that nothing waited.
e2e('check-plugin --run on a plugin whose image does not wait: the samples pass, the prestart check fails', { timeoutMs: 300_000 }, async () => {
  const so = path.join(ROOT, 'build/tests/fixture-plugins/unready/unready.so');
  const r = await run(BIN, ['check-plugin', so, '--run'], { timeout: 280_000, maxBuffer: 4 << 20 }).then(
    (x) => ({ code: 0, out: x.stdout }),
    (e) => ({ code: e.code, out: e.stdout }),
  );
  for (const check of ['run: hello', 'run: stdin', 'run: failing program', 'run: timeout'])
    assert.match(r.out, new RegExp(`^pass  ${check} `, 'm'), r.out);
  assert.match(r.out, /^FAIL {2}run: prestart {10}0 of 2 calls ran in a waiting interpreter \(2 the ordinary way\)/m, r.out);
  assert.equal(r.code, 1, r.out);
});

// A plugin whose image the engine lacks: the first sample says so, with
// the command that builds it (the plugin's own recipe directory, as its
// language has none among the script's), and the other run checks are
// skipped, not failed again; no word about languages this server lacks.
e2e('check-plugin --run on a plugin whose image is missing: the real cause first, with the command that builds it', { timeoutMs: 300_000 }, async () => {
  const r = await run(BIN, ['check-plugin', PERL, '--run'], { timeout: 280_000, maxBuffer: 4 << 20, env: { ...process.env, SANDBOX_PERL_IMAGE: 'mcp-sandbox/perl-nope:latest' } }).then(
    (x) => ({ code: 0, out: x.stdout, err: x.stderr }),
    (e) => ({ code: e.code, out: e.stdout, err: e.stderr }),
  );
  assert.equal(r.code, 1, r.out);
  assert.match(r.out, new RegExp(`^FAIL {2}run: hello {13}image mcp-sandbox/perl-nope:latest is missing \\(image_missing\\): build it with ${ROOT.replace(/[.]/g, '\\.')}/scripts/build-images\\.sh DIR, DIR being the perl plugin's own image recipe`, 'm'), r.out);
  for (const check of ['run: stdin', 'run: failing program', 'run: timeout'])
    assert.match(r.out, new RegExp(`^skip  ${check} +the image is missing \\(above\\)$`, 'm'), r.out);
  assert.doesNotMatch(r.out + r.err, /no plugin provides/);
});

// Session interpreters that break the contract one way each
// (tests/fixtures/plugins/session.c): each fails its check, with the
// reason, and passes the others, so a check fails what it is for and
// nothing else.
async function kit(so) {
  return run(BIN, ['check-plugin', so, '--run'], { timeout: 280_000, maxBuffer: 4 << 20 }).then(
    (x) => ({ code: 0, out: x.stdout }),
    (e) => ({ code: e.code, out: e.stdout }),
  );
}

e2e('check-plugin --run on an interpreter that dies at the second interrupt: the interrupts check fails, the others pass', { timeoutMs: 300_000 }, async () => {
  const r = await kit(path.join(ROOT, 'build/tests/fixture-plugins/fragile/fragile.so'));
  for (const check of ['run: hello', 'run: timeout', 'run: session', 'run: control fds'])
    assert.match(r.out, new RegExp(`^pass  ${check} `, 'm'), r.out);
  assert.match(r.out, /^FAIL {2}run: interrupts {8}spin, interrupt 2 of 2: timed out yes, signal \S+, state kept no\b/m, r.out);
  assert.match(r.out, /^\d+ passed, 1 failed, /m, r.out);
  assert.equal(r.code, 1, r.out);
});

e2e('check-plugin --run on an interpreter that leaves its control pipes to the programs it starts: the control fds check fails, the others pass', { timeoutMs: 300_000 }, async () => {
  const r = await kit(path.join(ROOT, 'build/tests/fixture-plugins/leaky/leaky.so'));
  for (const check of ['run: hello', 'run: timeout', 'run: session', 'run: interrupts'])
    assert.match(r.out, new RegExp(`^pass  ${check} `, 'm'), r.out);
  assert.match(r.out, /^FAIL {2}run: control fds {7}a program the user's code starts inherits the same pipe in two calls, the interpreter's request or reply pipe: fd 0 on pipe:\[\d+\], fd 3 on pipe:\[\d+\];/m, r.out);
  assert.match(r.out, /^\d+ passed, 1 failed, /m, r.out);
  assert.equal(r.code, 1, r.out);
});

// The same interpreter in a plugin built for ABI 1.9: its samples end
// before session_fds (the fixture's struct has one, which the host must
// not read), so the check is skipped with the reason, not failed and not
// passed.
e2e('check-plugin --run on a plugin built for ABI 1.9: the control fds check is skipped, its sample not read', { timeoutMs: 300_000 }, async () => {
  const r = await kit(path.join(ROOT, 'build/tests/fixture-plugins/old/old.so'));
  assert.match(r.out, /^skip {2}run: control fds {7}built for ABI 1\.9: its samples end before session_fds \(1\.10\)$/m, r.out);
  for (const check of ['run: session', 'run: interrupts'])
    assert.match(r.out, new RegExp(`^pass  ${check} `, 'm'), r.out);
  assert.equal(r.code, 0, r.out);
});
