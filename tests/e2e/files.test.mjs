// sandbox_file_ops: every action and error code in a real session, a
// byte-exact binary round trip, ordering with the session's executions,
// and paths that try to leave /work (symlinks to /etc and /proc, "..",
// absolute paths, NUL and newline, FIFOs, a sparse 1 GiB file, a directory
// of 100 000 entries): each gets its documented error or cap, and the
// server keeps serving.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { e2e, toolError } from './lib/server.mjs';
import { pyUntilFile, releaseFile, sessionContainer, sessionExecCall, sexecOk, waitQueued } from './lib/sessions.mjs';
import { fop, fopErr, fopOk, pythonSession } from './lib/files.mjs';

e2e('sandbox_file_ops: every action, and the session\'s code sees the same files', { timeoutMs: 180_000 }, async (h) => {
  const s = await pythonSession(h, 'files');
  const session = 'files';

  // write: parents are created; a second write needs overwrite.
  let r = await fopOk(s, { action: 'write', session, path: 'data/in.csv', content: 'a,b\n1,2\n' });
  assert.equal(r.size, 8);
  assert.equal(r.created, true);
  await fopErr(s, { action: 'write', session, path: 'data/in.csv', content: 'x' }, 'file_exists');
  r = await fopOk(s, { action: 'write', session, path: '/work/data/in.csv', content: 'a,b\n1,2\n3,4\n', overwrite: true });
  assert.equal(r.created, false);

  // The code reads it and writes its own file; read and stat see that.
  const out = await sexecOk(s, session, "rows = open('data/in.csv').read().split()\nopen('out.txt', 'w').write(str(len(rows)))\nprint(len(rows))");
  assert.equal(out.stdout.trim(), '3');
  r = await fopOk(s, { action: 'read', session, path: 'out.txt' });
  assert.equal(r.content, '3');
  assert.equal(r.encoding, 'utf-8');
  assert.equal(r.eof, true);
  assert.equal(r.size, 1);
  r = await fopOk(s, { action: 'stat', session, path: 'data/in.csv' });
  assert.equal(r.type, 'file');
  assert.equal(r.size, 12);
  assert.equal(r.mode, '0644');
  assert.ok(Math.abs(Date.parse(r.mtime) - Date.now()) < 120_000, `mtime ${r.mtime}`);

  // mkdir, list (flat and recursive), move, delete.
  r = await fopOk(s, { action: 'mkdir', session, path: 'a/b/c' });
  assert.equal(r.created, true);
  r = await fopOk(s, { action: 'mkdir', session, path: 'a' });
  assert.equal(r.created, false, 'mkdir of a directory that exists succeeds (like mkdir -p)');
  await fopErr(s, { action: 'mkdir', session, path: 'data/in.csv' }, 'file_exists');
  r = await fopOk(s, { action: 'list', session });
  assert.deepEqual(r.entries.map((e) => [e.name, e.type]), [['a', 'directory'], ['data', 'directory'], ['out.txt', 'file']]);
  assert.equal(r.nextCursor, undefined);
  r = await fopOk(s, { action: 'list', session, path: '.', recursive: true });
  assert.deepEqual(r.entries.map((e) => e.name), ['a', 'a/b', 'a/b/c', 'data', 'data/in.csv', 'out.txt']);
  r = await fopOk(s, { action: 'move', session, path: 'out.txt', to: 'a/b/c/result.txt' });
  assert.equal(r.to, 'a/b/c/result.txt');
  await fopErr(s, { action: 'read', session, path: 'out.txt' }, 'not_found');
  await fopOk(s, { action: 'write', session, path: 'other.txt', content: 'o' });
  await fopErr(s, { action: 'move', session, path: 'other.txt', to: 'a/b/c/result.txt' }, 'file_exists');
  await fopOk(s, { action: 'move', session, path: 'other.txt', to: 'a/b/c/result.txt', overwrite: true });
  assert.equal((await fopOk(s, { action: 'read', session, path: 'a/b/c/result.txt' })).content, 'o');
  await fopErr(s, { action: 'delete', session, path: 'a' }, 'directory_not_empty');
  await fopErr(s, { action: 'read', session, path: 'a' }, 'not_a_file');
  await fopErr(s, { action: 'list', session, path: 'data/in.csv' }, 'not_a_directory');
  r = await fopOk(s, { action: 'delete', session, path: 'a', recursive: true });
  assert.equal(r.deleted, true);
  await fopErr(s, { action: 'stat', session, path: 'a' }, 'not_found');
  await fopErr(s, { action: 'delete', session, path: 'nothing' }, 'not_found');

  // Errors that never reach the container.
  await fopErr(s, { action: 'read', session: 'nosuch', path: 'x' }, 'session_not_found');
  await fopErr(s, { action: 'read', session }, 'invalid_arguments');
  await fopErr(s, { action: 'move', session, path: 'x' }, 'invalid_arguments');
  await fopErr(s, { action: 'write', session, path: 'x', content: 'not base64!', encoding: 'base64' }, 'invalid_arguments');
  await fopErr(s, { action: 'read', session, path: 'data/in.csv', length: 64 * 1024 * 1024 }, 'too_large');

  // The code sees what the file operations left.
  const seen = await sexecOk(s, session, "import os\nprint(sorted(os.listdir('.')), open('data/in.csv').read().count('\\n'))");
  assert.equal(seen.stdout.trim(), "['data'] 3");
});

