// MCP over Streamable HTTP (`mcp-sandbox serve --http`, docs/http.md):
// the official SDK clients of both eras against the real server on
// 127.0.0.1, and raw requests for what a client must not be able to do
// (other origins and hosts, oversized or slow requests, sessions that are
// not its own, headers that contradict the body).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http2 from 'node:http2';
import net from 'node:net';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { engineGate } from './lib/docker.mjs';
import { makeCerts } from './lib/engines.mjs';
import { MODERN_META, modernHeaders, request, sseMessages, startHttp, toolCall } from './lib/http.mjs';
import { e2e, runResult, toolError } from './lib/server.mjs';
import { withStateDir } from './lib/sessions.mjs';
import { waitFor } from './lib/wait.mjs';

const ENV = { SANDBOX_POOL_SIZE: '0', SANDBOX_BASH_POOL_SIZE: '1', SANDBOX_POOL_WARM_AT_START: 'bash' };
const INIT = {
  jsonrpc: '2.0', id: 1, method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'e2e-raw', version: '1' } },
};

async function v1Client(h, url) {
  const client = new ClientV1({ name: 'e2e-http-v1', version: '1.0.0' });
  const transport = new HttpV1(new URL(url));
  await client.connect(transport);
  h.t.after(() => client.close().catch(() => {}));
  return { client, transport };
}

/**
 * One POST over a socket of its own with the head's lines as given (a Host
 * header the test writes itself: empty, or none): { status, json }.
 */
