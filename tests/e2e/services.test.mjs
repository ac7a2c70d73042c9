// Services the model can call (sandbox_http, docs/processes.md; preview
// links, docs/http.md): servers a test writes and starts in the
// background in a session, reached through the agent's channel (the
// sandbox keeps no network), their answers parsed on the host; an
// Express app installed from npm; a preview link opened in headless
// Chromium and its screenshot read; and the bad input: a port nobody
// listens on, a server that never answers, an answer over the cap,
// malformed requests, a tampered link.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { e2e, IN_CI, toolError } from './lib/server.mjs';
import { MODERN_META, newToken, request, startHttp, tokensFile, toolCall } from './lib/http.mjs';
import { installOk } from './lib/packages.mjs';
import { sexecOk, sessionOk, withStateDir } from './lib/sessions.mjs';
import { waitFor } from './lib/wait.mjs';

const run = promisify(execFile);
const PYTHON = { SANDBOX_BASH_POOL_SIZE: '0' };

function httpCall(s, args, { requestTimeoutMs = 60_000 } = {}) {
  return s.client.callTool({ name: 'sandbox_http', arguments: args }, undefined, { timeout: requestTimeoutMs });
}

/** A successful sandbox_http: its JSON (the first block), and the blocks. */
async function httpOk(s, args) {
  const r = await httpCall(s, args);
  assert.equal(r.isError ?? false, false, `sandbox_http ${JSON.stringify(args)}: ${r.content?.[0]?.text}`);
  assert.equal(r.structuredContent, undefined, 'no structuredContent: Claude Code would drop the image blocks');
  return { ...JSON.parse(r.content[0].text), blocks: r.content };
}

async function procStart(s, session, command) {
  const r = await s.client.callTool({ name: 'sandbox_process', arguments: { action: 'start', session, command } });
  assert.equal(r.isError ?? false, false, r.content[0].text);
  return r.structuredContent.process;
}

/** Polls until the server in the session answers on port. */
async function listening(s, session, port) {
  await waitFor(async () => !(await httpCall(s, { session, port, path: '/' })).isError, {
    timeoutMs: 30_000,
    what: `a server on port ${port} in ${session}`,
  });
}

// A server with an endpoint for each case, written by the test.
const APP = String.raw`
import json, sys, time, zlib, struct
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

def png(w, h, rgb):
    raw = b''.join(b'\x00' + bytes(rgb) * w for _ in range(h))
    def chunk(t, d):
        c = struct.pack('>I', zlib.crc32(t + d))
        return struct.pack('>I', len(d)) + t + d + c
    return (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0))
            + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))

class H(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    def log_message(self, *a):
        print('served', self.path, flush=True)
    def send(self, code, ctype, body, extra=()):
        self.send_response(code)
        self.send_header('Content-Type', ctype)
        self.send_header('Content-Length', str(len(body)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)
    def do_GET(self):
        if self.path == '/':
            self.send(200, 'text/html; charset=utf-8', 'héllo from the session'.encode())
        elif self.path == '/chunked':
            self.send_response(200)
            self.send_header('Content-Type', 'text/plain')
            self.send_header('Transfer-Encoding', 'chunked')
            self.end_headers()
            for part in (b'one ', b'two ', b'three'):
                self.wfile.write(b'%x\r\n%s\r\n' % (len(part), part))
            self.wfile.write(b'0\r\n\r\n')
        elif self.path == '/image':
            self.send(200, 'image/png', png(8, 8, (255, 0, 0)))
        elif self.path == '/bytes':
            self.send(200, 'application/octet-stream', bytes(range(256)))
        elif self.path == '/big':
            self.send(200, 'text/plain', b'x' * 200000)
        elif self.path == '/hang':
            time.sleep(60)
        else:
            self.send(404, 'text/plain', b'no such page')
    def do_HEAD(self):
        self.send_response(200)
        self.send_header('Content-Type', 'text/html')
        self.send_header('Content-Length', '22')
        self.end_headers()
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get('Content-Length', 0)))
        out = json.dumps({'method': 'POST', 'path': self.path, 'body': body.decode(),
                          'token': self.headers.get('X-Token')}).encode()
        self.send(201, 'application/json', out, [('Set-Cookie', 'a=1'), ('Set-Cookie', 'b=2')])

ThreadingHTTPServer(('127.0.0.1', int(sys.argv[1])), H).serve_forever()
`;

