// The code blocklist (host/core/exec/blocklist.h, docs/security.md "The code
// blocklist"): quiet on a corpus of 300+ ordinary programs in the seven
// languages, each run for real at the default setting (warn); loud on the
// attempts in tests/blocklist/caught, refused with blocklist = block;
// reported in the result and the audit log with warn; silent with off.
// The lexers decide what is code: strings and comments never match.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { BIN, ROOT, e2e, runResult, toolError } from './lib/server.mjs';
import { withStateDir } from './lib/sessions.mjs';

const LANGS = ['python', 'python-ml', 'javascript', 'typescript', 'go', 'rust', 'bash'];
const DIR = path.join(ROOT, 'tests/blocklist');

function programs(kind) {
  return LANGS.flatMap((language) =>
    fs.readdirSync(path.join(DIR, kind, language)).sort().map((f) => ({
      language,
      file: path.join(DIR, kind, language, f),
      name: `${language}/${f}`,
    })));
}

/** mcp-sandbox blocklist LANG FILE...: { status, lines } (the header dropped). */
function cli(language, files, env = {}) {
  const r = spawnSync(BIN, ['blocklist', language, ...files], {
    encoding: 'utf8', env: { ...process.env, SANDBOX_CONFIG: path.join(ROOT, 'sandbox.ini'), ...env },
  });
  return { status: r.status, header: r.stdout.split('\n')[0], lines: r.stdout.split('\n').slice(1).filter(Boolean), stderr: r.stderr };
}

/** Runs f over items, `width` at a time. */
async function each(items, width, f) {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) await f(items[next++]);
  }));
}

e2e('the blocklist CLI: no match in any corpus program, a match in every caught attempt, through each language lexer', { docker: false }, () => {
  const corpus = programs('corpus');
  assert.ok(corpus.length >= 300, `the corpus has ${corpus.length} programs`);
  for (const language of LANGS) {
    const files = corpus.filter((p) => p.language === language).map((p) => p.file);
    assert.ok(files.length >= 25, `${language}: ${files.length} programs`);
    const r = cli(language, files);
    assert.equal(r.status, 0, `false positives in ${language}:\n${r.lines.join('\n')}${r.stderr}`);
    assert.match(r.header, new RegExp(`^${language}: blocklist = warn, \\d+ rule\\(s\\)$`));
  }
  for (const p of programs('caught')) {
    const r = cli(p.language, [p.file]);
    assert.equal(r.status, 1, `${p.name} is not caught`);
    assert.match(r.lines[0], /^\/.*:\d+:\d+: .+ \(`.+`\)$/, r.lines[0]);
  }
});

e2e('sandbox.ini: block patterns add to the plugin rules and match code only; an empty block = drops the plugin rules; a bad mode is a problem', { docker: false }, (h) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-bl-'));
  h.t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const code = path.join(dir, 'main.py');
  fs.writeFileSync(code, [
    'import os',
    'print("requests.get is only text here")  # requests.get(url)',
    'os.setuid(0)',
    'requests.get(url)',
    '',
  ].join('\n'));
  const ini = path.join(dir, 'sandbox.ini');
  fs.writeFileSync(ini, '[python]\nblock = \\brequests\\.get\\(\n');
  let r = cli('python', [code], { SANDBOX_CONFIG: ini });
  assert.equal(r.status, 1);
  assert.deepEqual(r.lines.map((l) => l.split(': ')[0].split(':').slice(1).join(':')), ['3:1', '4:1'], r.lines.join('\n'));
  assert.match(r.lines[1], /matches a block pattern of sandbox\.ini \(`requests\.get\(`\)$/);

  fs.writeFileSync(ini, '[python]\nblock =\nblock = \\brequests\\.get\\(\nblocklist = block\n');
  r = cli('python', [code], { SANDBOX_CONFIG: ini });
  assert.equal(r.lines.length, 1, r.lines.join('\n'));
  assert.match(r.lines[0], /:4:1: /);
  assert.match(r.header, /^python: blocklist = block, 1 rule\(s\)$/);

  fs.writeFileSync(ini, '[limits]\nblocklist = loud\n');
  const check = spawnSync(BIN, ['check-config', '--config', ini], { encoding: 'utf8' });
  assert.equal(check.status, 1);
  assert.match(check.stderr, /blocklist.*must be off, warn or block/);
});

