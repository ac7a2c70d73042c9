// Artifacts: the files a run created or changed, listed in every
// sandbox_execute result; the images among them returned as image blocks
// that reach the model even in Claude Code; a one-off box's files kept in
// the host's artifact store (read, export, resources) before its reset;
// symlinks, FIFOs and paths that try to leave never followed.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { e2e, toolError } from './lib/server.mjs';
import { sessionExecCall, sessionResult, sexecOk, waitActive, withStateDir } from './lib/sessions.mjs';
import { fopErr, fopOk, pythonSession } from './lib/files.mjs';
import { claudeCodeSees } from './lib/claude_code.mjs';

/** The width and height a PNG's header gives. */
function pngSize(b64) {
  const b = Buffer.from(b64, 'base64');
  assert.deepEqual([...b.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG');
  return [b.readUInt32BE(16), b.readUInt32BE(20)];
}

const TWO_FIGURES = "import matplotlib.pyplot as plt\nplt.figure(figsize=(4, 3), dpi=50)\nplt.plot([1, 2, 3])\nplt.figure(figsize=(2, 2), dpi=50)\nplt.bar(['a', 'b'], [3, 4])\nplt.show()\nprint('drawn')";

e2e('images: every figure of a one-off run is an image block the model sees in Claude Code, and a session\'s too', { timeoutMs: 300_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await h.start({ env: st.env({ SANDBOX_POOL_SIZE: '1', SANDBOX_POOL_WARM_AT_START: 'python, python-ml' }) });
  const r = await s.call({ language: 'python', code: TWO_FIGURES });
  assert.equal(r.isError ?? false, false, r.content?.[0]?.text);
  const seen = claudeCodeSees(r);
  const images = seen.filter((b) => b.type === 'image');
  assert.equal(images.length, 2, 'two figures, two images the model sees');
  assert.deepEqual(images.map((b) => b.mimeType), ['image/png', 'image/png']);
  assert.deepEqual(images.map((b) => pngSize(b.data)), [[200, 150], [100, 100]]);
  const run = JSON.parse(seen[0].text);
  assert.equal(run.stdout, 'drawn\n');
  assert.deepEqual(run.artifacts.map((a) => [a.path, a.shown]), [['figure-1.png', true], ['figure-2.png', true]]);
  // The emulation is not vacuous: with a structuredContent beside them
  // the same blocks would not reach the model.
  assert.equal(claudeCodeSees({ ...r, structuredContent: run }).filter((b) => b.type === 'image').length, 0);

  // Other formats, named by what the bytes are.
  const more = await s.call({
    language: 'python',
    code: "from PIL import Image\nim = Image.new('RGB', (30, 20), 'red')\nim.save('a.jpg')\nim.save('b.gif')\nim.save('c.webp')",
  });
  assert.deepEqual(more.content.slice(1).map((b) => [b.type, b.mimeType]), [['image', 'image/jpeg'], ['image', 'image/gif'], ['image', 'image/webp']]);
  // In the order the run made them (their last writes), not by name. The
  // times are set, not waited for: two saves may fall in one millisecond.
  const order = await s.call({
    language: 'python',
    code: "import os\nfrom PIL import Image\nImage.new('RGB', (30, 20)).save('z-first.png')\nImage.new('RGB', (10, 10)).save('a-second.png')\nos.utime('z-first.png', (1000, 1000))\nos.utime('a-second.png', (2000, 2000))",
  });
  assert.deepEqual(order.content.slice(1).map((b) => pngSize(b.data)), [[30, 20], [10, 10]]);
  assert.deepEqual(JSON.parse(order.content[0].text).artifacts.map((a) => a.path), ['z-first.png', 'a-second.png']);

  // A python-ml session: the same, and the files stay in the session.
  await s.client.callTool({ name: 'sandbox_session', arguments: { action: 'create', language: 'python', ml: true, name: 'mlimg' } });
  await waitActive(s, 'mlimg', { timeoutMs: 120_000 });
  const sr = await sessionExecCall(s, 'mlimg', TWO_FIGURES);
  const o = sessionResult(sr, 'mlimg');
  assert.deepEqual(claudeCodeSees(sr).filter((b) => b.type === 'image').map((b) => pngSize(b.data)), [[200, 150], [100, 100]]);
  assert.deepEqual(o.artifacts.map((a) => a.uri), ['sandbox://session/mlimg/figure-1.png', 'sandbox://session/mlimg/figure-2.png']);
  const again = await fopOk(s, { action: 'read', path: 'sandbox://session/mlimg/figure-2.png', length: 1 << 20 });
  assert.deepEqual(pngSize(again.content), [100, 100]);
});

e2e('images over the caps are listed with a note, never dropped silently', { timeoutMs: 240_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await h.start({
    env: st.env({
      SANDBOX_POOL_SIZE: '1',
      SANDBOX_POOL_WARM_AT_START: 'python',
      SANDBOX_ARTIFACTS_IMAGES: '2',
      SANDBOX_ARTIFACTS_IMAGE_MAX_BYTES: '20000',
    }),
  });
  const code = [
    'import os',
    'from PIL import Image',
    // Listed by name: the wide one comes first and is refused for its size.
    "Image.new('L', (9000, 2)).save('a_wide.png')",               // over 8000 px
    "Image.frombytes('L', (300, 300), os.urandom(90000)).save('noise.png')", // over 20000 bytes
    "Image.new('RGB', (10, 10), 'blue').save('s1.png')",
    "Image.new('RGB', (11, 11), 'blue').save('s2.png')",
    "Image.new('RGB', (12, 12), 'blue').save('s3.png')",          // over 2 images
    "open('z_fake.png', 'w').write('not an image')",
    // 7999 x 7999 in a few dozen bytes: under 8000 on a side, 256 MB decoded.
    'import struct, zlib',
    "chunk = lambda t, d: struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))",
    "open('huge.png', 'wb').write(b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 7999, 7999, 8, 6, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(bytes(64))) + chunk(b'IEND', b''))",
  ].join('\n');
  const r = await s.call({ language: 'python', code });
  const run = JSON.parse(r.content[0].text);
  const by = Object.fromEntries(run.artifacts.map((a) => [a.path, a]));
  assert.match(by['a_wide.png'].note, /9000x2 px, over 8000/);
  assert.match(by['noise.png'].note, /over 20000 bytes/);
  assert.equal(by['s1.png'].shown, true);
  assert.equal(by['s2.png'].shown, true);
  assert.match(by['s3.png'].note, /more than 2 images/);
  assert.match(by['z_fake.png'].note, /not a PNG/);
  assert.match(by['huge.png'].note, /7999x7999 px, 255 MB decoded, over 16777216 pixels/);
  assert.deepEqual(r.content.filter((b) => b.type === 'image').map((b) => pngSize(b.data)), [[10, 10], [11, 11]]);
  // Not shown, but kept: each has its uri and a resource_link.
  for (const p of ['a_wide.png', 'huge.png', 'noise.png', 's3.png', 'z_fake.png']) {
    assert.ok(by[p].uri, `${p} kept`);
    assert.ok(r.content.some((b) => b.type === 'resource_link' && b.uri === by[p].uri), `${p} linked`);
  }
  const noise = await fopOk(s, { action: 'read', path: by['noise.png'].uri, length: 1 << 20 });
  assert.equal(noise.size, by['noise.png'].size);
  assert.equal(noise.encoding, 'base64');
});

e2e('one-off artifacts are kept on the host: read, exported and listed by their URI, with no session', { timeoutMs: 240_000 }, async (h) => {
  const st = withStateDir(h);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-art-root-'));
  h.t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const s = await h.start({
    env: st.env({ SANDBOX_POOL_SIZE: '1', SANDBOX_POOL_WARM_AT_START: 'bash', SANDBOX_ARTIFACTS_KEEP_MAX_BYTES: '65536' }),
    args: ['--files-root', root],
  });
  const code = [
    'printf "id,v\\n1,2\\n" > clean.csv',
    'mkdir -p rep && echo "# Report" > "rep/a b.md"',
    'head -c 100000 /dev/zero > big.bin',
    'ln -s /etc/shadow shadow.txt',
    'ln -s /proc/self/environ environ.txt',
    'ln -s /etc etc',
    'mkfifo pipe',
    "printf 'l1' > \"$(printf 'caf\\351.txt')\"", // a name that is not UTF-8
    "printf 'abc\\0def' > nul.txt", // text but for a NUL
    "printf n > \"$(printf 'new\\nline.txt')\"", // a control character
    "printf r > \"$(printf 'x\\342\\200\\256fdp.exe')\"", // U+202E
    'echo made',
  ].join('\n');
  const r = await s.call({ language: 'bash', code });
  assert.equal(r.isError ?? false, false, r.content?.[0]?.text);
  const run = JSON.parse(r.content[0].text);
  const by = Object.fromEntries(run.artifacts.map((a) => [a.path, a]));
  // Only regular files are artifacts: the links and the FIFO are never
  // listed, followed or opened.
  assert.deepEqual(Object.keys(by).sort(), ['big.bin', 'caf\ufffd.txt', 'clean.csv', 'new\nline.txt', 'nul.txt', 'rep/a b.md', 'x\u202efdp.exe']);
  // Names that mislead are flagged with pathEscaped; one with a control
  // character, which no file operation takes, says so and has no uri.
  assert.deepEqual([by['new\nline.txt'].pathEscaped, by['new\nline.txt'].uri], ['new\\u000Aline.txt', undefined]);
  assert.match(by['new\nline.txt'].note, /name holds a control character/);
  assert.equal(by['x\u202efdp.exe'].pathEscaped, 'x\\u202Efdp.exe');
  assert.equal((await fopOk(s, { action: 'read', path: by['x\u202efdp.exe'].uri })).content, 'r');
  assert.equal(by['caf\ufffd.txt'].pathEscaped, 'caf\\xE9.txt');
  assert.equal(by['clean.csv'].pathEscaped, undefined);
  const id = by['clean.csv'].uri.match(/^sandbox:\/\/artifact\/([0-9a-f]{16})\/clean\.csv$/)[1];
  assert.equal(by['rep/a b.md'].uri, `sandbox://artifact/${id}/rep/a%20b.md`);
  assert.match(by['big.bin'].note, /not kept: over 65536 bytes/);
  const links = r.content.filter((b) => b.type === 'resource_link').map((b) => b.uri);
  assert.deepEqual(links.sort(), [by['caf\ufffd.txt'].uri, by['clean.csv'].uri, by['nul.txt'].uri, by['rep/a b.md'].uri, by['x\u202efdp.exe'].uri].sort());
  // The JSON shows the name as valid UTF-8; its uri keeps the real bytes.
  assert.equal(by['caf\ufffd.txt'].uri, `sandbox://artifact/${id}/caf%E9.txt`);
  assert.equal((await fopOk(s, { action: 'read', path: by['caf\ufffd.txt'].uri })).content, 'l1');

  // Read with the uri alone; by offset too.
  let o = await fopOk(s, { action: 'read', path: by['clean.csv'].uri });
  assert.deepEqual([o.content, o.size, o.eof], ['id,v\n1,2\n', 9, true]);
  o = await fopOk(s, { action: 'read', path: by['clean.csv'].uri, offset: 5, length: 3 });
  assert.deepEqual([o.content, o.eof, o.nextOffset], ['1,2', false, 8]);
  // Export into the user's project.
  o = await fopOk(s, { action: 'export', path: by['rep/a b.md'].uri, to: 'out/report.md' });
  assert.equal(fs.readFileSync(path.join(root, 'out/report.md'), 'utf8'), '# Report\n');
  await fopErr(s, { action: 'export', path: by['rep/a b.md'].uri, to: 'out/report.md' }, 'file_exists');
  // Resources: listed, and read.
  const { resources } = await s.client.listResources();
  assert.ok(resources.some((x) => x.uri === by['clean.csv'].uri && x.mimeType === 'text/csv'), JSON.stringify(resources));
  const rr = await s.client.readResource({ uri: by['clean.csv'].uri });
  assert.deepEqual(rr.contents, [{ uri: by['clean.csv'].uri, mimeType: 'text/csv', text: 'id,v\n1,2\n' }]);

  // A kept file with a NUL comes back whole, as base64, from both.
  o = await fopOk(s, { action: 'read', path: by['nul.txt'].uri });
  assert.deepEqual([o.encoding, Buffer.from(o.content, 'base64').toString('latin1'), o.length, o.eof], ['base64', 'abc\0def', 7, true]);
  const nul = await s.client.readResource({ uri: by['nul.txt'].uri });
  assert.deepEqual([nul.contents[0].text, Buffer.from(nul.contents[0].blob, 'base64').toString('latin1')], [undefined, 'abc\0def']);

  // An artifact is read-only, and nothing outside its set can be named.
  await fopErr(s, { action: 'write', path: by['clean.csv'].uri, content: 'x' }, 'invalid_arguments');
  await fopErr(s, { action: 'delete', path: by['clean.csv'].uri }, 'invalid_arguments');
  for (const bad of [
    `sandbox://artifact/${id}/../${id}/clean.csv`,
    `sandbox://artifact/${id}/%2e%2e/%2e%2e/etc/passwd`,
    `sandbox://artifact/${id}//etc/passwd`,
    `sandbox://artifact/${id}/shadow.txt`,
    `sandbox://artifact/${id}/clean.csv%00`,
    `sandbox://artifact/../${id}/clean.csv`,
    'sandbox://artifact/0123456789abcdef/clean.csv',
  ]) {
    const e = toolError(await s.client.callTool({ name: 'sandbox_file_ops', arguments: { action: 'read', path: bad } }));
    assert.ok(['invalid_path', 'not_found'].includes(e.code), `${bad}: ${e.code} ${e.message}`);
    await assert.rejects(s.client.readResource({ uri: bad }), (x) => x.code === -32002 || x.data?.code === 'invalid_path', bad);
  }
  // Without a session or an artifact uri, the error says what is missing.
  await fopErr(s, { action: 'read', path: 'clean.csv' }, 'invalid_arguments');
  // The next call's box was reset: the files are gone from it, not from the store.
  const next = JSON.parse((await s.call({ language: 'bash', code: 'ls' })).content[0].text);
  assert.equal(next.stdout, 'main.sh\n', 'only the source file');
  assert.equal((await fopOk(s, { action: 'read', path: by['clean.csv'].uri })).size, 9);
});

e2e('the artifact store stays under its size: the oldest call\'s files go first', { timeoutMs: 180_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await h.start({ env: st.env({ SANDBOX_POOL_SIZE: '1', SANDBOX_POOL_WARM_AT_START: 'bash', SANDBOX_ARTIFACTS_STORE_MAX_MB: '1' }) });
  const uris = [];
  for (let i = 0; i < 2; i++) {
    const run = JSON.parse((await s.call({ language: 'bash', code: 'head -c 700000 /dev/urandom > r.bin' })).content[0].text);
    uris.push(run.artifacts[0].uri);
  }
  await fopErr(s, { action: 'read', path: uris[0] }, 'not_found');
  assert.equal((await fopOk(s, { action: 'read', path: uris[1], length: 10 })).size, 700000);
  const dirs = fs.readdirSync(path.join(st.dir, 'artifacts'));
  assert.deepEqual(dirs, [uris[1].split('/')[3]], 'one set on disk');
});

e2e('artifacts: every result lists the files the run created or changed, one-off and in a session, and nothing else', { timeoutMs: 240_000 }, async (h) => {
  const s = await pythonSession(h, 'art', { SANDBOX_POOL_WARM_AT_START: 'python, bash, go' });
  // One-off python: a new file in a new directory, a plot-like binary, the source file left out.
  let r = await s.execute('python', "import os\nos.makedirs('out/deep')\nopen('out/deep/r.csv','w').write('a\\n')\nopen('p.png','wb').write(b'\\x89PNG' + bytes(100))\nprint('ok')");
  assert.deepEqual(r.artifacts.map(({ path, size, mime }) => ({ path, size, mime })), [
    { path: 'out/deep/r.csv', size: 2, mime: 'text/csv' },
    { path: 'p.png', size: 104, mime: 'image/png' },
  ]);
  // Named .png but not one: listed (and kept), not shown.
  assert.match(r.artifacts[1].note, /not shown: not a PNG, JPEG, GIF or WebP/);
  assert.ok(r.artifacts.every((a) => /^sandbox:\/\/artifact\/[0-9a-f]{16}\//.test(a.uri)), JSON.stringify(r.artifacts));
  // Nothing made: no artifacts key at all.
  r = await s.execute('python', "print(1)");
  assert.equal(r.artifacts, undefined);
  // Staged inputs are not artifacts; a staged file the program rewrites is.
  r = await s.execute('bash', 'cat in.txt > copy.txt; echo x >> in2.txt', { files: [{ path: 'in.txt', content: 'i' }, { path: 'in2.txt', content: 'j' }] });
  assert.deepEqual(r.artifacts.map((a) => a.path), ['copy.txt', 'in2.txt']);
  // A compiled language: the build's binary is not an artifact, the program's output is.
  r = await s.execute('go', 'package main\nimport "os"\nfunc main() { os.WriteFile("g.txt", []byte("go"), 0o644) }');
  assert.deepEqual(r.artifacts.map(({ path, size, mime }) => ({ path, size, mime })), [{ path: 'g.txt', size: 2, mime: 'text/plain' }]);
  // A build that fails made nothing: the program's own source is not an
  // artifact (go, rust, typescript's typecheck).
  for (const [language, code, extra] of [
    ['go', 'package main\nfunc main() { x }'],
    ['rust', 'fn main() { x }'],
    ['typescript', 'const n: number = "s"; console.log(n)', { typecheck: true }],
  ]) {
    const f = await s.execute(language, code, extra);
    assert.equal(f.phase, 'build', `${language}: ${f.stderr}`);
    assert.equal(f.artifacts, undefined, `${language}: ${JSON.stringify(f.artifacts)}`);
  }

  // In a session: only this call's files, and a deleted one is not listed.
  await sexecOk(s, 'art', "open('keep.txt','w').write('1')");
  let o = await sexecOk(s, 'art', "open('second.txt','w').write('22')\nopen('tmp.txt','w').write('x')\nimport os\nos.remove('tmp.txt')");
  assert.deepEqual(o.artifacts, [{ path: 'second.txt', size: 2, mime: 'text/plain', uri: 'sandbox://session/art/second.txt' }]);
  o = await sexecOk(s, 'art', "open('keep.txt','a').write('more')");
  assert.deepEqual(o.artifacts.map((a) => [a.path, a.size]), [['keep.txt', 5]]);
  // Many files: 50 listed, the rest counted.
  o = await sexecOk(s, 'art', "import os\nos.makedirs('many', exist_ok=True)\nfor i in range(70):\n    open('many/f%02d' % i, 'w').close()");
  assert.equal(o.artifacts.length, 50);
  assert.equal(o.artifactsMore, 20);
  assert.equal(o.artifacts[0].path, 'many/f00');
  // Past the agent's old cap of 10 000 events (each file makes two), the
  // count stays exact: in the session, and one-off twice on the warm box
  // (pool size 1) after its reset.
  const lots = "for i in range(6000):\n    open('lot%04d' % i, 'w').write('x')";
  o = await sexecOk(s, 'art', lots);
  assert.deepEqual([o.artifacts.length, o.artifactsMore], [50, 5950]);
  for (let i = 0; i < 2; i++) {
    r = await s.execute('python', lots);
    assert.deepEqual([r.artifacts.length, r.artifactsMore], [50, 5950], `one-off call ${i + 1}`);
  }
});

e2e('plt.show() with no display saves every open figure into /work as an artifact: python one-off and python-ml session', { timeoutMs: 300_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await h.start({ env: st.env({ SANDBOX_POOL_SIZE: '1', SANDBOX_POOL_WARM_AT_START: 'python, python-ml' }) });
  const code = "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nplt.figure()\nplt.bar(['a', 'b'], [3, 4])\nplt.show()\nprint(len(plt.get_fignums()))";
  const r = await s.execute('python', code);
  assert.equal(r.exitCode, 0, r.stderr);
  assert.equal(r.stdout.trim(), '0', 'show() closed the figures');
  assert.deepEqual(r.artifacts.map((a) => [a.path, a.mime]), [['figure-1.png', 'image/png'], ['figure-2.png', 'image/png']]);
  assert.ok(r.artifacts.every((a) => a.size > 1000), JSON.stringify(r.artifacts));

  const { structuredContent: sc } = await s.client.callTool({ name: 'sandbox_session', arguments: { action: 'create', language: 'python', ml: true, name: 'mlfig' } });
  assert.equal(sc.session.name, 'mlfig');
  await waitActive(s, 'mlfig', { timeoutMs: 120_000 });
  let o = await sexecOk(s, 'mlfig', code);
  assert.deepEqual(o.artifacts.map((a) => a.path), ['figure-1.png', 'figure-2.png']);
  // A later call's figure does not replace the earlier file.
  o = await sexecOk(s, 'mlfig', "import matplotlib.pyplot as plt\nplt.plot([0, 1])\nplt.show()");
  assert.deepEqual(o.artifacts.map((a) => a.path), ['figure-1-2.png']);
  const png = await fopOk(s, { action: 'read', session: 'mlfig', path: 'figure-1.png', length: 2 * 1024 * 1024 });
  assert.equal(png.encoding, 'base64');
  assert.deepEqual([...Buffer.from(png.content, 'base64').subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], 'a PNG');
  await s.client.callTool({ name: 'sandbox_session', arguments: { action: 'destroy', name: 'mlfig' } });
});