e2e('sandbox_http: a server the test wrote, started in the background, answers through the agent', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start(PYTHON);
  await sessionOk(s, { action: 'create', language: 'python', name: 'web' });

  // Nobody listens yet: a clear error at once, not a timeout.
  const closed = toolError(await httpCall(s, { session: 'web', port: 8080, timeout: 60_000 }));
  assert.equal(closed.code, 'port_closed');
  assert.match(closed.message, /nothing listens/);

  await sexecOk(s, 'web', `open('app.py', 'w').write(${JSON.stringify(APP)})`);
  const app = await procStart(s, 'web', 'python3 app.py 8080');
  await listening(s, 'web', 8080);

  const home = await httpOk(s, { session: 'web', port: 8080 });
  assert.equal(home.status, 200);
  assert.equal(home.body, 'héllo from the session');
  assert.equal(home.headers['content-type'], 'text/html; charset=utf-8');
  assert.equal(home.bodyBytes, Buffer.byteLength('héllo from the session'));

  // A POST with a body and a header; repeated response headers joined.
  const post = await httpOk(s, {
    session: 'web', port: 8080, method: 'POST', path: '/submit?x=1',
    headers: { 'X-Token': 'abc', 'Content-Type': 'application/json' }, body: '{"a":1}',
  });
  assert.equal(post.status, 201);
  assert.deepEqual(JSON.parse(post.body), { method: 'POST', path: '/submit?x=1', body: '{"a":1}', token: 'abc' });
  assert.equal(post.headers['set-cookie'], 'a=1, b=2');

  // Chunked bodies are de-chunked; HEAD has none.
  assert.equal((await httpOk(s, { session: 'web', port: 8080, path: '/chunked' })).body, 'one two three');
  const head = await httpOk(s, { session: 'web', port: 8080, method: 'HEAD' });
  assert.deepEqual([head.status, head.bodyBytes, head.headers['content-length']], [200, 0, '22']);
  assert.equal(head.note, undefined, 'a HEAD answer is whole without a body');

  // An image is an image block the model sees; other bytes are base64.
  const img = await httpOk(s, { session: 'web', port: 8080, path: '/image' });
  assert.equal(img.image, 'image/png');
  const block = img.blocks.find((b) => b.type === 'image');
  assert.ok(block, 'an image block');
  assert.equal(block.mimeType, 'image/png');
  assert.equal(Buffer.from(block.data, 'base64').subarray(1, 4).toString(), 'PNG');
  const bytes = await httpOk(s, { session: 'web', port: 8080, path: '/bytes' });
  assert.deepEqual([...Buffer.from(bytes.bodyBase64, 'base64')], [...Array(256).keys()]);

  // Over the cap: cut, and said.
  const big = await httpOk(s, { session: 'web', port: 8080, path: '/big', max_bytes: 1000 });
  assert.equal(big.body.length, 1000);
  assert.equal(big.truncated, true);
  assert.match(big.note, /cut at 1000 bytes/);
  assert.equal((await httpOk(s, { session: 'web', port: 8080, path: '/missing' })).status, 404);

  // A server that never answers: the call's timeout, and the server goes on.
  const hang = toolError(await httpCall(s, { session: 'web', port: 8080, path: '/hang', timeout: 300 }));
  assert.equal(hang.code, 'sandbox_error');
  assert.match(hang.message, /did not answer within 300 ms/);
  // Malformed requests never reach it.
  for (const [args, what] of [
    [{ path: 'no-slash' }, /path: must start with/],
    [{ path: '/a b' }, /percent-encoded/],
    [{ method: 'GE T' }, /not an HTTP method/],
    [{ headers: { 'X-A': 'a\r\nX-Injected: 1' } }, /CR, LF or NUL/],
    [{ headers: { 'Bad Name': 'x' } }, /not a header name/],
  ]) {
    const e = toolError(await httpCall(s, { session: 'web', port: 8080, ...args }));
    assert.equal(e.code, 'invalid_arguments');
    assert.match(e.message, what);
  }
  assert.equal(toolError(await httpCall(s, { session: 'nope', port: 8080 })).code, 'session_not_found');
  assert.equal((await httpCall(s, { session: 'web', port: 0 })).isError, true, 'port 0: refused by the schema');
  // A service that is not HTTP.
  await procStart(s, 'web', 'python3 -c "import socket\ns=socket.socket();s.bind((\'127.0.0.1\',8081));s.listen()\nwhile True:\n    c,_=s.accept();c.sendall(b\'SSH-2.0-nope\\r\\n\');c.close()"');
  await waitFor(async () => (await httpCall(s, { session: 'web', port: 8081 })).content[0].text.includes('not HTTP'), {
    what: 'the non-HTTP service to answer',
  });
  assert.equal((await httpOk(s, { session: 'web', port: 8080 })).status, 200, 'the app serves on');
  const log = await s.client.callTool({ name: 'sandbox_process', arguments: { action: 'logs', session: 'web', pid: app.pid } });
  assert.match(log.structuredContent.output, /served \/chunked/);
  // Over stdio there are no preview links.
  const pv = toolError(await httpCall(s, { session: 'web', port: 8080, preview: true }));
  assert.equal(pv.code, 'invalid_arguments');
  assert.match(pv.message, /preview links are off/);
});

