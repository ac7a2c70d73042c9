// Snapshots of sessions (sandbox_session snapshot, restore, fork,
// snapshots, delete_snapshot; docs/sessions.md "Snapshots, restore and
// fork"): /work as a tar made by GNU tar in the container, the package
// sets by key, the history replayed into the new session; kept across
// servers; a damaged snapshot restores nothing; another tenant's is
// nobody's.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { modernRequest, newToken, startHttp, tokensFile, toolCall } from './lib/http.mjs';
import { e2e, toolError } from './lib/server.mjs';
import { installOk } from './lib/packages.mjs';
import { waitFor } from './lib/wait.mjs';
import { sessionErr, sessionOk, sexec, sexecOk, withStateDir } from './lib/sessions.mjs';

const run = promisify(execFile);
const PYTHON = { SANDBOX_BASH_POOL_SIZE: '0' };
const ID = /^[0-9a-f]{20}$/;

const snapDir = (st) => path.join(st.dir, 'snapshots');

async function listSessions(s) {
  return (await sessionOk(s, { action: 'list' })).sessions.map((x) => x.name).sort();
}

e2e('a python session snapshotted and restored: files, variables by replay, listing as a resource; kept by the next server', { timeoutMs: 180_000 }, async (h) => {
  const st = withStateDir(h);
  let s = await st.start(PYTHON);
  await sessionOk(s, { action: 'create', language: 'python', name: 'src' });
  await sexecOk(s, 'src', 'x = 6 * 7\nrows = [i * i for i in range(5)]\nprint("x is", x)');
  await sexecOk(s, 'src', 'import os\nos.makedirs("data/sub", exist_ok=True)\nopen("data/sub/a.txt", "w").write("alpha\\n")\nopen("big.bin", "wb").write(os.urandom(300000))\nos.chmod("data/sub/a.txt", 0o640)\nprint(len(os.listdir(".")))');
  const r = await sessionOk(s, { action: 'snapshot', name: 'src', label: 'before the risky part' });
  const snap = r.snapshot;
  assert.match(snap.id, ID);
  assert.equal(snap.label, 'before the risky part');
  assert.equal(snap.session, 'src');
  assert.equal(snap.language, 'python');
  assert.equal(snap.cells, 2);
  assert.equal(snap.keepsMemory, true);
  assert.ok(snap.bytes > 300000, `the tar holds the files: ${snap.bytes}`);
  assert.equal(snap.uri, `sandbox://snapshot/${snap.id}`);

  // The source goes on, changed; the snapshot does not.
  await sexecOk(s, 'src', 'x = -1\nopen("data/sub/a.txt", "w").write("changed\\n")');

  // Its files as a resource: the tar's listing, read back on the host.
  const res = await s.client.readResource({ uri: snap.uri });
  const listing = JSON.parse(res.contents[0].text);
  const byPath = Object.fromEntries(listing.files.map((f) => [f.path, f]));
  assert.equal(byPath['data/sub/a.txt'].type, 'file');
  assert.equal(byPath['data/sub/a.txt'].size, 6);
  assert.equal(byPath['data/sub'].type, 'directory');
  assert.equal(byPath['big.bin'].size, 300000);
  const listed = await s.client.listResources();
  assert.ok(listed.resources.some((x) => x.uri === snap.uri), 'resources/list names the snapshot');

  const back = await sessionOk(s, { action: 'restore', snapshot: snap.id, name: 'copy' });
  assert.equal(back.session.name, 'copy');
  assert.equal(back.restored.restoredBy, 'replay');
  assert.equal(back.restored.cells, 2);
  assert.equal(back.restored.replayed, 2);
  assert.equal(back.restored.differing, 0, JSON.stringify(back.restored.differs));
  const v = await sexecOk(s, 'copy', 'print(x, rows, open("data/sub/a.txt").read().strip(), os.path.getsize("big.bin"), oct(os.stat("data/sub/a.txt").st_mode & 0o777))');
  assert.equal(v.stdout.trim(), "42 [0, 1, 4, 9, 16] alpha 300000 0o640");
  const orig = await sexecOk(s, 'src', 'print(x, open("data/sub/a.txt").read().strip())');
  assert.equal(orig.stdout.trim(), '-1 changed', 'the source kept its own changes');

  // Same files, same tar: two snapshots of an unchanged session share one.
  const again = (await sessionOk(s, { action: 'snapshot', name: 'copy' })).snapshot;
  const twin = (await sessionOk(s, { action: 'snapshot', name: 'copy' })).snapshot;
  assert.notEqual(again.id, twin.id);
  assert.equal(fs.readdirSync(path.join(snapDir(st), 'blobs')).length, 2);

  // The next server (same state directory) has them.
  await s.close();
  s = await st.start(PYTHON);
  const kept = (await sessionOk(s, { action: 'snapshots' })).snapshots;
  assert.deepEqual(kept.map((x) => x.id).sort(), [snap.id, again.id, twin.id].sort());
  const third = await sessionOk(s, { action: 'restore', snapshot: snap.id, name: 'third', replay: false });
  assert.equal(third.restored.restoredBy, 'files');
  const f = await sexec(s, 'third', 'print(open("data/sub/a.txt").read().strip())\nprint(x)');
  assert.match(f.stdout, /^alpha/);
  assert.match(f.stderr, /NameError/, 'without replay the variables are not back');

  assert.deepEqual(await sessionOk(s, { action: 'delete_snapshot', snapshot: snap.id }), { deletedSnapshot: snap.id });
  assert.equal((await sessionErr(s, { action: 'restore', snapshot: snap.id })).code, 'snapshot_not_found');
  assert.equal((await sessionErr(s, { action: 'delete_snapshot', snapshot: snap.id })).code, 'snapshot_not_found');
  // A shared tar stays while a snapshot names it.
  await sessionOk(s, { action: 'delete_snapshot', snapshot: again.id });
  await waitFor(() => fs.readdirSync(path.join(snapDir(st), 'blobs')).length === 1, { what: 'the first snapshot\'s tar removed' });
  const still = await sessionOk(s, { action: 'restore', snapshot: twin.id, name: 'fourth', replay: false });
  assert.equal(still.restored.restoredBy, 'files');
});