function rawPost(url, headLines, msg) {
  const u = new URL(url);
  const body = JSON.stringify(msg);
  const extra = Object.entries(modernHeaders(msg)).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  const sock = net.connect(Number(u.port), '127.0.0.1');
  let got = '';
  sock.on('data', (c) => { got += c; });
  sock.write(`POST /mcp HTTP/1.1\r\n${headLines}Content-Type: application/json\r\nConnection: close\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  return new Promise((resolve, reject) => {
    sock.on('error', reject);
    sock.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d+)/.exec(got)?.[1]);
      let json;
      try { json = JSON.parse(got.slice(got.indexOf('\r\n\r\n') + 4)); } catch { /* none */ }
      resolve({ status, json, text: got });
    });
  });
}

/** Opens a 2025-era session by hand: its Mcp-Session-Id. */
async function rawSession(url) {
  const r = await request(url, { body: INIT });
  assert.equal(r.status, 200, r.body);
  const sid = r.headers['mcp-session-id'];
  assert.match(sid, /^[0-9a-f]{32}$/);
  return sid;
}

e2e('the 1.x SDK over Streamable HTTP: initialize opens a session, a call streams its progress, a sandbox session keeps state, DELETE ends it', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await startHttp(h, { env: st.env(ENV) });
  assert.match(s.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  const { client, transport } = await v1Client(h, s.url);
  assert.match(transport.sessionId, /^[0-9a-f]{32}$/, 'the server named the session');
  const { tools } = await client.listTools();
  assert.ok(tools.some((t) => t.name === 'sandbox_execute'));

  const progress = [];
  const r = await client.callTool({ name: 'sandbox_execute', arguments: { language: 'bash', code: 'echo one; sleep 0.5; echo two' } },
    undefined, { onprogress: (p) => progress.push(p) });
  const run = runResult(r);
  assert.equal(run.stdout, 'one\ntwo\n');
  assert.ok(progress.some((p) => /one/.test(p.message ?? '')), `progress before the result: ${JSON.stringify(progress)}`);

  const c = await client.callTool({ name: 'sandbox_session', arguments: { action: 'create', language: 'bash', name: 'web' } });
  assert.equal(c.isError ?? false, false, JSON.stringify(c));
  runResult(await client.callTool({ name: 'sandbox_execute', arguments: { language: 'bash', session: 'web', code: 'N=41' } }));
  const again = runResult(await client.callTool({ name: 'sandbox_execute', arguments: { language: 'bash', session: 'web', code: 'echo $((N+1))' } }));
  assert.equal(again.stdout, '42\n');
  assert.equal((await client.callTool({ name: 'sandbox_session', arguments: { action: 'destroy', name: 'web' } })).isError ?? false, false);

  // Two 7 MiB files staged (19.6 MB of base64, within max_message_bytes)
  // run; a body over it is a 413 for that call alone, not a wait.
  const seven = Buffer.alloc(7 * 1024 * 1024, 'ab\n').toString('base64');
  const staged = runResult(await client.callTool({ name: 'sandbox_execute', arguments: { language: 'bash', code: 'stat -c %s a.bin b.bin', files: [{ path: 'a.bin', content: seven, encoding: 'base64' }, { path: 'b.bin', content: seven, encoding: 'base64' }] } }));
  assert.equal(staged.stdout, `${7 * 1024 * 1024}\n${7 * 1024 * 1024}\n`);
  // (h2o answers 413 from the Content-Length and may close the
  // connection before the body is sent: then fetch itself fails.)
  await assert.rejects(client.callTool({ name: 'sandbox_execute', arguments: { language: 'bash', code: 'wc -c', stdin: 'x'.repeat(25 * 1024 * 1024) } }), /request entity is too large|fetch failed/);

  // A frame sent twice in the session: the duplicate is refused with id
  // null (in its own stream), so the call keeps its own result.
  const errors = [];
  client.onerror = (e) => errors.push(String(e?.message ?? e));
  const send = transport.send.bind(transport);
  let duplicated = null;
  transport.send = async (m, o) => {
    await send(m, o);
    if (m.method === 'tools/call' && duplicated === null) {
      duplicated = m.id;
      await send({ ...m, params: { ...m.params, arguments: { language: 'bash', code: 'echo second' } } }, o).catch((e) => errors.push(String(e)));
    }
  };
  const first = runResult(await client.callTool({ name: 'sandbox_execute', arguments: { language: 'bash', code: 'sleep 1; echo first' } }));
  assert.equal(first.stdout, 'first\n');
  assert.notEqual(duplicated, null);
  assert.equal(errors.length, 1, `the refusal went to onerror: ${JSON.stringify(errors).slice(0, 500)}`);
  transport.send = send;
  // The same id sent while the call runs, in a response that is not a
  // stream: 409, id null, the id in data. Running: its first output came.
  let callId = null;
  transport.send = async (m, o) => {
    if (m.method === 'tools/call') callId = m.id;
    return send(m, o);
  };
  const seen = [];
  const running = client.callTool({ name: 'sandbox_execute', arguments: { language: 'bash', code: 'echo one; sleep 1; echo two' } },
    undefined, { onprogress: (p) => seen.push(p.message ?? '') });
  await waitFor(() => seen.some((m) => /one/.test(m)), { timeoutMs: 30_000, what: 'the call\'s first output' });
  const dup = await request(s.url, {
    headers: { 'mcp-session-id': transport.sessionId, 'mcp-protocol-version': '2025-06-18', accept: 'application/json' },
    body: { jsonrpc: '2.0', id: callId, method: 'tools/call', params: { name: 'sandbox_execute', arguments: { language: 'bash', code: 'echo again' } } },
  });
  assert.equal(dup.status, 409, dup.body);
  assert.deepEqual([dup.json.id, dup.json.error.code, dup.json.error.data], [null, -32600, { duplicateId: callId }]);
  assert.equal(runResult(await running).stdout, 'one\ntwo\n');
  transport.send = send;

  const sid = transport.sessionId;
  await transport.terminateSession();
  const after = await request(s.url, { headers: { 'mcp-session-id': sid }, body: { jsonrpc: '2.0', id: 5, method: 'tools/list' } });
  assert.equal(after.status, 404, 'an ended session is not found');
  assert.equal(after.json.error.code, -32600);
});

e2e('the 2.x client in the stateless revision over HTTP: no session, the version in every request, two clients at once', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await startHttp(h, { env: st.env(ENV) });
  const clients = [];
  for (const name of ['a', 'b']) {
    const client = new ClientV2({ name: `e2e-http-v2-${name}`, version: '2.4.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const transport = new HttpV2(new URL(s.url));
    await client.connect(transport);
    h.t.after(() => client.close().catch(() => {}));
    assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
    assert.equal(transport.sessionId, undefined, 'no session in the stateless revision');
    clients.push(client);
  }
  const runs = await Promise.all(clients.map((c, i) => c.callTool({ name: 'sandbox_execute', arguments: { language: 'bash', code: `echo client ${i}` } })));
  runs.forEach((r, i) => assert.equal(runResult(r).stdout, `client ${i}\n`));
  const { tools } = await clients[0].listTools();
  assert.ok(tools.some((t) => t.name === 'sandbox_session'));
  // Sessions are named in the arguments: a session made by one client is
  // the other's to use (no tenants configured here).
  assert.equal((await clients[0].callTool({ name: 'sandbox_session', arguments: { action: 'create', language: 'bash', name: 'shared' } })).isError ?? false, false);
  runResult(await clients[0].callTool({ name: 'sandbox_execute', arguments: { language: 'bash', session: 'shared', code: 'echo v > /work/f' } }));
  assert.equal(runResult(await clients[1].callTool({ name: 'sandbox_execute', arguments: { language: 'bash', session: 'shared', code: 'cat /work/f' } })).stdout, 'v\n');
  await clients[1].callTool({ name: 'sandbox_session', arguments: { action: 'destroy', name: 'shared' } });
});

e2e('refused: other origins and hosts, other methods and types, missing or unknown sessions, headers that contradict the body, oversized bodies', { timeoutMs: 60_000 }, async (h) => {
  const s = await startHttp(h, {
    env: { ...ENV, SANDBOX_BASH_POOL_SIZE: '0', SANDBOX_POOL_WARM_AT_START: '', SANDBOX_HTTP_ALLOWED_ORIGINS: 'https://app.example', SANDBOX_SERVER_MAX_MESSAGE_BYTES: '65536' },
  });
  const list = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: MODERN_META } };
  const ok = await request(s.url, { body: list });
  assert.equal(ok.status, 200, ok.body);
  assert.equal(ok.headers['content-type'], 'application/json');
  assert.ok(ok.json.result.tools.length >= 6);

  // A page elsewhere, or a name that resolves here (DNS rebinding).
  let r = await request(s.url, { headers: { origin: 'https://evil.example' }, body: list });
  assert.equal(r.status, 403);
  assert.match(r.json.error.message, /Origin not allowed/);
  r = await request(s.url, { headers: { origin: 'https://app.example' }, body: list });
  assert.equal(r.status, 200, 'a configured origin is let in');
  const port = new URL(s.url).port;
  r = await request(s.url, { headers: { host: `evil.example:${port}` }, body: list });
  assert.equal(r.status, 403);
  assert.match(r.json.error.message, /Host not allowed/);
  r = await request(s.url, { headers: { host: `localhost:${port}` }, body: list });
  assert.equal(r.status, 200);
  r = await request(s.url, { headers: { origin: `http://127.0.0.1:${port}` }, body: list });
  assert.equal(r.status, 200, 'the server\'s own origin');
  // With every Host let in, a page's own origin is not enough: a
  // rebinding page's Origin always equals its Host.
  const open = await startHttp(h, { env: { ...ENV, SANDBOX_BASH_POOL_SIZE: '0', SANDBOX_POOL_WARM_AT_START: '', SANDBOX_HTTP_ALLOWED_HOSTS: '*' } });
  const oport = new URL(open.url).port;
  r = await request(open.url, { headers: { host: `evil.example:${oport}`, origin: `http://evil.example:${oport}` }, body: list });
  assert.equal(r.status, 403);
  r = await request(open.url, { headers: { host: `evil.example:${oport}` }, body: list });
  assert.equal(r.status, 200, 'allowed_hosts = * lets any Host in');
  // ... but not an empty one, nor a port without a name: refused like a
  // wrong one, on either server.
  for (const [srv, head] of [[open, 'Host: \r\n'], [open, `Host: :${oport}\r\n`], [open, ''], [s, 'Host: \r\n'], [s, '']]) {
    r = await rawPost(srv.url, head, list);
    assert.equal(r.status, 403, `${JSON.stringify(head)}: ${r.text}`);
    assert.match(r.json.error.message, /Host not allowed/);
  }
  assert.equal((await rawPost(open.url, `Host: localhost:${oport}\r\n`, list)).status, 200, 'the raw request itself is fine');

  r = await request(s.url, { method: 'GET' });
  assert.equal(r.status, 405);
  assert.equal(r.headers.allow, 'POST, DELETE');
  r = await request(s.url, { headers: { 'content-type': 'text/plain' }, body: JSON.stringify(list) });
  assert.equal(r.status, 415);
  r = await request(s.url.replace(/\/mcp$/, '/other'), { body: list });
  assert.equal(r.status, 404);

  // The 2025 era: a request needs its session; another's name is unknown.
  r = await request(s.url, { body: { jsonrpc: '2.0', id: 3, method: 'tools/list' } });
  assert.equal(r.status, 400);
  assert.match(r.json.error.message, /Mcp-Session-Id header is required/);
  r = await request(s.url, { headers: { 'mcp-session-id': 'f'.repeat(32) }, body: { jsonrpc: '2.0', id: 3, method: 'tools/list' } });
  assert.equal(r.status, 404);
  const sid = await rawSession(s.url);
  r = await request(s.url, { headers: { 'mcp-session-id': sid, 'mcp-protocol-version': '1999-01-01' }, body: { jsonrpc: '2.0', id: 4, method: 'tools/list' } });
  assert.equal(r.status, 400, 'an unknown protocol version header');
  r = await request(s.url, { headers: { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' }, body: { jsonrpc: '2.0', id: 4, method: 'tools/list' } });
  assert.equal(r.status, 200);
  r = await request(s.url, { headers: { 'mcp-session-id': sid }, body: { jsonrpc: '2.0', method: 'notifications/initialized' } });
  assert.equal(r.status, 202);
  assert.equal(r.body, '');
  // A notification refused (\u0000): not accepted, so a 400 whose error
  // has no id (MCP's HTTP transport), where stdio sends nothing.
  r = await request(s.url, { headers: { 'mcp-session-id': sid }, body: '{"jsonrpc":"2.0","method":"notifications/x","params":{"s":"\\u0000"}}' });
  assert.deepEqual([r.status, r.json?.id, r.json?.error?.code], [400, null, -32600]);

  // The stateless revision's headers must be there and say what the body
  // says (-32020, with the request's id), its _meta be whole (-32602), its
  // version one served (-32022); a method it lacks is a 404.
  for (const [headers, code] of [
    [{ 'mcp-method': 'tools/call' }, -32020],
    [{ 'mcp-method': undefined }, -32020],
    [{ 'mcp-protocol-version': undefined }, -32020],
    [{ 'mcp-protocol-version': '2025-06-18' }, -32020],
  ]) {
    r = await request(s.url, { headers, body: list });
    assert.equal(r.status, 400, JSON.stringify(headers));
    assert.deepEqual([r.json.id, r.json.error.code], [2, code], JSON.stringify(headers));
  }
  // ... with the id as sent: cJSON's copy of "x\u0000y" is "x".
  r = await request(s.url, { headers: { 'mcp-method': 'tools/call' }, body: { ...list, id: 'x\u0000y' } });
  assert.equal(r.status, 400);
  assert.equal(r.json.id, 'x\u0000y');
  r = await request(s.url, { headers: { 'mcp-protocol-version': '2026-07-28' }, body: { jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} } });
  assert.deepEqual([r.status, r.json.error.code], [400, -32602]);
  r = await request(s.url, { body: { ...list, params: { _meta: { ...MODERN_META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } } } });
  assert.deepEqual([r.status, r.json.error.code, r.json.error.data.supported], [400, -32022, ['2026-07-28']]);
  r = await request(s.url, { body: { jsonrpc: '2.0', id: 4, method: 'ping', params: { _meta: MODERN_META } } });
  assert.deepEqual([r.status, r.json.error.code], [404, -32601]);
  const call = { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'sandbox_inspect', arguments: { what: 'limits' }, _meta: MODERN_META } };
  r = await request(s.url, { headers: { 'mcp-name': 'sandbox_execute' }, body: call });
  assert.equal(r.json.error.code, -32020);
  r = await request(s.url, { headers: { 'mcp-name': undefined }, body: call });
  assert.equal(r.json.error.code, -32020, 'Mcp-Name is required when the body names a tool');
  r = await request(s.url, { headers: { 'mcp-name': '  sandbox_inspect\t', accept: 'application/json' }, body: call });
  assert.equal(r.status, 200, 'blanks around a header value are not part of it');
  assert.equal(r.json.result.isError ?? false, false, r.body);

  // Malformed messages: JSON-RPC errors without an id, status 400.
  r = await request(s.url, { body: '{"jsonrpc":' });
  assert.equal(r.status, 400);
  assert.equal(r.json.error.code, -32700);
  r = await request(s.url, { body: [list] });
  assert.equal(r.status, 400);
  assert.match(r.json.error.message, /batches are not supported/);

  // Bodies over max_message_bytes never reach the server.
  r = await request(s.url, { body: { ...list, params: { ...list.params, pad: 'x'.repeat(70_000) } } });
  assert.equal(r.status, 413);
  // ... and it still serves.
  assert.equal((await request(s.url, { body: list })).status, 200);
});

e2e('a client that sends half a request is cut off after request_timeout_ms; the server goes on serving', { timeoutMs: 60_000 }, async (h) => {
  const s = await startHttp(h, { env: { ...ENV, SANDBOX_POOL_WARM_AT_START: '', SANDBOX_BASH_POOL_SIZE: '0', SANDBOX_HTTP_REQUEST_TIMEOUT_MS: '500' } });
  const u = new URL(s.url);
  const closed = [];
  for (const partial of [`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n`, `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"jsonrpc"`]) {
    const sock = net.connect(Number(u.port), '127.0.0.1');
    let got = '';
    sock.on('data', (c) => { got += c; });
    sock.write(partial);
    closed.push(new Promise((resolve) => sock.on('close', () => resolve(got))));
  }
  // Waited for as events: each socket's close, with no answer on it.
  assert.deepEqual(await Promise.all(closed), ['', '']);
  const r = await request(s.url, { body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: MODERN_META } } });
  assert.equal(r.status, 200);
});