e2e('sandbox_http: an Express app installed from npm in a javascript session', { timeoutMs: 240_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start({ SANDBOX_PYTHON_POOL_SIZE: '0', SANDBOX_BASH_POOL_SIZE: '0' });
  await sessionOk(s, { action: 'create', language: 'javascript', name: 'exp' });
  await installOk(s, { language: 'javascript', session: 'exp', packages: ['express@4'] });
  await sexecOk(s, 'exp', `require('fs').writeFileSync('server.js', ${JSON.stringify(`
const express = require('express');
const app = express();
app.use(express.json());
app.get('/api/items', (req, res) => res.json({ items: [1, 2, 3], q: req.query.q }));
app.post('/api/items', (req, res) => res.status(201).json({ got: req.body }));
app.listen(3000, '127.0.0.1');
`)})`);
  await procStart(s, 'exp', 'node server.js');
  await listening(s, 'exp', 3000);
  const got = await httpOk(s, { session: 'exp', port: 3000, path: '/api/items?q=x' });
  assert.equal(got.status, 200);
  assert.match(got.headers['x-powered-by'], /Express/);
  assert.deepEqual(JSON.parse(got.body), { items: [1, 2, 3], q: 'x' });
  const made = await httpOk(s, {
    session: 'exp', port: 3000, method: 'POST', path: '/api/items',
    headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'n' }),
  });
  assert.deepEqual([made.status, JSON.parse(made.body)], [201, { got: { name: 'n' } }]);
});

/** The share of pixels of an 8-bit RGB(A) PNG close to rgb. */
function share(file, rgb) {
  const b = fs.readFileSync(file);
  let off = 8, w = 0, hgt = 0, type = 0;
  const idat = [];
  while (off < b.length) {
    const len = b.readUInt32BE(off), t = b.toString('latin1', off + 4, off + 8), d = b.subarray(off + 8, off + 8 + len);
    if (t === 'IHDR') {
      [w, hgt, type] = [d.readUInt32BE(0), d.readUInt32BE(4), d[9]];
      assert.equal(d[8], 8, 'an 8-bit PNG');
    }
    if (t === 'IDAT') idat.push(d);
    off += 12 + len;
  }
  const px = type === 6 ? 4 : 3, stride = w * px, raw = zlib.inflateSync(Buffer.concat(idat));
  const prev = Buffer.alloc(stride), cur = Buffer.alloc(stride);
  let near = 0;
  for (let y = 0; y < hgt; y++) {
    const f = raw[y * (stride + 1)], line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let i = 0; i < stride; i++) {
      const a = i >= px ? cur[i - px] : 0, up = prev[i], c = i >= px ? prev[i - px] : 0;
      const p = a + up - c, pa = Math.abs(p - a), pb = Math.abs(p - up), pc = Math.abs(p - c);
      const pred = [0, a, up, (a + up) >> 1, pa <= pb && pa <= pc ? a : pb <= pc ? up : c][f];
      cur[i] = (line[i] + pred) & 0xff;
    }
    for (let x = 0; x < w; x++)
      if (rgb.every((v, k) => Math.abs(cur[x * px + k] - v) < 16)) near++;
    cur.copy(prev);
  }
  return near / (w * hgt);
}