e2e('fork: a copy that goes its own way; a fork waits for the running call; a replay that prints otherwise is reported', { timeoutMs: 180_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start(PYTHON);
  await sessionOk(s, { action: 'create', language: 'python', name: 'a' });
  await sexecOk(s, 'a', 'import random, time\nn = 1\nprint(random.random())');
  // A call still running when the fork comes: the fork waits for it.
  const slow = sexec(s, 'a', 'time.sleep(1.5)\nn = 2\nprint("slept")');
  const forked = sessionOk(s, { action: 'fork', name: 'a', as: 'b' });
  const [slept, fk] = await Promise.all([slow, forked]);
  assert.equal(slept.stdout.trim(), 'slept');
  assert.equal(fk.forked.from, 'a');
  assert.equal(fk.forked.restoredBy, 'replay');
  assert.equal(fk.forked.replayed, 2);
  // The random number differs when replayed: said, with both.
  assert.equal(fk.forked.differing, 1, JSON.stringify(fk.forked.differs));
  assert.equal(fk.forked.differs[0].cell, 1);
  assert.equal(fk.forked.differs[0].what, 'stdout');
  assert.equal((await sexecOk(s, 'b', 'print(n)')).stdout.trim(), '2', 'the fork has what the running call did');
  await sexecOk(s, 'a', 'n = 100');
  await sexecOk(s, 'b', 'n = 200');
  assert.equal((await sexecOk(s, 'a', 'print(n)')).stdout.trim(), '100');
  assert.equal((await sexecOk(s, 'b', 'print(n)')).stdout.trim(), '200');
  // A fork keeps no snapshot of its own.
  assert.deepEqual((await sessionOk(s, { action: 'snapshots' })).snapshots, []);
  assert.equal((await sessionErr(s, { action: 'fork', name: 'a', as: 'b' })).code, 'session_exists');
  assert.equal((await sessionErr(s, { action: 'fork', name: 'a' })).code, 'invalid_arguments');
});

