// Files of any size, both ways: import and export move a 300 MiB file in
// pieces through the agent channel while the server's peak RSS grows by
// less than 16 MiB; a session destroyed in the middle of either leaves no
// temporary file; an import holds the session's queue (a call sent right
// behind it sees the whole file, never half of it); write takes a file in
// pieces (offset, append); a full /work and the caps say their numbers
// and leave no temporary file; the fsize limit no longer stops a file
// below the /work size.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { e2e, toolError } from './lib/server.mjs';
import { createSession, sessionExecCall, sessionOk, sessionResult, sexecOk, waitActive } from './lib/sessions.mjs';
import { fop, fopErr, fopOk, pythonSession } from './lib/files.mjs';
import { waitFor } from './lib/wait.mjs';

const MiB = 1 << 20;

function filesRoot(h) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-sandbox-e2e-root-'));
  h.t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const status = (pid, key) => Number(fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm'))[1]);

/** Writes size pseudo-random bytes to file in 8 MiB pieces and returns their SHA-256. */
function writeRandom(file, size) {
  const hash = createHash('sha256');
  const fd = fs.openSync(file, 'w');
  const piece = randomBytes(8 * MiB);
  for (let done = 0, i = 0; done < size; i++) {
    const n = Math.min(piece.length, size - done);
    piece.writeUInt32LE(i, 0); // no two pieces alike
    fs.writeSync(fd, piece, 0, n);
    hash.update(piece.subarray(0, n));
    done += n;
  }
  fs.closeSync(fd);
  return hash.digest('hex');
}

function sha256File(file) {
  const hash = createHash('sha256');
  const fd = fs.openSync(file, 'r');
  const buf = Buffer.alloc(8 * MiB);
  for (let n; (n = fs.readSync(fd, buf, 0, buf.length, null)) > 0;) hash.update(buf.subarray(0, n));
  fs.closeSync(fd);
  return hash.digest('hex');
}

const PY_SHA = "import hashlib\nh = hashlib.sha256()\nf = open('data/big.bin', 'rb')\nwhile True:\n    b = f.read(1 << 22)\n    if not b: break\n    h.update(b)\nprint(h.hexdigest())";

e2e('a 300 MiB file goes in and out in pieces: byte-exact, in order with the calls, the server\'s RSS bounded', { timeoutMs: 300_000 }, async (h) => {
  const root = filesRoot(h);
  const s = await pythonSession(h, 'large', { SANDBOX_PYTHON_MEMORY_MB: '1024', SANDBOX_PYTHON_WORK_MB: '700' }, ['--files-root', root]);
  const session = 'large';
  const size = 300 * MiB + 12345;
  const sum = writeRandom(path.join(root, 'big.bin'), size);

  // The peak RSS from here on (clear_refs 5 resets VmHWM).
  fs.writeFileSync(`/proc/${s.pid}/clear_refs`, '5');
  const before = status(s.pid, 'VmRSS');
  // The execution is sent right behind the import: it runs after the
  // whole import, and sees the whole file under its name.
  const t0 = Date.now();
  const [imp, seen] = await Promise.all([
    fopOk(s, { action: 'import', session, from: 'big.bin', path: 'data/big.bin' }, { requestTimeoutMs: 240_000 }),
    sessionExecCall(s, session, "import os\nprint(os.path.getsize('data/big.bin'), sorted(os.listdir('data')))", { requestTimeoutMs: 240_000 }),
  ]);
  assert.deepEqual(imp, { path: 'data/big.bin', from: 'big.bin', size, files: 1 });
  const seenR = sessionResult(seen, session);
  assert.equal(seenR.stdout.trim(), `${size} ['big.bin']`, `the call behind the import saw the whole file and no temporary name: ${JSON.stringify(seenR).slice(0, 600)}`);
  assert.equal((await sexecOk(s, session, PY_SHA, { timeout: 60_000 })).stdout.trim(), sum);
  h.t.diagnostic(`import ${Date.now() - t0} ms, peak RSS growth ${status(s.pid, 'VmHWM') - before} KiB`);
  const t1 = Date.now();

  const exp = await fopOk(s, { action: 'export', session, path: 'data/big.bin', to: 'back/big.bin' }, { requestTimeoutMs: 240_000 });
  assert.equal(exp.size, size);
  const grew = status(s.pid, 'VmHWM') - before;
  h.t.diagnostic(`export ${Date.now() - t1} ms`);
  assert.equal(sha256File(path.join(root, 'back/big.bin')), sum, 'export is byte-exact');
  h.t.diagnostic(`peak RSS growth moving 600 MiB: ${grew} KiB`);
  assert.ok(grew < 16 * 1024, `the server's peak RSS grew by ${grew} KiB moving 600 MiB (limit 16 MiB)`);

  // The session destroyed while an export moves it (its temporary file
  // is on the host, a piece being written, the next one asked for): the
  // export fails, and its temporary file goes.
  const exporting = fop(s, { action: 'export', session, path: 'data/big.bin', to: 'cut/big.bin' }, { requestTimeoutMs: 240_000 });
  const cutDir = path.join(root, 'cut');
  await waitFor(() => fs.existsSync(cutDir) && fs.readdirSync(cutDir).some((n) => n.startsWith('.sbx-export-')),
    { timeoutMs: 60_000, intervalMs: 20, what: "the export's temporary file" });
  await sessionOk(s, { action: 'destroy', name: session });
  const cutExport = toolError(await exporting);
  assert.ok(['session_destroyed', 'session_not_found'].includes(cutExport.code), JSON.stringify(cutExport));
  assert.deepEqual(fs.readdirSync(cutDir), [], 'no temporary file is left on the host');

  // The session destroyed while an import moves it: the import ends with
  // session_destroyed, and the server goes on.
  await createSession(s, 'python', { name: 'large2' });
  await waitActive(s, 'large2');
  const [cut] = await Promise.all([
    fop(s, { action: 'import', session: 'large2', from: 'big.bin', path: 'again.bin' }, { requestTimeoutMs: 240_000 }),
    sessionOk(s, { action: 'destroy', name: 'large2' }),
  ]);
  assert.equal(toolError(cut).code, 'session_destroyed', JSON.stringify(cut).slice(0, 300));
  assert.equal((await s.execute('python', 'print(6*7)')).stdout.trim(), '42');
});

e2e('write in pieces (offset, append), the ranges named, a full /work cleaned up, and fsize no lower than /work', { timeoutMs: 240_000 }, async (h) => {
  const root = filesRoot(h);
  const s = await pythonSession(h, 'pieces', {}, ['--files-root', root]);
  const session = 'pieces';

  let r = await fopOk(s, { action: 'write', session, path: 'p/log.txt', offset: 0, content: 'hello ' });
  assert.deepEqual([r.size, r.created], [6, true]);
  r = await fopOk(s, { action: 'write', session, path: 'p/log.txt', append: true, content: 'world' });
  assert.deepEqual([r.size, r.created], [11, false]);
  r = await fopOk(s, { action: 'write', session, path: 'p/log.txt', offset: 0, content: 'J' });
  assert.equal(r.size, 11, 'a write in place keeps the rest of the file');
  r = await fopOk(s, { action: 'write', session, path: 'p/log.txt', offset: 11, content: Buffer.from([0, 1, 2]).toString('base64'), encoding: 'base64' });
  assert.equal(r.size, 14);
  r = await fopOk(s, { action: 'read', session, path: 'p/log.txt', encoding: 'base64' });
  assert.equal(Buffer.from(r.content, 'base64').toString('latin1'), 'Jello world\x00\x01\x02');
  r = await fopOk(s, { action: 'write', session, path: 'p/new.txt', append: true, content: 'a' });
  assert.equal(r.size, 1, 'append makes a missing file');

  // Past the end: the range is named; a missing file at an offset; both at once.
  let e = await fopErr(s, { action: 'write', session, path: 'p/log.txt', offset: 15, content: 'x' }, 'invalid_arguments');
  assert.match(e.message, /0 to 14/);
  await fopErr(s, { action: 'write', session, path: 'p/none.txt', offset: 3, content: 'x' }, 'not_found');
  await fopErr(s, { action: 'write', session, path: 'p/log.txt', offset: 0, append: true, content: 'x' }, 'invalid_arguments');
  // Never through a symlink, even one inside /work.
  await sexecOk(s, session, "import os\nos.symlink('log.txt', 'p/link')\nos.symlink('/etc/passwd', 'p/out')");
  await fopErr(s, { action: 'write', session, path: 'p/link', append: true, content: 'x' }, 'invalid_path');
  await fopErr(s, { action: 'write', session, path: 'p/out', offset: 0, content: 'x' }, 'invalid_path');

  // The file size limit is the /work size: a 100 MB file from code works
  // (it was EFBIG at 64 MiB).
  const wrote = await sexecOk(s, session, "import os\nwith open('hundred.bin', 'wb') as f:\n    f.write(b'x' * 100_000_000)\nprint(os.path.getsize('hundred.bin'))", { timeout: 60_000 });
  assert.equal(wrote.stdout.trim(), '100000000');

  // A full /work: the import fails with no_space naming the size, and
  // leaves no temporary file behind.
  await sexecOk(s, session, "with open('fill.bin', 'wb') as f:\n    f.write(b'y' * 120_000_000)", { timeout: 60_000 });
  writeRandom(path.join(root, 'in.bin'), 64 * MiB);
  e = await fopErr(s, { action: 'import', session, from: 'in.bin', path: 'p/in.bin' }, 'no_space');
  assert.match(e.message, /the work directory is full \(256 MiB\)/);
  assert.match(e.message, /work_mb/);
  r = await fopOk(s, { action: 'list', session, path: 'p' });
  assert.deepEqual(r.entries.map((x) => x.name), ['link', 'log.txt', 'new.txt', 'out'], 'no .sbx-import- file is left');
  // The same file fits once there is room, and the session goes on.
  await fopOk(s, { action: 'delete', session, path: 'fill.bin' });
  r = await fopOk(s, { action: 'import', session, from: 'in.bin', path: 'p/in.bin' });
  assert.equal(r.size, 64 * MiB);
});

const PY_TREE = [
  'import hashlib, os',
  "print(os.path.getsize('in/sales.csv'), hashlib.sha256(open('in/sales.csv', 'rb').read()).hexdigest())",
  "print(sorted(os.path.relpath(os.path.join(d, f), 'proj') for d, _, fs in os.walk('proj') for f in fs))",
  "print(open('proj/a/b.txt').read(), sorted(n for n in os.listdir('in') if n.startswith('.')))",
].join('\n');

e2e('files: [{path, from}] take a file or a directory from the files root, one-off and in a session, never through the conversation', { timeoutMs: 240_000 }, async (h) => {
  const root = filesRoot(h);
  const s = await pythonSession(h, 'from', {}, ['--files-root', root]);
  // 40 MiB: more than a whole call may carry inline (24 MiB).
  fs.mkdirSync(path.join(root, 'data'));
  const size = 40 * MiB + 7;
  const sum = writeRandom(path.join(root, 'data/sales.csv'), size);
  fs.mkdirSync(path.join(root, 'proj/a/deep'), { recursive: true });
  fs.writeFileSync(path.join(root, 'proj/a/b.txt'), 'B');
  fs.writeFileSync(path.join(root, 'proj/c.txt'), 'C');
  fs.writeFileSync(path.join(root, 'proj/a/deep/d.txt'), 'D');
  fs.symlinkSync('/etc/passwd', path.join(root, 'proj/link'));
  const files = [{ path: 'in/sales.csv', from: 'data/sales.csv' }, { path: 'proj', from: path.join(root, 'proj') }];
  const want = `${size} ${sum}\n['a/b.txt', 'a/deep/d.txt', 'c.txt']\nB []`;

  // One-off: the box gets them; the next call does not.
  let r = await s.execute('python', PY_TREE, { files, requestTimeoutMs: 120_000 });
  assert.equal(r.stdout.trim(), want, r.stderr);
  r = await s.execute('python', "import os\nprint(os.path.exists('in'), os.path.exists('proj'))");
  assert.equal(r.stdout.trim(), 'False False');
  // In a session they stay; staged again, they are replaced.
  r = sessionResult(await sessionExecCall(s, 'from', PY_TREE, { files }), 'from');
  assert.equal(r.stdout.trim(), want, r.stderr);
  fs.writeFileSync(path.join(root, 'proj/a/b.txt'), 'B2');
  r = sessionResult(await sessionExecCall(s, 'from', "print(open('proj/a/b.txt').read())", { files: [{ path: 'proj', from: 'proj' }] }), 'from');
  assert.equal(r.stdout.trim(), 'B2');

  // Refusals, each with its code and what the root is.
  const err = async (files, code, re) => {
    const e = toolError(await s.call({ language: 'python', code: 'print(1)', files }));
    assert.equal(e.code, code, e.message);
    if (re) assert.match(e.message, re);
  };
  await err([{ path: 'x', from: '/etc/passwd' }], 'invalid_path', new RegExp(`outside the files root ${root}`));
  await err([{ path: 'x', from: '../x' }], 'invalid_path', new RegExp(root));
  await err([{ path: 'x', from: 'nothing' }], 'not_found', /files\[0\] \(from nothing\)/);
  await err([{ path: 'x', from: 'proj/link' }], 'invalid_path');
  await err([{ path: 'x', from: 'data/sales.csv', content: 'x' }], 'invalid_arguments');
  await err([{ path: 'x' }], 'invalid_arguments');
  fs.closeSync(fs.openSync(path.join(root, 'huge.bin'), 'w'));
  fs.truncateSync(path.join(root, 'huge.bin'), 300 * MiB);
  await err([{ path: 'x', from: 'huge.bin' }], 'too_large', /0 to 268435456/);
  // Without a files root: off, and the error says how to allow one.
  const off = await pythonSession(h, 'noroot');
  const e = toolError(await off.call({ language: 'python', code: 'print(1)', files: [{ path: 'x', from: 'a' }] }));
  assert.equal(e.code, 'files_root_not_set');
  assert.match(e.message, /--files-root/);
  // Import and export take a host path absolute inside the root too, and
  // one outside says what the root is.
  await fopOk(s, { action: 'import', session: 'from', from: path.join(root, 'proj/c.txt'), path: 'c2.txt' });
  await fopOk(s, { action: 'export', session: 'from', path: 'c2.txt', to: path.join(root, 'out/c3.txt') });
  assert.equal(fs.readFileSync(path.join(root, 'out/c3.txt'), 'utf8'), 'C');
  const outside = await fopErr(s, { action: 'import', session: 'from', from: '/etc/hostname', path: 'h' }, 'invalid_path');
  assert.match(outside.message, new RegExp(`outside the files root ${root}`));
  // The server goes on.
  assert.equal((await s.execute('python', 'print(6*7)')).stdout.trim(), '42');
});