/**
 * A GET of a preview link's path (plus suffix) as a browser sends it:
 * to 127.0.0.1, with the link's own host name, which browsers resolve to
 * the loopback themselves and Node's resolver does not. host: another
 * name to send instead.
 */
function previewGet(link, suffix = '', { host, headers = {} } = {}) {
  const u = new URL(link);
  return request(`http://127.0.0.1:${u.port}${u.pathname}${suffix}`, { method: 'GET', headers: { host: host ?? u.host, ...headers } });
}

function chromium() {
  for (const c of ['chromium', 'chromium-browser']) {
    try {
      fs.accessSync(`/usr/bin/${c}`, fs.constants.X_OK);
      return `/usr/bin/${c}`;
    } catch {
      // next
    }
  }
  return null;
}

e2e('preview links: a signed URL opens a session\'s app in headless Chromium; tampered ones are refused', { timeoutMs: 180_000 }, async (h) => {
  const browser = chromium();
  if (!browser) {
    assert.ok(!IN_CI, 'chromium is missing (scripts/test.sh installs it)');
    h.t.skip('chromium is missing');
    return;
  }
  const st = withStateDir(h);
  const srv = await startHttp(h, { env: st.env({ ...PYTHON, SANDBOX_HTTP_PREVIEW_LISTEN: '127.0.0.1:0' }) });
  const call = async (name, args) => {
    const r = await toolCall(srv.url, name, args);
    assert.equal(r.result?.isError ?? false, false, JSON.stringify(r));
    return r.result;
  };
  await call('sandbox_session', { action: 'create', language: 'python', name: 'site' });
  // A page, a stylesheet by a relative link and its own API by a relative
  // fetch: both must work under the link's prefix.
  await call('sandbox_execute', {
    session: 'site',
    code: `import os
os.makedirs('site/api', exist_ok=True)
open('site/index.html', 'w').write('<html><head><link rel="stylesheet" href="style.css"></head><body><div id="d">...</div><script>fetch("api/color.json").then(r => r.json()).then(j => { document.body.style.background = j.color; document.getElementById("d").textContent = "ok"; })</script></body></html>')
open('site/style.css', 'w').write('body { margin: 0; background: #0000ff; } div { color: #0000ff; }')
open('site/api/color.json', 'w').write('{"color": "#ff0000"}')`,
  });
  await call('sandbox_process', { action: 'start', session: 'site', command: 'python3 -m http.server 8000 --bind 127.0.0.1 --directory site' });
  await waitFor(async () => !(await toolCall(srv.url, 'sandbox_http', { session: 'site', port: 8000 })).result.isError, {
    timeoutMs: 30_000, what: 'the site to serve',
  });
  const link = JSON.parse((await call('sandbox_http', { session: 'site', port: 8000, preview: true })).content[0].text);
  const u = new URL(link.url);
  assert.match(u.hostname, /^p[0-9a-f]{20}\.localhost$/, 'an origin of the session\'s own');
  assert.match(u.pathname, /^\/preview\/site\/8000\/\d+\.[0-9a-f]{64}\/$/);
  assert.notEqual(u.port, new URL(srv.url).port, 'not the MCP port');
  assert.ok(Date.parse(link.expires) > Date.now());
  // A second port of the session is another origin.
  const other = new URL(JSON.parse((await call('sandbox_http', { session: 'site', port: 8001, preview: true })).content[0].text).url);
  assert.notEqual(other.hostname, u.hostname);

  // The preview listener serves previews only, and only signed ones.
  assert.equal((await request(`http://127.0.0.1:${u.port}/mcp`, { body: {} })).status, 404);
  // And a page of that origin cannot call the MCP endpoint as the user.
  const fromPage = await request(srv.url, {
    headers: { origin: u.origin },
    body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: MODERN_META } },
  });
  assert.equal(fromPage.status, 403);
  const [exp, sig] = u.pathname.split('/')[4].split('.');
  const flip = sig.replace(/^./, (c) => (c === '0' ? '1' : '0'));
  const base = `http://${u.host}`;
  for (const bad of [`/preview/site/8000/${exp}.${flip}/`, `/preview/site/8001/${exp}.${sig}/`, `/preview/site/8000/${Number(exp) + 1}.${sig}/`, '/preview/site/8000/']) {
    const r = await previewGet(`${base}${bad}`);
    assert.ok([403, 404].includes(r.status), `${bad}: ${r.status}`);
  }
  // The right link at another host name (another session's origin, or a
  // name a page elsewhere resolves to this machine): refused.
  for (const host of [other.host, `127.0.0.1:${u.port}`, `evil.example:${u.port}`])
    assert.equal((await previewGet(link.url, '', { host })).status, 403, host);
  // No service workers: one would outlive the link.
  assert.equal((await previewGet(link.url, 'sw.js', { headers: { 'service-worker': 'script' } })).status, 403);
  const css = await previewGet(link.url, 'style.css');
  assert.equal(css.status, 200);
  assert.match(css.body, /background: #0000ff/);
  assert.equal(css.headers['content-type'], 'text/css', 'header names passed on lower-cased');

  // Headless Chromium draws the page: the script's fetch of its own API
  // turned the background red.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-chromium-'));
  h.t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const shot = path.join(dir, 'shot.png');
  await run(browser, ['--headless', '--no-sandbox', '--disable-gpu', `--user-data-dir=${dir}/profile`,
    '--virtual-time-budget=5000', '--window-size=320,240', `--screenshot=${shot}`, link.url], { timeout: 90_000 });
  const red = share(shot, [255, 0, 0]);
  assert.ok(red > 0.8, `the page is red (its own API answered through the preview): ${(red * 100).toFixed(1)}% red`);
});