e2e('bad snapshots: unknown, malformed, over the cap, a damaged tar or record (nothing half-restored), an image that changed', { timeoutMs: 180_000 }, async (h) => {
  const st = withStateDir(h);
  const tag = `mcp-sandbox/python:snapshot-test-${process.pid}`;
  h.t.after(async () => {
    await run('docker', ['rmi', '-f', tag]).catch(() => {});
  });
  let s = await st.start({ ...PYTHON, SANDBOX_SNAPSHOTS_MAX_MB: '1' });
  assert.equal((await sessionErr(s, { action: 'restore', snapshot: '0123456789abcdef0123' })).code, 'snapshot_not_found');
  assert.equal((await sessionErr(s, { action: 'restore', snapshot: '../etc' })).code, 'snapshot_not_found');
  assert.equal((await sessionErr(s, { action: 'restore' })).code, 'invalid_arguments');
  assert.equal((await sessionErr(s, { action: 'snapshot', name: 'nope' })).code, 'session_not_found');

  await sessionOk(s, { action: 'create', language: 'bash', name: 'b' });
  await sexecOk(s, 'b', 'head -c 2000000 /dev/urandom > big');
  const over = await sessionErr(s, { action: 'snapshot', name: 'b' });
  assert.equal(over.code, 'too_large', over.message);
  assert.match(over.message, /max_mb/);
  // The partial tar goes once its last piece is back from the disk.
  await waitFor(() => fs.readdirSync(snapDir(st)).filter((f) => f !== 'blobs').length === 0, { what: 'the refused snapshot\'s files removed' });
  await sexecOk(s, 'b', 'rm big; echo kept > note; greeting=hello');

  // A damaged tar: refused at its end, and the half-made session goes.
  const good = (await sessionOk(s, { action: 'snapshot', name: 'b' })).snapshot;
  const [blob] = fs.readdirSync(path.join(snapDir(st), 'blobs'));
  const bpath = path.join(snapDir(st), 'blobs', blob);
  const bytes = fs.readFileSync(bpath);
  const before = await listSessions(s);
  // In a header (tar itself stops at it) and in a file's bytes (tar
  // takes them): both are the snapshot's damage, found by its hash.
  for (const at of [100, 600]) {
    const damaged = Buffer.from(bytes);
    damaged[at] ^= 0xff;
    fs.writeFileSync(bpath, damaged);
    const bad = await sessionErr(s, { action: 'restore', snapshot: good.id, name: 'broken' });
    assert.equal(bad.code, 'snapshot_corrupt', `byte ${at}: ${bad.message}`);
    assert.deepEqual(await listSessions(s), before, 'no session is left of it');
  }
  fs.writeFileSync(bpath, bytes.subarray(0, bytes.length - 512)); // cut short
  assert.equal((await sessionErr(s, { action: 'restore', snapshot: good.id, name: 'broken' })).code, 'snapshot_corrupt');
  fs.writeFileSync(bpath, bytes);
  const ok = await sessionOk(s, { action: 'restore', snapshot: good.id, name: 'fine' });
  assert.equal(ok.restored.restoredBy, 'replay');
  assert.equal((await sexecOk(s, 'fine', 'cat note; echo $greeting')).stdout, 'kept\nhello\n');

  // A damaged record: refused, and deletable.
  const rec = path.join(snapDir(st), `${good.id}.json`);
  const text = fs.readFileSync(rec, 'utf8');
  fs.writeFileSync(rec, text.replace('"language":"bash"', '"language":"pyth"'));
  await s.close();
  s = await st.start(PYTHON);
  const listed = (await sessionOk(s, { action: 'snapshots' })).snapshots;
  assert.deepEqual(listed, [{ id: good.id, corrupt: true }]);
  assert.equal((await sessionErr(s, { action: 'restore', snapshot: good.id })).code, 'snapshot_corrupt');
  fs.writeFileSync(rec, text);

  // The image changed under the language: named, refused, then forced.
  const ctx = fs.mkdtempSync(path.join(st.dir, 'img-'));
  fs.writeFileSync(path.join(ctx, 'Dockerfile'), 'FROM mcp-sandbox/bash\nLABEL org.mcp-sandbox.test=snapshot\n');
  await run('docker', ['build', '-q', '-t', tag, ctx]);
  await s.close();
  s = await st.start({ ...PYTHON, SANDBOX_BASH_IMAGE: tag });
  const changed = await sessionErr(s, { action: 'restore', snapshot: good.id });
  assert.equal(changed.code, 'snapshot_incompatible', changed.message);
  assert.match(changed.message, /image .*snapshot-test.* is sha256:[0-9a-f]{12}.*it was sha256:[0-9a-f]{12}.*force/);
  const forced = await sessionOk(s, { action: 'restore', snapshot: good.id, name: 'forced', force: true });
  assert.equal((await sexecOk(s, 'forced', 'cat note')).stdout, 'kept\n');
  assert.equal(forced.restored.restoredBy, 'replay');
});