e2e('every corpus program runs through sandbox_execute at the default setting with exit 0 and no blocklist match', { timeoutMs: 900_000 }, async (h) => {
  // python-ml's programs one at a time in its one container: each
  // container of it starts a fork server that imports the whole stack
  // (about 3 s of CPU); the others two at a time beside them.
  const s = await h.start({
    env: {
      SANDBOX_POOL_SIZE: '1', SANDBOX_GO_POOL_SIZE: '1', SANDBOX_RUST_POOL_SIZE: '1',
      SANDBOX_PYTHON_ML_POOL_SIZE: '1', SANDBOX_PYTHON_ML_POOL_MAX_SIZE: '1',
    },
  });
  const failures = [];
  const run = async (p) => {
    // Programs of a second or less, with room for a machine busy with
    // other test files.
    let r;
    try {
      r = runResult(await s.call({ language: p.language, code: fs.readFileSync(p.file, 'utf8'), timeout: 90_000 }, { requestTimeoutMs: 180_000 }));
    } catch (e) {
      failures.push(`${p.name}: ${e.message}`);
      return;
    }
    if (r.blocklist) failures.push(`${p.name}: flagged ${JSON.stringify(r.blocklist)}`);
    if (r.exitCode !== 0) failures.push(`${p.name}: exit ${r.exitCode} (${r.phase}${r.timedOut ? ', timed out' : ''}${r.signal ? `, ${r.signal}` : ''}${r.oomKilled ? ', out of memory' : ''}) ${r.stderr.slice(0, 400)}`);
    // Every program prints: an empty stdout means it did not really run
    // (a rust program once got wrapped into a second main).
    else if (!r.stdout) failures.push(`${p.name}: no output; stderr ${r.stderr.slice(0, 400)}`);
  };
  const corpus = programs('corpus');
  await Promise.all([
    each(corpus.filter((p) => p.language === 'python-ml'), 1, run),
    each(corpus.filter((p) => p.language !== 'python-ml'), 2, run),
  ]);
  assert.ok(corpus.length >= 300, `the corpus has ${corpus.length} programs`);
  assert.deepEqual(failures, []);
});

e2e('blocklist = block refuses every caught attempt before it runs, naming line, column and rule; nothing reaches a container', { timeoutMs: 120_000 }, async (h) => {
  const s = await h.start({ env: { SANDBOX_POOL_SIZE: '0', SANDBOX_LIMITS_BLOCKLIST: 'block' } });
  for (const p of programs('caught')) {
    const e = toolError(await s.call({ language: p.language, code: fs.readFileSync(p.file, 'utf8') }));
    assert.equal(e.code, 'code_blocked', p.name);
    assert.match(e.message, /^the code blocklist \(\[[a-z-]+\] blocklist = block\) refused the code: line \d+, column \d+: .+ \(`.+`\)/, `${p.name}: ${e.message}`);
  }
  assert.doesNotMatch(s.stderr, /container .* created|start(ed)? .*box/i);
  // The same text in a string or a comment runs.
  const r = await s.execute('python', 'print("os.setuid(0)")  # os.setuid(0)');
  assert.equal(r.stdout, 'os.setuid(0)\n');
});

e2e('blocklist = warn runs the code and reports each match in the result, one-off and in a session, and in the audit log as a violation; off reports nothing', { timeoutMs: 120_000 }, async (h) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-bl-audit-'));
  h.t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const s = await withStateDir(h).start({ SANDBOX_POOL_SIZE: '0', SANDBOX_AUDIT_FILE: path.join(dir, 'audit.log') });
  const code = 'import os\ntry:\n    os.setuid(0)\nexcept PermissionError as e:\n    print("denied", e.errno)\n';
  const r = await s.execute('python', code);
  assert.equal(r.stdout, 'denied 1\n', 'the code ran: the sandbox, not the blocklist, stopped it');
  assert.equal(r.blocklist.length, 1);
  assert.deepEqual({ ...r.blocklist[0], reason: undefined }, { line: 3, column: 5, match: 'os.setuid(', reason: undefined, rule: 'plugin' });
  assert.match(r.blocklist[0].reason, /user or group ids/);

  const b = await s.execute('bash', 'unshare -Ur id || echo "unshare failed: $?"');
  assert.match(b.stdout, /unshare failed/);
  assert.deepEqual(b.blocklist.map((x) => [x.line, x.match]), [[1, 'unshare']]);

  const created = await s.client.callTool({ name: 'sandbox_session', arguments: { action: 'create', language: 'python', name: 'bl' } });
  assert.equal(created.isError ?? false, false, created.content?.[0]?.text);
  const inSession = runResult(await s.call({ language: 'python', session: 'bl', code }));
  assert.equal(inSession.stdout, 'denied 1\n');
  assert.equal(inSession.blocklist?.[0]?.match, 'os.setuid(');
  assert.equal(runResult(await s.call({ language: 'python', session: 'bl', code: 'print(os.getuid())' })).blocklist, undefined);

  const sec = await s.client.callTool({ name: 'sandbox_security', arguments: { action: 'violations' } });
  const { events } = JSON.parse(sec.content[0].text);
  const hits = events.filter((e) => e.blocklist);
  assert.equal(hits.length, 3, JSON.stringify(events));
  assert.ok(hits.every((e) => e.violation === true && e.outcome === 'exit 0'));
  assert.deepEqual(hits.map((e) => e.blocklist[0].match).sort(), ['os.setuid(', 'os.setuid(', 'unshare']);

  const off = await h.start({ env: { SANDBOX_POOL_SIZE: '0', SANDBOX_PYTHON_BLOCKLIST: 'off' } });
  const o = await off.execute('python', code);
  assert.equal(o.stdout, 'denied 1\n');
  assert.equal(o.blocklist, undefined);
});