e2e('over HTTP, processes, services and preview links are their tenant\'s', { timeoutMs: 180_000 }, async (h) => {
  const file = tokensFile(h);
  const alice = newToken(file, 'alice');
  const bob = newToken(file, 'bob');
  const st = withStateDir(h);
  const srv = await startHttp(h, { env: st.env({ ...PYTHON, SANDBOX_HTTP_TOKENS_FILE: file, SANDBOX_HTTP_PREVIEW_LISTEN: '127.0.0.1:0' }) });
  const as = async (tok, name, args) => (await toolCall(srv.url, name, args, { token: tok })).result;
  const ok = async (tok, name, args) => {
    const r = await as(tok, name, args);
    assert.equal(r.isError ?? false, false, JSON.stringify(r));
    return r;
  };
  for (const [tok, who] of [[alice, 'alice'], [bob, 'bob']]) {
    await ok(tok, 'sandbox_session', { action: 'create', language: 'python', name: 'web' });
    await ok(tok, 'sandbox_execute', { session: 'web', code: `open('index.html', 'w').write('${who}')` });
  }
  const started = JSON.parse((await ok(alice, 'sandbox_process', { action: 'start', session: 'web', command: 'python3 -m http.server 8000 --bind 127.0.0.1' })).content[0].text);
  await waitFor(async () => !(await as(alice, 'sandbox_http', { session: 'web', port: 8000, path: '/index.html' })).isError, {
    timeoutMs: 30_000, what: 'alice\'s server',
  });
  assert.equal(JSON.parse((await ok(alice, 'sandbox_http', { session: 'web', port: 8000, path: '/index.html' })).content[0].text).body, 'alice');
  // Bob's "web" is his own: no process of alice's, nothing on her port.
  assert.deepEqual(JSON.parse((await ok(bob, 'sandbox_process', { action: 'list', session: 'web' })).content[0].text).processes, []);
  assert.equal(toolError(await as(bob, 'sandbox_process', { action: 'logs', session: 'web', pid: started.process.pid })).code, 'process_not_found');
  assert.equal(toolError(await as(bob, 'sandbox_http', { session: 'web', port: 8000 })).code, 'port_closed');
  // Alice's link names her session; swapped for bob's, it is refused.
  const link = JSON.parse((await ok(alice, 'sandbox_http', { session: 'web', port: 8000, preview: true })).content[0].text).url;
  assert.match(link, /\/preview\/alice\.web\/8000\//);
  assert.equal((await previewGet(link, 'index.html')).body, 'alice');
  assert.equal((await previewGet(link.replace('/alice.web/', '/bob.web/'), 'index.html')).status, 403);
});