e2e('over HTTP a snapshot is its tenant\'s: another tenant cannot list, restore, read or delete it', { timeoutMs: 120_000 }, async (h) => {
  const file = tokensFile(h);
  const alice = newToken(file, 'alice');
  const bob = newToken(file, 'bob');
  const st = withStateDir(h);
  const s = await startHttp(h, { env: st.env({ SANDBOX_POOL_SIZE: '0', SANDBOX_BASH_POOL_SIZE: '1', SANDBOX_HTTP_TOKENS_FILE: file }) });
  const call = async (token, args) => (await toolCall(s.url, 'sandbox_session', args, { token })).result;
  assert.equal((await call(alice, { action: 'create', language: 'bash', name: 'w' })).isError ?? false, false);
  const snap = (await call(alice, { action: 'snapshot', name: 'w' })).structuredContent.snapshot;
  assert.match(snap.id, ID);
  assert.deepEqual((await call(bob, { action: 'snapshots' })).structuredContent.snapshots, []);
  assert.equal(toolError(await call(bob, { action: 'restore', snapshot: snap.id })).code, 'snapshot_not_found');
  assert.equal(toolError(await call(bob, { action: 'delete_snapshot', snapshot: snap.id })).code, 'snapshot_not_found');
  const read = await modernRequest(s.url, 'resources/read', { uri: snap.uri }, { token: bob });
  assert.ok(read.json?.error && !read.json?.result, `bob cannot read alice's snapshot: ${JSON.stringify(read.json)}`);
  const mine = await modernRequest(s.url, 'resources/read', { uri: snap.uri }, { token: alice });
  assert.ok(mine.json?.result?.contents?.[0]?.text, JSON.stringify(mine.json));
  assert.equal((await call(alice, { action: 'snapshots' })).structuredContent.snapshots.length, 1);
  const back = await call(alice, { action: 'restore', snapshot: snap.id, name: 'w2' });
  assert.equal(back.isError ?? false, false, JSON.stringify(back));
});

e2e('a package set goes with a snapshot and a fork by its key: the copy imports what the source installed (npm)', { timeoutMs: 240_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start({ SANDBOX_PYTHON_POOL_SIZE: '0', SANDBOX_BASH_POOL_SIZE: '0' });
  await sessionOk(s, { action: 'create', language: 'javascript', name: 'js' });
  await installOk(s, { language: 'javascript', session: 'js', packages: ['is-number@7'] });
  await sexecOk(s, 'js', "const isNumber = require('is-number'); const seen = [isNumber(5), isNumber('x')]; console.log(seen.join())");
  const snap = (await sessionOk(s, { action: 'snapshot', name: 'js' })).snapshot;
  assert.equal(snap.packages.length, 1, JSON.stringify(snap));
  const back = await sessionOk(s, { action: 'restore', snapshot: snap.id, name: 'js2' });
  assert.deepEqual(back.session.packages, snap.packages);
  assert.equal(back.restored.packagesMissing, undefined);
  assert.equal(back.restored.differing, 0, JSON.stringify(back.restored.differs));
  assert.equal((await sexecOk(s, 'js2', 'console.log(seen.join(), isNumber(7))')).stdout, 'true,false true\n');
  const fk = await sessionOk(s, { action: 'fork', name: 'js', as: 'js3' });
  assert.deepEqual(fk.session.packages, snap.packages);
  assert.equal((await sexecOk(s, 'js3', "console.log(require('is-number')(3))")).stdout, 'true\n');
});

e2e('a cancelled restore leaves no session, a cancelled snapshot leaves no snapshot, and the server goes on', { timeoutMs: 180_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start(PYTHON);
  await sessionOk(s, { action: 'create', language: 'python', name: 'big' });
  await sexecOk(s, 'big', "import os\nfor i in range(120):\n    open(f'f{i:03}', 'wb').write(os.urandom(1 << 20))");
  const snap = (await sessionOk(s, { action: 'snapshot', name: 'big' })).snapshot;

  // The restore is cancelled once its session exists (its tar is then
  // on its way: 120 MiB).
  const ac = new AbortController();
  const restore = s.client.callTool({ name: 'sandbox_session', arguments: { action: 'restore', snapshot: snap.id, name: 'gone' } },
    undefined, { signal: ac.signal });
  await waitFor(() => /session gone created/.test(s.stderr), { what: 'the restore\'s session made' });
  ac.abort();
  await assert.rejects(restore);
  await waitFor(async () => !(await listSessions(s)).includes('gone'), { what: 'the cancelled restore\'s session removed' });

  // A snapshot cancelled on its way keeps nothing.
  const ac2 = new AbortController();
  const taking = s.client.callTool({ name: 'sandbox_session', arguments: { action: 'snapshot', name: 'big' } },
    undefined, { signal: ac2.signal });
  await waitFor(() => fs.readdirSync(snapDir(st)).some((f) => f.startsWith('.tmp.')), { what: 'the snapshot\'s tar on its way', intervalMs: 5 });
  ac2.abort();
  await assert.rejects(taking);
  await waitFor(() => !fs.readdirSync(snapDir(st)).some((f) => f.startsWith('.tmp.')), { what: 'the cancelled snapshot\'s file removed' });
  assert.deepEqual((await sessionOk(s, { action: 'snapshots' })).snapshots.map((x) => x.id), [snap.id]);
  // The source takes calls again, and the snapshot still restores.
  assert.equal((await sexecOk(s, 'big', 'print(len(os.listdir(".")))')).stdout, '120\n');
  const ok = await sessionOk(s, { action: 'restore', snapshot: snap.id, name: 'back', replay: false });
  assert.equal(ok.restored.bytes, snap.bytes);
});