/** A POST over a socket of its own, read as it comes: { text(), ended, sock }. */
function rawStream(url, msg) {
  const u = new URL(url);
  const body = JSON.stringify(msg);
  const sock = net.connect(Number(u.port), '127.0.0.1');
  let got = '';
  sock.on('data', (c) => { got += c; });
  const ended = new Promise((resolve) => sock.on('close', () => resolve(got)));
  const extra = Object.entries(modernHeaders(msg)).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  sock.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  return { sock, ended, text: () => got };
}

/** The JSON-RPC messages of a raw HTTP/1.1 event stream (chunked). */
function rawMessages(text) {
  return text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)));
}

const longCall = (id, code) => ({
  jsonrpc: '2.0', id, method: 'tools/call',
  params: { name: 'sandbox_execute', arguments: { language: 'bash', code }, _meta: { ...MODERN_META, progressToken: id } },
});

e2e('a client that goes away mid-call: the call is cancelled and its container released; stateless requests beyond max_stateless_inflight get 503; SIGTERM ends an open stream with shutting_down', { timeoutMs: 120_000 }, async (h) => {
  const s = await startHttp(h, { env: { ...ENV, SANDBOX_HTTP_HEARTBEAT_MS: '200', SANDBOX_HTTP_MAX_STATELESS_INFLIGHT: '1' } });
  const gone = rawStream(s.url, longCall(7, 'echo started; sleep 600'));
  await waitFor(() => /started/.test(gone.text()), { timeoutMs: 60_000, what: 'the call\'s first output on the stream' });
  assert.match(gone.text(), /content-type: text\/event-stream/i);
  // One stateless request in flight, the cap: the next is refused at once
  // with its own id and a Retry-After; a 2025-era session's request is no
  // stateless one and is served.
  const busy = await request(s.url, { body: { jsonrpc: '2.0', id: 'busy-1', method: 'tools/list', params: { _meta: MODERN_META } } });
  assert.deepEqual([busy.status, busy.headers['retry-after'], busy.json?.id, busy.json?.error?.code, busy.json?.error?.data?.code], [503, '1', 'busy-1', -32000, 'server_busy'], busy.body.slice(0, 300));
  assert.match(busy.json.error.message, /max_stateless_inflight/);
  const sid = await rawSession(s.url);
  assert.equal((await request(s.url, { headers: { 'mcp-session-id': sid }, body: { jsonrpc: '2.0', id: 2, method: 'tools/list' } })).status, 200);
  gone.sock.destroy();
  await waitFor(() => /1 request cancelled: the client went away/.test(s.stderr), { timeoutMs: 30_000, what: 'the server noticing' });
  // The box is reset and back in the pool: the next call runs (once the
  // cancelled call has ended and freed its room).
  const next = await waitFor(async () => {
    const r = await request(s.url, { body: longCall(8, 'echo next') });
    return r.status === 503 ? null : r;
  }, { timeoutMs: 30_000, what: 'room for a stateless request' });
  assert.equal(runResult(sseMessages(next.body).at(-1).result).stdout, 'next\n');

  // A stream still open at SIGTERM gets its answer, then the server exits 0.
  let open;
  await waitFor(async () => {
    open = rawStream(s.url, longCall(9, 'echo running; sleep 600'));
    await waitFor(() => /running|503 Service/.test(open.text()), { timeoutMs: 60_000, what: 'the second call running' });
    if (/running/.test(open.text())) return true;
    open.sock.destroy();
    return false;
  }, { timeoutMs: 60_000, what: 'the second call admitted' });
  await s.close();
  const last = rawMessages(await open.ended).at(-1);
  assert.equal(last.id, 9);
  assert.equal(toolError(last.result).code, 'shutting_down');
});