e2e('sandbox_file_ops: 5 MiB of random bytes round trip byte-exact, whole and in parts', { timeoutMs: 180_000 }, async (h) => {
  const s = await pythonSession(h, 'bin');
  const session = 'bin';
  const data = randomBytes(5 * 1024 * 1024);
  let r = await fopOk(s, { action: 'write', session, path: 'blob.bin', content: data.toString('base64'), encoding: 'base64' });
  assert.equal(r.size, data.length);
  // The program sees the same bytes.
  const sum = await sexecOk(s, session, "import hashlib\nprint(hashlib.sha256(open('blob.bin','rb').read()).hexdigest())");
  assert.equal(sum.stdout.trim(), createHash('sha256').update(data).digest('hex'));

  // Reads of at most [files] max_read_bytes (2 MiB): the result carries
  // the bytes twice (text and structuredContent), and the SDK client
  // refuses messages over 10 MiB.
  await fopErr(s, { action: 'read', session, path: 'blob.bin', length: data.length }, 'too_large');
  const parts = [];
  let offset = 0;
  let pages = 0;
  for (;;) {
    r = await fopOk(s, { action: 'read', session, path: 'blob.bin', offset, length: 2 * 1024 * 1024 });
    assert.equal(r.encoding, 'base64', 'random bytes are not text');
    parts.push(Buffer.from(r.content, 'base64'));
    pages++;
    assert.equal(r.offset, offset);
    if (r.eof) break;
    assert.equal(r.nextOffset, offset + r.length);
    offset = r.nextOffset;
  }
  assert.equal(pages, 3);
  assert.ok(Buffer.concat(parts).equals(data), 'read in parts is byte-exact');
  r = await fopOk(s, { action: 'read', session, path: 'blob.bin' });
  assert.equal(r.length, 64 * 1024, 'a read without length returns the default page');
  assert.equal(r.eof, false);
  assert.equal(r.nextOffset, 64 * 1024);
});

e2e('sandbox_file_ops: queued behind a running call, it sees what the call did', { timeoutMs: 120_000 }, async (h) => {
  const s = await pythonSession(h, 'order');
  const session = 'order';
  // The call is held until the read is seen waiting behind it.
  const running = sessionExecCall(s, session, `${pyUntilFile('/tmp/go')}open('late.txt','w').write('done')`);
  const read = fopOk(s, { action: 'read', session, path: 'late.txt' });
  await waitQueued(s, session, 1);
  await releaseFile((await sessionContainer(s.stateDir, session)).id, '/tmp/go');
  const [ex, r] = await Promise.all([running, read]);
  assert.equal(ex.isError ?? false, false);
  assert.equal(r.content, 'done', 'the read ran after the call that wrote the file');
});

