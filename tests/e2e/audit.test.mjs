// The hash-chained audit log (host/core/records/audit.h, docs/security.md) and
// sandbox_security: what is recorded (a hash of the code, never the code
// unless asked), the violations, the chain across a restart and a
// rotation, and a one-byte edit caught by verify, through the tool and the
// CLI; both ends anchored (first lines removed, seq renumbered, a rotated
// file removed, the tail removed with its .head against `audit head` and
// the head the server logs at start and stop).
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { BIN, e2e, runResult, toolError } from './lib/server.mjs';

const sha = (s) => crypto.createHash('sha256').update(s).digest('hex');

function auditDir(h) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-audit-'));
  h.t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function security(s, args) {
  const r = await s.client.callTool({ name: 'sandbox_security', arguments: args });
  assert.equal(r.isError ?? false, false, r.content?.[0]?.text);
  return JSON.parse(r.content[0].text);
}

function lines(file) {
  return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
}

e2e('the audit log records every call with its outcome and a hash of the code; sandbox_security lists, filters, counts and verifies', { timeoutMs: 120_000 }, async (h) => {
  const dir = auditDir(h);
  const file = path.join(dir, 'audit.log');
  const env = { SANDBOX_POOL_SIZE: '0', SANDBOX_AUDIT_FILE: file, SANDBOX_BASH_BLOCK: 'forbidden_word', SANDBOX_BASH_BLOCKLIST: 'block' };
  const s = await h.start({ env });
  const ok = 'echo audited';
  assert.equal((await s.execute('bash', ok)).stdout, 'audited\n');
  assert.equal((await s.execute('bash', 'sleep 10', { timeout: 300 })).timedOut, true);
  assert.equal(toolError(await s.call({ language: 'bash', code: 'echo forbidden_word' })).code, 'code_blocked');
  const created = await s.client.callTool({ name: 'sandbox_session', arguments: { action: 'create', language: 'bash', name: 'aud' } });
  assert.equal(created.isError ?? false, false);
  await s.client.callTool({ name: 'sandbox_session', arguments: { action: 'destroy', name: 'aud' } });

  const { events } = await security(s, { action: 'events' });
  const calls = events.filter((e) => e.event === 'tool_call');
  const first = calls.find((e) => e.codeSha256 === sha(ok));
  assert.ok(first, `the call is recorded by its code's hash: ${JSON.stringify(calls)}`);
  assert.deepEqual([first.tool, first.language, first.outcome], ['sandbox_execute', 'bash', 'exit 0']);
  assert.equal(first.code, undefined, 'the code itself is not stored by default');
  assert.match(first.client, /\//, 'the client (name/version) is named');
  assert.ok(events.every((e) => /^[0-9a-f]{64}$/.test(e.prev) && e.instance && e.time), 'every event is chained and stamped');
  assert.equal(events[0].event, 'server_start');
  assert.ok(calls.some((e) => e.tool === 'sandbox_session' && e.action === 'create' && e.session === 'aud' && e.outcome === 'ok'));
  assert.ok(calls.some((e) => e.tool === 'sandbox_session' && e.action === 'destroy' && e.session === 'aud'));

  const { events: violations } = await security(s, { action: 'violations' });
  assert.deepEqual(violations.map((e) => e.outcome).sort(), ['code_blocked', 'timed_out']);
  assert.ok(violations.every((e) => e.violation === true));

  const { stats } = await security(s, { action: 'stats' });
  assert.equal(stats.violations, 2);
  assert.ok(stats.byTool.sandbox_execute >= 3, JSON.stringify(stats));
  assert.equal(stats.byOutcome.code_blocked, 1);

  const since = await security(s, { action: 'events', since: '2999-01-01T00:00:00Z' });
  assert.deepEqual(since.events, []);
  assert.equal((await security(s, { action: 'events', limit: 2 })).events.length, 2);

  const v = await security(s, { action: 'verify' });
  assert.equal(v.ok, true, JSON.stringify(v));
  assert.ok(v.lines >= 7);

  // One byte changed in the third line: the fourth no longer follows.
  const text = fs.readFileSync(file, 'utf8').split('\n');
  text[2] = text[2].replace('"seq":3', '"seq":3 ');
  fs.writeFileSync(file, text.join('\n'));
  const broken = await security(s, { action: 'verify' });
  assert.equal(broken.ok, false);
  assert.equal(broken.broken.line, 4, JSON.stringify(broken));
  const cli = spawnSync(BIN, ['audit', 'verify', file], { encoding: 'utf8' });
  assert.equal(cli.status, 1, cli.stderr);
  assert.match(cli.stdout, new RegExp(`chain breaks at ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:4: its prev is not the hash of the line before`));
});

e2e('the audit chain goes on across a restart and a rotation, and store_code keeps the code', { timeoutMs: 120_000 }, async (h) => {
  const dir = auditDir(h);
  const file = path.join(dir, 'audit.log');
  const env = { SANDBOX_POOL_SIZE: '0', SANDBOX_AUDIT_FILE: file, SANDBOX_AUDIT_MAX_KB: '16', SANDBOX_AUDIT_STORE_CODE: 'true' };
  const s1 = await h.start({ env });
  assert.equal((await s1.execute('bash', 'echo one')).stdout, 'one\n');
  await s1.close();
  const before = lines(file);
  const s2 = await h.start({ env });
  // The new server's first line follows the old server's last.
  const { events } = await security(s2, { action: 'events', limit: 500 });
  const start = events.find((e) => e.event === 'server_start' && e.instance !== JSON.parse(before[0]).instance);
  assert.equal(start.prev, sha(before[before.length - 1]));
  const stored = events.find((e) => e.codeSha256 === sha('echo one'));
  assert.equal(stored.code, 'echo one', 'store_code keeps the code itself');
  // Enough events to pass 16 KiB: the file is rotated, the chain goes on.
  for (let i = 0; i < 80; i++) await s2.client.callTool({ name: 'sandbox_session', arguments: { action: 'list' } });
  await security(s2, { action: 'events', limit: 1 }); // written
  assert.ok(fs.existsSync(`${file}.1`), 'rotated to audit.log.1');
  const old = lines(`${file}.1`);
  const cur = lines(file);
  assert.equal(JSON.parse(cur[0]).prev, sha(old[old.length - 1]), 'the new file starts from the last hash of the old one');
  const v = await security(s2, { action: 'verify' });
  assert.equal(v.ok, true, JSON.stringify(v));
  assert.ok(v.files >= 2);
  const cli = spawnSync(BIN, ['audit', 'verify'], { encoding: 'utf8', env: { ...process.env, SANDBOX_AUDIT_FILE: file, SANDBOX_AUDIT_MAX_KB: '16' } });
  assert.equal(cli.status, 0, cli.stdout + cli.stderr);
  assert.match(cli.stdout, /the chain holds: \d+ lines in [2-9] file\(s\)/);
  // A head kept elsewhere, checked by the tool as by the CLI.
  const anchored = await security(s2, { action: 'verify', anchor: v.head });
  assert.equal(anchored.ok, true, JSON.stringify(anchored));
  assert.equal(anchored.anchored, true);
  assert.equal(anchored.start, 'seq 1');
  const [hseq, hhash] = v.head.split(':');
  const wrong = await security(s2, { action: 'verify', anchor: `${hseq}:${hhash.replace(/^./, (c) => (c === '0' ? '1' : '0'))}` });
  assert.equal(wrong.ok, false);
  assert.match(wrong.broken.reason, /not the anchor's/);
  // The last line changed: caught against the head the server recorded.
  await s2.close();
  anchoredEnds(file, s1, s2, dir);
  const last = lines(file);
  last[last.length - 1] = last[last.length - 1].replace('"server_stop"', '"server_stap"');
  fs.writeFileSync(file, `${last.join('\n')}\n`);
  const tail = spawnSync(BIN, ['audit', 'verify'], { encoding: 'utf8', env: { ...process.env, SANDBOX_AUDIT_FILE: file, SANDBOX_AUDIT_MAX_KB: '16' } });
  assert.equal(tail.status, 1, tail.stdout);
  assert.match(tail.stdout, /its \.head differs/);
});

// Copies of the log in a directory of their own, tampered by fn, then
// `mcp-sandbox audit ARGS` against them.
function tampered(dir, fn, ...args) {
  const copy = fs.mkdtempSync(path.join(dir, 'copy-'));
  for (const f of fs.readdirSync(dir)) if (f.startsWith('audit.log')) fs.copyFileSync(path.join(dir, f), path.join(copy, f));
  const file = path.join(copy, 'audit.log');
  fn(file);
  return spawnSync(BIN, ['audit', ...args], { encoding: 'utf8', env: { ...process.env, SANDBOX_AUDIT_FILE: file, SANDBOX_AUDIT_MAX_KB: '16' } });
}

// The oldest rotated file of the log at f.
const oldest = (f) => {
  let k = 1;
  while (fs.existsSync(`${f}.${k + 1}`)) k++;
  return `${f}.${k}`;
};

const setLines = (file, ls) => fs.writeFileSync(file, ls.length ? `${ls.join('\n')}\n` : '');

function anchoredEnds(file, s1, s2, dir) {
  const env = { ...process.env, SANDBOX_AUDIT_FILE: file, SANDBOX_AUDIT_MAX_KB: '16' };
  // The head an operator keeps: `audit head`, and the server's log at stop;
  // the next server's start line names the same head.
  const head = spawnSync(BIN, ['audit', 'head'], { encoding: 'utf8', env });
  assert.equal(head.status, 0, head.stderr);
  const anchor = head.stdout.trim();
  assert.match(anchor, /^\d+:[0-9a-f]{64}$/);
  const all = lines(file);
  assert.equal(anchor, `${JSON.parse(all[all.length - 1]).seq}:${sha(all[all.length - 1])}`);
  const stopOf = (s) => s.stderr.match(/head at stop (\d+:[0-9a-f]{64})/)?.[1];
  assert.equal(stopOf(s2), anchor, 'the server logs the head at stop');
  assert.equal(s2.stderr.match(/head at start (\d+:[0-9a-f]{64})/)?.[1], stopOf(s1), 'and at start, where the last one stopped');
  const ok = spawnSync(BIN, ['audit', 'verify', '--anchor', anchor], { encoding: 'utf8', env });
  assert.equal(ok.status, 0, ok.stdout + ok.stderr);
  assert.match(ok.stdout, /start: seq 1/);
  assert.match(ok.stdout, /anchor \d+: found/);
  // The same files given by hand, the anchor after them.
  const given = [];
  for (let f = oldest(file); f !== file; f = f.endsWith('.1') ? file : f.replace(/\d+$/, (n) => `${n - 1}`)) given.push(f);
  const byHand = spawnSync(BIN, ['audit', 'verify', ...given, file, '--anchor', anchor], { encoding: 'utf8', env });
  assert.equal(byHand.status, 0, byHand.stdout + byHand.stderr);
  assert.match(byHand.stdout, /start: seq 1[^]*end: the head the server recorded[^]*anchor \d+: found/);

  // The first line removed.
  let r = tampered(dir, (f) => setLines(oldest(f), lines(oldest(f)).slice(1)), 'verify');
  assert.equal(r.status, 1, r.stdout);
  assert.match(r.stdout, /audit\.log\.\d:1: the chain starts at seq 2/);
  // ... and the rest renumbered from 1 and chained again, the .head
  // rewritten to match: only the first line's prev tells. With that prev
  // zeros too it is a whole new chain, which only the anchor tells.
  const rechain = (zeroFirst) => (f) => {
    const files = [oldest(f)];
    while (files[files.length - 1] !== f) files.push(files[files.length - 1].endsWith('.1') ? f : files[files.length - 1].replace(/\d+$/, (n) => `${n - 1}`));
    let k = 0;
    let prev = zeroFirst ? '0'.repeat(64) : null;
    files.forEach((g, i) => {
      const out = (i === 0 ? lines(g).slice(1) : lines(g)).map((l) => {
        let o = l.replace(/"seq":\d+/, () => `"seq":${++k}`);
        if (prev) o = o.replace(/"prev":"[0-9a-f]{64}"/, `"prev":"${prev}"`);
        prev = sha(o);
        return o;
      });
      setLines(g, out);
    });
    fs.writeFileSync(`${f}.head`, `${k} ${prev}\nfrom 0 ${'0'.repeat(64)}\n`);
  };
  r = tampered(dir, rechain(false), 'verify');
  assert.equal(r.status, 1, r.stdout);
  assert.match(r.stdout, /:1: it is seq 1 but its prev is not all zeros/);
  r = tampered(dir, rechain(true), 'verify');
  assert.equal(r.status, 0, r.stdout);
  r = tampered(dir, rechain(true), 'verify', '--anchor', anchor);
  assert.equal(r.status, 1, r.stdout);
  assert.match(r.stdout, /before the anchor's seq/);
  // The rotated file removed: the current one starts mid-chain.
  r = tampered(dir, (f) => fs.rmSync(oldest(f)), 'verify');
  assert.equal(r.status, 1, r.stdout);
  assert.match(r.stdout, /the chain starts at seq \d+, not at seq 1/);
  // The last line and the .head removed: no .head; a .head forged to
  // match fools the files but not the anchor kept elsewhere.
  const cut = (f) => {
    const ls = lines(f).slice(0, -1);
    setLines(f, ls);
    fs.rmSync(`${f}.head`);
    return ls;
  };
  r = tampered(dir, cut, 'verify');
  assert.equal(r.status, 1, r.stdout);
  assert.match(r.stdout, /no .*audit\.log\.head/);
  const forge = (f) => {
    const ls = cut(f);
    fs.writeFileSync(`${f}.head`, `${JSON.parse(ls[ls.length - 1]).seq} ${sha(ls[ls.length - 1])}\n`);
  };
  r = tampered(dir, forge, 'verify');
  assert.equal(r.status, 0, r.stdout);
  r = tampered(dir, forge, 'verify', '--anchor', anchor);
  assert.equal(r.status, 1, r.stdout);
  assert.match(r.stdout, /the chain ends at seq \d+, before the anchor's seq \d+: lines were removed from its end/);
  // One rotated file alone: what holds, and what cannot be checked.
  r = spawnSync(BIN, ['audit', 'verify', oldest(file)], { encoding: 'utf8', env });
  assert.equal(r.status, 0, r.stdout);
  assert.match(r.stdout, /start: seq 1/);
  assert.match(r.stdout, /end: not checked: no \.head beside .*audit\.log\.\d/);
  r = spawnSync(BIN, ['audit', 'verify', file], { encoding: 'utf8', env });
  assert.match(r.stdout, /start: not checked: .*audit\.log follows seq \d+ of a file not given/);
}