// A call that names a session waits while the predecessor's sessions are
// re-adopted (docs/sessions.md), over HTTP as over stdio: with the engine
// held, the re-adoption cannot end; a session's call (a 2025-era session)
// and a stateless 2026-07-28 call arrive and wait; once the engine answers
// both run. (Before, over HTTP, nothing ran them: they waited for ever.)
e2e('calls over HTTP that arrive while the sessions are re-adopted wait for it, then run: a session\'s and a stateless one', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  // Every request to the engine held until pass().
  const engine = await engineGate(h, { match: /^/, mode: 'hold' });
  const s = await startHttp(h, { env: st.env({ ...ENV, DOCKER_HOST: engine.host, SANDBOX_SERVER_LOG_LEVEL: 'debug' }) });
  const sid = await rawSession(s.url);
  const inSession = request(s.url, {
    headers: { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18', accept: 'application/json' },
    body: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'sandbox_session', arguments: { action: 'create', language: 'bash', name: 'a' } } },
  });
  const stateless = toolCall(s.url, 'sandbox_session', { action: 'create', language: 'bash', name: 'b' });
  await waitFor(() => (s.stderr.match(/waits for the re-adoption of the sessions/g) ?? []).length >= 2,
    { timeoutMs: 30_000, what: 'both calls waiting for the re-adoption' });
  engine.pass();
  const [a, b] = await Promise.all([inSession, stateless]);
  assert.equal(a.status, 200, a.body);
  const ra = a.json ?? sseMessages(a.body).at(-1);
  assert.equal(ra.result?.isError ?? false, false, JSON.stringify(ra));
  assert.equal(ra.result.structuredContent.session.name, 'a', JSON.stringify(ra));
  assert.equal(b.status, 200);
  assert.equal(b.result?.isError ?? false, false, JSON.stringify(b));
  assert.equal(b.result.structuredContent.session.name, 'b', JSON.stringify(b));
});