e2e('sandbox_file_ops: paths that try to leave /work, odd files, and caps', { timeoutMs: 300_000 }, async (h) => {
  // A file size limit that lets the program make a sparse 1 GiB file.
  const s = await pythonSession(h, 'paths', { SANDBOX_LIMITS_FSIZE_MB: '2048' });
  const session = 'paths';
  await sexecOk(
    s,
    session,
    [
      'import os',
      "os.symlink('/etc/shadow', 'shadow')",
      "os.symlink('/etc/passwd', 'passwd')",
      "os.symlink('/proc/self/environ', 'environ')",
      "os.symlink('../../etc/passwd', 'climb')",
      "os.makedirs('d', exist_ok=True)",
      "os.symlink('../d', 'd/up')", // stays inside: allowed
      "open('d/x.txt', 'w').write('inside')",
      "os.mkfifo('fifo')",
      "with open('sparse', 'wb') as f: f.truncate(1 << 30)",
    ].join('\n'),
  );
  for (const path of ['shadow', 'passwd', 'environ', 'climb', 'climb/x']) {
    const e = await fopErr(s, { action: 'read', session, path }, 'invalid_path');
    assert.match(e.message, /leaves the work directory/);
  }
  for (const path of ['../etc/passwd', 'd/../../etc/passwd', '/etc/passwd', '/proc/self/environ', '/sys/kernel', '/workx/a', 'a\nb']) {
    await fopErr(s, { action: 'read', session, path }, 'invalid_path');
    await fopErr(s, { action: 'write', session, path, content: 'x' }, 'invalid_path');
  }
  // A NUL byte never reaches a tool: the request itself is refused.
  await assert.rejects(fop(s, { action: 'read', session, path: 'passwd\u0000x' }), (e) => e.code === -32600);
  await fopErr(s, { action: 'list', session, path: 'climb' }, 'invalid_path');
  await fopErr(s, { action: 'move', session, path: 'd/x.txt', to: '../x.txt' }, 'invalid_path');
  await fopErr(s, { action: 'delete', session, path: '.' }, 'invalid_path');
  await fopErr(s, { action: 'delete', session, path: '/work' }, 'invalid_path');
  // A symlink that stays inside /work is followed.
  assert.equal((await fopOk(s, { action: 'read', session, path: 'd/up/x.txt' })).content, 'inside');
  // stat describes the link itself; a write replaces it, never writes through it.
  assert.equal((await fopOk(s, { action: 'stat', session, path: 'passwd' })).type, 'symlink');
  await fopErr(s, { action: 'write', session, path: 'passwd', content: 'pwned' }, 'file_exists');
  await fopOk(s, { action: 'write', session, path: 'passwd', content: 'pwned', overwrite: true });
  const etc = await sexecOk(s, session, "import os\nprint(os.path.islink('passwd'), open('passwd').read(), open('/etc/passwd').read().startswith('root:'))");
  assert.equal(etc.stdout.trim(), 'False pwned True');
  // Deleting a symlink to a directory removes the link, not what it points at.
  await fopOk(s, { action: 'delete', session, path: 'd/up', recursive: true });
  assert.equal((await fopOk(s, { action: 'read', session, path: 'd/x.txt' })).content, 'inside');

  // A FIFO with no writer does not hang anything.
  await fopErr(s, { action: 'read', session, path: 'fifo' }, 'not_a_file');
  assert.equal((await fopOk(s, { action: 'stat', session, path: 'fifo' })).type, 'other');
  // A sparse 1 GiB file: a read returns the requested part only.
  let r = await fopOk(s, { action: 'read', session, path: 'sparse', offset: (1 << 30) - 10, length: 100, encoding: 'base64' });
  assert.equal(r.size, 1 << 30);
  assert.equal(r.length, 10);
  assert.equal(r.eof, true);
  await fopErr(s, { action: 'read', session, path: 'sparse', length: 1 << 30 }, 'too_large');
  // The largest file is the /work size (256 MiB here): the error says the range.
  let e = await fopErr(s, { action: 'write', session, path: 'big', offset: 300 << 20, content: 'x' }, 'too_large');
  assert.match(e.message, /0 to 268435456/);
  e = await fopErr(s, { action: 'write', session, path: 'big', offset: (256 << 20) - 1, content: 'xy' }, 'too_large');
  assert.match(e.message, /max_write_bytes/);

  // A directory of 100 000 files lists in sorted pages of 1000.
  await sexecOk(s, session, "import os\nos.mkdir('many')\nfor i in range(100000):\n    open('many/f%06d' % i, 'w').close()", { timeout: 120_000 });
  r = await fopOk(s, { action: 'list', session, path: 'many' });
  assert.equal(r.entries.length, 1000);
  assert.equal(r.entries[0].name, 'f000000');
  assert.equal(r.nextCursor, 'f000999');
  r = await fopOk(s, { action: 'list', session, path: 'many', cursor: r.nextCursor });
  assert.equal(r.entries[0].name, 'f001000');
  r = await fopOk(s, { action: 'list', session, path: 'many', cursor: 'f099499', length: 1000 });
  assert.equal(r.entries.length, 500);
  assert.equal(r.entries.at(-1).name, 'f099999');
  assert.equal(r.nextCursor, undefined, 'the last page has no cursor');

  // Still serving.
  const done = await sexecOk(s, session, "print('alive')");
  assert.equal(done.stdout.trim(), 'alive');
  const one = await s.execute('python', 'print(6*7)');
  assert.equal(one.stdout.trim(), '42');
});