e2e('HTTPS with the server\'s certificate, HTTP/1.1 and HTTP/2 (ALPN); plain HTTP to it gets nowhere', { timeoutMs: 60_000 }, async (h) => {
  const certs = makeCerts(h);
  const s = await startHttp(h, { env: { ...ENV, SANDBOX_BASH_POOL_SIZE: '0', SANDBOX_POOL_WARM_AT_START: '', SANDBOX_HTTP_TLS_CERT: certs.server.cert, SANDBOX_HTTP_TLS_KEY: certs.server.key } });
  assert.match(s.url, /^https:\/\/127\.0\.0\.1:\d+\/mcp$/);
  const ca = fs.readFileSync(certs.ca.cert);
  const r = await request(s.url, { ca, body: INIT });
  assert.equal(r.status, 200);
  assert.match(r.headers['mcp-session-id'], /^[0-9a-f]{32}$/);
  await assert.rejects(request(s.url, { body: INIT }), /self.signed|unable to verify|certificate/i, 'a client that does not trust the CA');
  await assert.rejects(request(s.url.replace('https:', 'http:'), { body: INIT, timeoutMs: 5000 }), 'plain HTTP to the TLS port');

  const session = http2.connect(new URL(s.url).origin, { ca });
  h.t.after(() => session.close());
  const h2 = await new Promise((resolve, reject) => {
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: MODERN_META } };
    const req = session.request({ ':method': 'POST', ':path': '/mcp', 'content-type': 'application/json', accept: 'application/json', ...modernHeaders(body) });
    let text = '';
    let status;
    req.on('response', (hd) => { status = hd[':status']; });
    req.on('data', (c) => { text += c; });
    req.on('end', () => resolve({ status, json: JSON.parse(text) }));
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
  assert.equal(h2.status, 200);
  assert.ok(h2.json.result.tools.length >= 6);
});

e2e('sessions are bounded (max_sessions: 503 beyond); a never-used session ends after unused_session_idle_s, a used one lives on; beyond loopback without tokens the server does not start; stdio stays the default', { timeoutMs: 60_000 }, async (h) => {
  const s = await startHttp(h, { env: { ...ENV, SANDBOX_BASH_POOL_SIZE: '0', SANDBOX_POOL_WARM_AT_START: '', SANDBOX_HTTP_MAX_SESSIONS: '2', SANDBOX_HTTP_UNUSED_SESSION_IDLE_S: '3' } });
  // 3 s: long enough that a session is used (the next request) before it
  // could count as never used, on a loaded machine too.
  const list = (sid, id = 2) => request(s.url, { headers: { 'mcp-session-id': sid }, body: { jsonrpc: '2.0', id, method: 'tools/list' } });
  // Sessions in use: a request after initialize.
  const first = await rawSession(s.url);
  assert.equal((await list(first)).status, 200);
  const second = await rawSession(s.url);
  assert.equal((await list(second)).status, 200);
  const r = await request(s.url, { body: INIT });
  assert.equal(r.status, 503);
  assert.match(r.json.error.message, /max_sessions/);
  assert.equal(r.json.id, 1, 'the refusal names the request');
  // Ending one makes room.
  assert.equal((await request(s.url, { method: 'DELETE', headers: { 'mcp-session-id': second } })).status, 200);
  // One opened and never used (the initialized notification is no use)
  // ends after the short limit; the used one keeps session_idle_s.
  const idle = await rawSession(s.url);
  assert.equal((await request(s.url, { headers: { 'mcp-session-id': idle }, body: { jsonrpc: '2.0', method: 'notifications/initialized' } })).status, 202);
  await waitFor(() => new RegExp(`HTTP session ${idle.slice(0, 8)}\\.\\.\\. ended after 3 s idle \\(never used\\)`).test(s.stderr), { timeoutMs: 30_000, what: 'the never-used session ending' });
  assert.equal((await list(idle)).status, 404);
  assert.equal((await list(first)).status, 200, 'a used session lives on');
  assert.equal((await request(s.url, { body: INIT })).status, 200, 'its room is free');

  const open = await import('./lib/http.mjs').then((m) => new m.HttpServer({ args: ['serve', '--http', '0.0.0.0:0'], env: ENV }));
  await assert.rejects(open.start(), /reachable from other machines and no \[http\] tokens_file/);
  open.closed = true;

  // [http] listen alone does not turn the stdio server into an HTTP one.
  const stdio = await h.start({ env: { ...ENV, SANDBOX_BASH_POOL_SIZE: '0', SANDBOX_HTTP_LISTEN: '127.0.0.1:0' } });
  assert.ok(stdio.tools.some((t) => t.name === 'sandbox_execute'));
});