// ---- export and import ----

/** A fresh directory to allow as the files root, removed after the test. */
function filesRoot(h) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-sandbox-e2e-root-'));
  h.t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

e2e('export and import are off until the user allows a directory, and the error says how', { timeoutMs: 120_000 }, async (h) => {
  const s = await pythonSession(h, 'noroot');
  for (const args of [
    { action: 'export', session: 'noroot', path: 'a', to: 'a' },
    { action: 'import', session: 'noroot', path: 'a', from: 'a' },
  ]) {
    const e = await fopErr(s, args, 'files_root_not_set');
    assert.match(e.message, /--files-root/);
    assert.match(e.message, /SANDBOX_FILES_HOST_ROOT/);
  }
});

e2e('export and import copy files byte-exact under the files root, never replacing one unasked', { timeoutMs: 180_000 }, async (h) => {
  const root = filesRoot(h);
  const s = await pythonSession(h, 'xfer', {}, ['--files-root', root]);
  const session = 'xfer';
  await sexecOk(s, session, "open('clean.csv', 'w').write('a,b\\n1,2\\n')");
  let r = await fopOk(s, { action: 'export', session, path: 'clean.csv', to: 'results/clean.csv' });
  assert.deepEqual(r, { path: 'clean.csv', to: 'results/clean.csv', size: 8, files: 1 });
  assert.equal(fs.readFileSync(path.join(root, 'results/clean.csv'), 'utf8'), 'a,b\n1,2\n');
  assert.equal(fs.statSync(path.join(root, 'results/clean.csv')).mode & 0o777, 0o644);
  await fopErr(s, { action: 'export', session, path: 'clean.csv', to: 'results/clean.csv' }, 'file_exists');
  await sexecOk(s, session, "open('clean.csv', 'w').write('v2')");
  await fopOk(s, { action: 'export', session, path: 'clean.csv', to: 'results/clean.csv', overwrite: true });
  assert.equal(fs.readFileSync(path.join(root, 'results/clean.csv'), 'utf8'), 'v2');
  assert.deepEqual(fs.readdirSync(path.join(root, 'results')), ['clean.csv'], 'no temporary file is left');

  // 5 MiB of random bytes both ways (export reads it in pieces).
  const data = randomBytes(5 * 1024 * 1024 + 17);
  fs.writeFileSync(path.join(root, 'in.bin'), data);
  r = await fopOk(s, { action: 'import', session, from: 'in.bin', path: 'data/in.bin' });
  assert.equal(r.size, data.length);
  const sum = await sexecOk(s, session, "import hashlib\nprint(hashlib.sha256(open('data/in.bin','rb').read()).hexdigest())");
  assert.equal(sum.stdout.trim(), createHash('sha256').update(data).digest('hex'));
  await fopErr(s, { action: 'import', session, from: 'in.bin', path: 'data/in.bin' }, 'file_exists');
  r = await fopOk(s, { action: 'export', session, path: 'data/in.bin', to: 'back.bin' });
  assert.equal(r.size, data.length);
  assert.ok(fs.readFileSync(path.join(root, 'back.bin')).equals(data), 'export is byte-exact');

  await fopErr(s, { action: 'export', session, path: 'missing', to: 'm' }, 'not_found');
  assert.ok(!fs.existsSync(path.join(root, 'm')), 'a failed export leaves nothing');
  // A directory: what is below it, symlinks and FIFOs left out.
  await sexecOk(s, session, "import os\nos.makedirs('out/sub/deeper')\nopen('out/a.txt','w').write('A')\nopen('out/sub/b.txt','w').write('BB')\nos.symlink('/etc/passwd', 'out/link')\nos.mkfifo('out/sub/fifo')");
  r = await fopOk(s, { action: 'export', session, path: 'out', to: 'copy/out' });
  assert.equal(r.files, 2);
  assert.equal(r.size, 3);
  assert.equal(fs.readFileSync(path.join(root, 'copy/out/a.txt'), 'utf8'), 'A');
  assert.equal(fs.readFileSync(path.join(root, 'copy/out/sub/b.txt'), 'utf8'), 'BB');
  assert.ok(fs.statSync(path.join(root, 'copy/out/sub/deeper')).isDirectory(), 'empty directories are copied');
  assert.deepEqual(fs.readdirSync(path.join(root, 'copy/out')).sort(), ['a.txt', 'sub']);
  assert.deepEqual(fs.readdirSync(path.join(root, 'copy/out/sub')).sort(), ['b.txt', 'deeper']);
  await fopErr(s, { action: 'export', session, path: 'out', to: 'copy/out' }, 'file_exists');
  await sexecOk(s, session, "open('out/a.txt','w').write('A2')");
  r = await fopOk(s, { action: 'export', session, path: 'out', to: 'copy/out', overwrite: true });
  assert.equal(fs.readFileSync(path.join(root, 'copy/out/a.txt'), 'utf8'), 'A2');
  // Names that mislead (a newline, U+202E): listed with nameEscaped, left
  // out of a directory's export and counted, refused as a host path.
  await sexecOk(s, session, "import os\nos.makedirs('odd')\nopen('odd/ok.txt','w').write('ok')\nopen('odd/new\\nline.txt','w').write('n')\nopen('odd/x\\u202efdp.exe','w').write('r')");
  r = await fopOk(s, { action: 'list', session, path: 'odd' });
  assert.deepEqual(r.entries.map((e) => [e.name, e.nameEscaped]), [['new\nline.txt', 'new\\u000Aline.txt'], ['ok.txt', undefined], ['x\u202efdp.exe', 'x\\u202Efdp.exe']]);
  r = await fopOk(s, { action: 'export', session, path: 'odd', to: 'odd' });
  assert.deepEqual([r.files, r.leftOut], [1, 2]);
  assert.match(r.note, /left out/);
  assert.deepEqual(fs.readdirSync(path.join(root, 'odd')), ['ok.txt']);
  await fopErr(s, { action: 'export', session, path: 'odd/ok.txt', to: 'x\u202efdp.exe' }, 'invalid_path');
  assert.equal((await fopOk(s, { action: 'stat', session, path: 'odd/x\u202efdp.exe' })).pathEscaped, 'odd/x\\u202Efdp.exe');
  await fopErr(s, { action: 'export', session, path: 'out/sub/fifo', to: 'f' }, 'not_a_file');
  await fopErr(s, { action: 'import', session, from: 'nothing', path: 'x' }, 'not_found');
  await fopErr(s, { action: 'export', session: 'gone', path: 'clean.csv', to: 'g' }, 'session_not_found');
  // Larger than the session's /work (256 MiB): refused before a byte moves, the range named.
  fs.closeSync(fs.openSync(path.join(root, 'big.bin'), 'w'));
  fs.truncateSync(path.join(root, 'big.bin'), 300 << 20);
  const big = await fopErr(s, { action: 'import', session, from: 'big.bin', path: 'big.bin' }, 'too_large');
  assert.match(big.message, /0 to 268435456 \(\[files\] max_write_bytes/);
});

e2e('export and import refuse every way out of the files root', { timeoutMs: 180_000 }, async (h) => {
  const root = filesRoot(h);
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-sandbox-e2e-outside-'));
  h.t.after(() => fs.rmSync(outside, { recursive: true, force: true }));
  fs.writeFileSync(path.join(outside, 'secret'), 'host secret');
  // Planted in the root: links to a directory and a file outside it.
  fs.symlinkSync(outside, path.join(root, 'linkdir'));
  fs.symlinkSync(path.join(outside, 'secret'), path.join(root, 'linkfile'));
  fs.mkdirSync(path.join(root, 'sub'));
  fs.symlinkSync('../..', path.join(root, 'sub', 'up'));
  // A hard link under the root to a file outside it.
  fs.linkSync(path.join(outside, 'secret'), path.join(root, 'hardlink'));
  execFileSync('mkfifo', [path.join(root, 'fifo')]);
  const s = await pythonSession(h, 'escape', {}, ['--files-root', root]);
  const session = 'escape';
  await sexecOk(s, session, "open('f.txt', 'w').write('from the sandbox')");

  for (const to of ['linkdir/f.txt', 'sub/up/f.txt', '../f.txt', '/tmp/f.txt', 'a/../../f.txt', 'a\nb']) {
    await fopErr(s, { action: 'export', session, path: 'f.txt', to }, 'invalid_path');
  }
  for (const from of ['linkfile', 'linkdir/secret', 'sub/up/etc/passwd', '../secret', '/etc/passwd']) {
    await fopErr(s, { action: 'import', session, from, path: 'got.txt' }, 'invalid_path');
  }
  const hl = await fopErr(s, { action: 'import', session, from: 'hardlink', path: 'got.txt' }, 'invalid_path');
  assert.match(hl.message, /hardlink has 2 hard links/);
  await fopErr(s, { action: 'read', session, path: 'got.txt' }, 'not_found');
  // A link as the last component is not followed: replaced only when asked, the target untouched.
  await fopErr(s, { action: 'export', session, path: 'f.txt', to: 'linkfile' }, 'file_exists');
  await fopOk(s, { action: 'export', session, path: 'f.txt', to: 'linkfile', overwrite: true });
  assert.equal(fs.lstatSync(path.join(root, 'linkfile')).isSymbolicLink(), false);
  assert.equal(fs.readFileSync(path.join(outside, 'secret'), 'utf8'), 'host secret');
  assert.deepEqual(fs.readdirSync(outside), ['secret']);
  // A FIFO in the root does not hang the server.
  await fopErr(s, { action: 'import', session, from: 'fifo', path: 'fifo' }, 'not_a_file');
  assert.equal((await sexecOk(s, session, "print('alive')")).stdout.trim(), 'alive');
});

// ---- staged inputs: sandbox_execute {files} ----

e2e('staged input files reach one-off python, javascript, bash and go, and the next call does not see them', { timeoutMs: 240_000 }, async (h) => {
  const s = await h.start({ env: { SANDBOX_POOL_SIZE: '1', SANDBOX_POOL_WARM_AT_START: 'python, javascript, bash, go' } });
  const csv = 'region,sales\nnorth,10\nsouth,32\n';
  const bin = Buffer.from([0, 1, 2, 250, 255]);
  const files = [
    { path: 'data/sales.csv', content: csv },
    { path: '/work/raw.bin', content: bin.toString('base64'), encoding: 'base64' },
  ];
  const programs = {
    python: "import csv\nrows = list(csv.DictReader(open('data/sales.csv')))\nprint(sum(int(r['sales']) for r in rows), list(open('raw.bin','rb').read()))",
    javascript: "const fs = require('fs');\nconst rows = fs.readFileSync('data/sales.csv','utf8').trim().split('\\n').slice(1);\nconsole.log(rows.reduce((a, r) => a + Number(r.split(',')[1]), 0), JSON.stringify([...fs.readFileSync('raw.bin')]).replaceAll(',', ', '));",
    bash: 's=0; while IFS=, read -r r v; do [ "$r" = region ] || s=$((s + v)); done < data/sales.csv\necho "$s [$(od -An -tu1 raw.bin | xargs | sed \'s/ /, /g\')]"',
    go: 'package main\nimport ("fmt"; "os"; "strings"; "strconv")\nfunc main() {\n  b, _ := os.ReadFile("data/sales.csv")\n  s := 0\n  for _, l := range strings.Split(strings.TrimSpace(string(b)), "\\n")[1:] { n, _ := strconv.Atoi(strings.Split(l, ",")[1]); s += n }\n  r, _ := os.ReadFile("raw.bin")\n  parts := []string{}\n  for _, c := range r { parts = append(parts, strconv.Itoa(int(c))) }\n  fmt.Printf("%d [%s]\\n", s, strings.Join(parts, ", "))\n}',
  };
  for (const [language, code] of Object.entries(programs)) {
    const r = await s.execute(language, code, { files });
    assert.equal(r.exitCode, 0, `${language}: ${r.stderr}`);
    assert.equal(r.stdout.trim(), '42 [0, 1, 2, 250, 255]', `${language} read the staged files`);
  }
  const after = await s.execute('python', "import os\nprint(sorted(os.listdir('.')))");
  assert.equal(after.stdout.trim(), "['main.py']", 'a one-off box is reset: no staged file is left for the next call');
});

e2e('staged inputs: refused paths and sizes end the call with their own code, and a session keeps its files', { timeoutMs: 180_000 }, async (h) => {
  const s = await pythonSession(h, 'staged');
  const call = (args) => s.call({ language: 'python', code: 'print(1)', ...args });
  assert.equal(toolError(await call({ files: [{ path: '../etc/x', content: 'x' }] })).code, 'invalid_path');
  assert.equal(toolError(await call({ files: [{ path: '/etc/passwd', content: 'x' }] })).code, 'invalid_path');
  const two = toolError(await call({ files: [{ path: 'x', content: 'x'.repeat(9 << 20) }, { path: 'y', content: 'y'.repeat(9 << 20) }] }));
  assert.equal(two.code, 'too_large');
  assert.match(two.message, /max_staged_bytes/);
  assert.equal(toolError(await call({ files: [{ path: 'x', content: '!!!!', encoding: 'base64' }] })).code, 'invalid_arguments');
  assert.equal(toolError(await call({ files: Array.from({ length: 101 }, (_, i) => ({ path: `f${i}`, content: '' })) })).code, 'invalid_arguments');
  assert.equal(toolError(await call({ files: [{ path: 'x' }] })).code, 'invalid_arguments');
  // The pool box that refused a file still serves.
  assert.equal((await s.execute('python', 'print(2)')).stdout.trim(), '2');

  // In a session the files stay for later calls and file operations.
  const r = await sexecOk(s, 'staged', "print(open('in/a.txt').read())", { files: [{ path: 'in/a.txt', content: 'first' }] });
  assert.equal(r.stdout.trim(), 'first');
  await sexecOk(s, 'staged', "print(1)", { files: [{ path: 'in/a.txt', content: 'second' }] });
  assert.equal((await fopOk(s, { action: 'read', session: 'staged', path: 'in/a.txt' })).content, 'second', 'a staged file replaces the old one');
  assert.equal(toolError(await sessionExecCall(s, 'staged', 'print(1)', { files: [{ path: '../x', content: '' }] })).code, 'invalid_path');
  assert.equal((await sexecOk(s, 'staged', "print('ok')")).stdout.trim(), 'ok');
});

e2e('a file operation the container never answers ends with session_lost, and the server keeps serving', { timeoutMs: 120_000 }, async (h) => {
  // The host waits the operation's own timeout plus 5 s, then gives up on the container.
  const s = await pythonSession(h, 'frozen', { SANDBOX_FILES_TIMEOUT_MS: '500' });
  const c = await sessionContainer(s.stateDir, 'frozen');
  execFileSync('docker', ['pause', c.id]);
  try {
    await fopErr(s, { action: 'read', session: 'frozen', path: 'x' }, 'session_lost');
  } finally {
    try {
      execFileSync('docker', ['unpause', c.id], { stdio: 'ignore' });
    } catch {
      // removed with the session already
    }
  }
  await fopErr(s, { action: 'read', session: 'frozen', path: 'x' }, 'session_not_found');
  assert.equal((await s.execute('python', 'print(5)')).stdout.trim(), '5');
});

// ---- MCP resources ----

e2e('resources: every session\'s /work is a resource, its files read as text or blob (never cut at a NUL), bad URIs are -32002', { timeoutMs: 120_000 }, async (h) => {
  const s = await pythonSession(h, 'res');
  assert.equal(s.client.getServerCapabilities().resources?.listChanged, false, 'the resources capability');
  await sexecOk(s, 'res', "import os\nos.makedirs('d', exist_ok=True)\nopen('d/t.csv','w').write('a,b\\n')\nopen('p.bin','wb').write(bytes([0,255,1]))");
  const { resources } = await s.client.listResources();
  assert.deepEqual(resources.map((r) => [r.uri, r.name, r.mimeType]), [['sandbox://session/res/', 'res', 'application/json']]);
  const { resourceTemplates } = await s.client.listResourceTemplates();
  assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate), ['sandbox://session/{name}/{+path}', 'sandbox://artifact/{id}/{+path}', 'sandbox://snapshot/{id}']);

  let r = await s.client.readResource({ uri: 'sandbox://session/res/' });
  const listing = JSON.parse(r.contents[0].text);
  assert.deepEqual(listing.entries.map((e) => [e.name, e.type]), [['d', 'directory'], ['p.bin', 'file']]);
  r = await s.client.readResource({ uri: 'sandbox://session/res/d/t.csv' });
  assert.deepEqual(r.contents, [{ uri: 'sandbox://session/res/d/t.csv', mimeType: 'text/csv', text: 'a,b\n' }]);
  r = await s.client.readResource({ uri: 'sandbox://session/res/p.bin' });
  assert.equal(r.contents[0].mimeType, 'application/octet-stream');
  assert.deepEqual([...Buffer.from(r.contents[0].blob, 'base64')], [0, 255, 1]);
  // A spreadsheet an analysis wrote is one, by its name.
  await sexecOk(s, 'res', "open('report.xlsx','wb').write(b'PK\\x03\\x04')");
  r = await s.client.readResource({ uri: 'sandbox://session/res/report.xlsx' });
  assert.equal(r.contents[0].mimeType, 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
  // Paths in URIs are percent-encoded; a file over what one read returns
  // is refused, not cut short.
  await sexecOk(s, 'res', "open('a b%.txt','w').write('sp')\nopen('big.txt','w').write('x' * (1 << 20 | 1))");
  r = await s.client.readResource({ uri: 'sandbox://session/res/a%20b%25.txt' });
  assert.equal(r.contents[0].text, 'sp');
  await assert.rejects(s.client.readResource({ uri: 'sandbox://session/res/big.txt' }), (e) => e.code === -32603 && e.data?.code === 'too_large');
  await assert.rejects(s.client.readResource({ uri: 'sandbox://session/res/x%00y' }), (e) => e.code === -32603 && e.data?.code === 'invalid_path');

  for (const uri of ['sandbox://session/res/missing', 'sandbox://session/nosuch/x', 'file:///etc/passwd', 'sandbox://session/res']) {
    await assert.rejects(s.client.readResource({ uri }), (e) => e.code === -32002, uri);
  }
  // No silent truncation: NUL inside text, UTF-16 with its BOM, a tar
  // archive and a file that is UTF-8 but for its last byte come back whole,
  // as base64, from the tool and from resources/read; length is the bytes
  // delivered.
  const made = await sexecOk(s, 'res', [
    'import hashlib, io, json, tarfile',
    "open('nul.txt', 'wb').write(b'abc\\x00def')",
    "open('u16.csv', 'wb').write('a,b\\n1,2\\n'.encode('utf-16'))",
    "t = tarfile.open('a.tar', 'w')",
    "i = tarfile.TarInfo('first.txt'); i.size = 5; t.addfile(i, io.BytesIO(b'hello')); t.close()",
    "open('cut.txt', 'wb').write('h\\u00e9llo w\\u00f6rld'.encode() + b'\\xc3')",
    "print(json.dumps({n: hashlib.sha256(open(n, 'rb').read()).hexdigest() for n in ['nul.txt', 'u16.csv', 'a.tar', 'cut.txt']}))",
  ].join('\n'));
  const sums = JSON.parse(made.stdout);
  const sha = (b) => createHash('sha256').update(b).digest('hex');
  for (const [name, sum] of Object.entries(sums)) {
    const t = await fopOk(s, { action: 'read', session: 'res', path: name });
    const bytes = Buffer.from(t.content, 'base64');
    assert.equal(t.encoding, 'base64', `${name}: not text, so base64`);
    assert.deepEqual([t.length, t.eof, sha(bytes)], [t.size, true, sum], `${name}: every byte, and length says how many`);
    r = await s.client.readResource({ uri: `sandbox://session/res/${name}` });
    assert.equal(r.contents[0].text, undefined, `${name}: no text`);
    assert.equal(sha(Buffer.from(r.contents[0].blob, 'base64')), sum, `${name}: the resource's blob is every byte`);
  }
  // A part that ends inside a character ends at the last whole one and
  // says so; following nextOffset gives the file back byte-exact.
  let part = await fopOk(s, { action: 'read', session: 'res', path: 'cut.txt', length: 2 });
  assert.deepEqual([part.content, part.encoding, part.length, part.heldBack, part.eof, part.nextOffset], ['h', 'utf-8', 1, 1, false, 1]);
  const parts = [];
  for (let offset = 0; ; offset = part.nextOffset) {
    part = await fopOk(s, { action: 'read', session: 'res', path: 'cut.txt', offset, length: 3 });
    parts.push(Buffer.from(part.content, part.encoding === 'base64' ? 'base64' : 'utf8'));
    assert.equal(parts.at(-1).length, part.length);
    if (part.eof) break;
    assert.equal(part.encoding, 'utf-8', `the part at ${offset} is text`);
  }
  assert.equal(sha(Buffer.concat(parts)), sums['cut.txt']);
  assert.equal(part.encoding, 'base64', 'the last part, a cut character at the end of the file, is base64');
  await sexecOk(s, 'res', "import os\nos.symlink('/etc/passwd', 'pw')");
  await assert.rejects(s.client.readResource({ uri: 'sandbox://session/res/pw' }), (e) => e.code === -32603 && /leaves the work directory/.test(e.message));
  await assert.rejects(s.client.readResource({ uri: 'sandbox://session/res/../../etc/passwd' }), (e) => e.code === -32603);
  assert.equal((await sexecOk(s, 'res', "print('alive')")).stdout.trim(), 'alive');
});
