// Tenants of an HTTP server (docs/http.md, "Tenants"): bearer tokens from
// a file that `mcp-sandbox token` writes (hashes only), each tenant kept
// out of the others' sessions, artifacts and audit events even when it
// knows their names, quotas answered quota_exceeded, the file read again
// on SIGHUP. Every attempt here is one a tenant could make.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { MODERN_META, modernRequest, newToken, request, startHttp, tokensFile, toolCall } from './lib/http.mjs';
import { BIN, e2e, runResult, toolError } from './lib/server.mjs';
import { withStateDir } from './lib/sessions.mjs';
import { waitFor } from './lib/wait.mjs';

const ENV = { SANDBOX_POOL_SIZE: '0', SANDBOX_BASH_POOL_SIZE: '1', SANDBOX_POOL_WARM_AT_START: 'bash' };

const ok = (r) => {
  assert.equal(r.status, 200, JSON.stringify(r));
  assert.equal(r.result?.isError ?? false, false, JSON.stringify(r.result ?? r.error));
  return r.result;
};
const run = (r) => runResult(ok(r));
const err = (r) => toolError(r.result);

e2e('mcp-sandbox token writes a hash, never the token; a second token for a name is refused', { docker: false }, async (h) => {
  const file = tokensFile(h);
  const token = newToken(file, 'alice');
  assert.match(token, /^sbx_[A-Za-z0-9_-]{43}$/);
  const text = fs.readFileSync(file, 'utf8');
  const hash = crypto.createHash('sha256').update(token).digest('hex');
  assert.equal(text, `alice sha256:${hash}\n`);
  assert.ok(!text.includes(token.slice(4)), 'the token itself is not at rest');
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.throws(() => execFileSync(BIN, ['token', 'alice', '--file', file], { stdio: 'pipe' }), /already names tenant alice/);
  assert.throws(() => execFileSync(BIN, ['token', 'Bad.Name', '--file', file], { stdio: 'pipe' }), /tenant's name/);
});

e2e('tenants over HTTP: no token or a wrong one gets 401; B cannot list, read, run in or destroy A\'s session, even by name; same names stay apart', { timeoutMs: 180_000 }, async (h) => {
  const file = tokensFile(h);
  const alice = newToken(file, 'alice');
  const bob = newToken(file, 'bob');
  const st = withStateDir(h);
  const s = await startHttp(h, { env: st.env({ ...ENV, SANDBOX_HTTP_TOKENS_FILE: file }) });

  // No token, a wrong one, a malformed header.
  for (const auth of [undefined, 'Bearer sbx_nope', `Basic ${alice}`, `Bearer ${alice}x`]) {
    const r = await request(s.url, { headers: auth ? { authorization: auth } : {}, body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: MODERN_META } } });
    assert.equal(r.status, 401, `${auth}: ${r.body}`);
    assert.equal(r.headers['www-authenticate'], 'Bearer realm="mcp-sandbox"');
  }

  // Alice's session, with a file and a variable.
  ok(await toolCall(s.url, 'sandbox_session', { action: 'create', language: 'bash', name: 'work' }, { token: alice }));
  run(await toolCall(s.url, 'sandbox_execute', { session: 'work', code: 'SECRET=alice-only; echo alice-data > /work/secret.txt' }, { token: alice }));

  // Bob sees none of it, by list or by name, whatever the door.
  const list = ok(await toolCall(s.url, 'sandbox_session', { action: 'list' }, { token: bob }));
  assert.deepEqual(JSON.parse(list.content[0].text).sessions, []);
  assert.equal(err(await toolCall(s.url, 'sandbox_execute', { session: 'work', code: 'echo $SECRET' }, { token: bob })).code, 'session_not_found');
  assert.equal(err(await toolCall(s.url, 'sandbox_session', { action: 'get', name: 'work' }, { token: bob })).code, 'session_not_found');
  assert.equal(err(await toolCall(s.url, 'sandbox_session', { action: 'destroy', name: 'work' }, { token: bob })).code, 'session_not_found');
  assert.equal(err(await toolCall(s.url, 'sandbox_session', { action: 'pause', name: 'work' }, { token: bob })).code, 'session_not_found');
  assert.equal(err(await toolCall(s.url, 'sandbox_file_ops', { action: 'read', session: 'work', path: 'secret.txt' }, { token: bob })).code, 'session_not_found');
  assert.equal(err(await toolCall(s.url, 'sandbox_file_ops', { action: 'read', path: 'sandbox://session/work/secret.txt' }, { token: bob })).code, 'session_not_found');
  // ... nor by the name the server holds it under.
  for (const name of ['alice.work', '../work', 'alice/work']) {
    const r = err(await toolCall(s.url, 'sandbox_execute', { session: name, code: 'echo $SECRET' }, { token: bob }));
    assert.ok(['session_not_found', 'invalid_arguments'].includes(r.code), `${name}: ${JSON.stringify(r)}`);
  }
  const res = await modernRequest(s.url, 'resources/list', {}, { token: bob });
  assert.ok(!JSON.stringify(res.json.result).includes('work'), JSON.stringify(res.json.result));
  const read = await modernRequest(s.url, 'resources/read', { uri: 'sandbox://session/work/secret.txt' }, { token: bob });
  assert.ok(read.json.error, JSON.stringify(read.json));
  // The operator's host directory is no tenant's.
  assert.equal(err(await toolCall(s.url, 'sandbox_file_ops', { action: 'export', session: 'work', path: 'secret.txt', to: 'x.txt' }, { token: alice })).code, 'files_root_not_set');
  const inspect = ok(await toolCall(s.url, 'sandbox_inspect', { what: 'sessions' }, { token: bob }));
  const seen = JSON.parse(inspect.content[0].text).sessions;
  assert.deepEqual([seen.open, seen.list], [0, []]);
  assert.equal(seen.max, 8, 'a tenant\'s own quota of sessions');

  // Bob's own "work" is another session; creating it says nothing of Alice's.
  ok(await toolCall(s.url, 'sandbox_session', { action: 'create', language: 'bash', name: 'work' }, { token: bob }));
  assert.equal(run(await toolCall(s.url, 'sandbox_execute', { session: 'work', code: 'echo "[$SECRET]"; ls /work' }, { token: bob })).stdout, '[]\n');
  assert.equal(run(await toolCall(s.url, 'sandbox_execute', { session: 'work', code: 'echo $SECRET; cat /work/secret.txt' }, { token: alice })).stdout, 'alice-only\nalice-data\n');
  const aliceList = JSON.parse(ok(await toolCall(s.url, 'sandbox_session', { action: 'list' }, { token: alice })).content[0].text).sessions;
  assert.deepEqual(aliceList.map((x) => x.name), ['work'], 'a tenant sees its names as it gave them');

  // A 2025-era session is its tenant's: Bob cannot ride Alice's.
  const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
  const a = await request(s.url, { headers: { authorization: `Bearer ${alice}` }, body: init });
  const sid = a.headers['mcp-session-id'];
  assert.match(sid, /^[0-9a-f]{32}$/);
  const ride = await request(s.url, { headers: { authorization: `Bearer ${bob}`, 'mcp-session-id': sid }, body: { jsonrpc: '2.0', id: 2, method: 'tools/list' } });
  assert.equal(ride.status, 404);
  const del = await request(s.url, { method: 'DELETE', headers: { authorization: `Bearer ${bob}`, 'mcp-session-id': sid } });
  assert.equal(del.status, 404);
  const mine = await request(s.url, { headers: { authorization: `Bearer ${alice}`, 'mcp-session-id': sid }, body: { jsonrpc: '2.0', id: 2, method: 'tools/list' } });
  assert.equal(mine.status, 200);

  // Real clients of both eras with a token.
  const v1 = new ClientV1({ name: 'e2e-tenant-v1', version: '1' });
  await v1.connect(new HttpV1(new URL(s.url), { requestInit: { headers: { Authorization: `Bearer ${alice}` } } }));
  h.t.after(() => v1.close().catch(() => {}));
  assert.equal(runResult(await v1.callTool({ name: 'sandbox_execute', arguments: { session: 'work', code: 'echo $SECRET' } })).stdout, 'alice-only\n');
  const v2 = new ClientV2({ name: 'e2e-tenant-v2', version: '2' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await v2.connect(new HttpV2(new URL(s.url), { requestInit: { headers: { Authorization: `Bearer ${bob}` } } }));
  h.t.after(() => v2.close().catch(() => {}));
  const bobs = await v2.callTool({ name: 'sandbox_session', arguments: { action: 'list' } });
  assert.deepEqual(JSON.parse(bobs.content[0].text).sessions.map((x) => x.name), ['work']);

  for (const [t, tok] of [['alice', alice], ['bob', bob]]) {
    ok(await toolCall(s.url, 'sandbox_session', { action: 'destroy', name: 'work' }, { token: tok }));
    assert.equal(err(await toolCall(s.url, 'sandbox_session', { action: 'get', name: 'work' }, { token: tok })).code, 'session_not_found', t);
  }
});

e2e('tenants\' artifacts, their signed links and audit events are their own; the audit log records the tenant', { timeoutMs: 120_000 }, async (h) => {
  const file = tokensFile(h);
  const alice = newToken(file, 'alice');
  const bob = newToken(file, 'bob');
  const st = withStateDir(h);
  const audit = path.join(st.dir, 'audit-test.log');
  const s = await startHttp(h, { env: st.env({ ...ENV, SANDBOX_HTTP_TOKENS_FILE: file, SANDBOX_AUDIT_FILE: audit }) });

  const r = run(await toolCall(s.url, 'sandbox_execute', { language: 'bash', code: 'echo report > /work/report.txt' }, { token: alice }));
  const uri = r.artifacts.find((x) => x.path === 'report.txt')?.uri;
  assert.match(uri, /^sandbox:\/\/artifact\/[0-9a-f]{16}\/report\.txt$/);
  const mine = ok(await toolCall(s.url, 'sandbox_file_ops', { action: 'read', path: uri }, { token: alice }));
  assert.equal(JSON.parse(mine.content[0].text).content, 'report\n');
  assert.equal(err(await toolCall(s.url, 'sandbox_file_ops', { action: 'read', path: uri }, { token: bob })).code, 'not_found');
  const rr = await modernRequest(s.url, 'resources/read', { uri }, { token: bob });
  assert.ok(rr.json.error, 'resources/read of another tenant\'s artifact fails');
  const bobList = await modernRequest(s.url, 'resources/list', {}, { token: bob });
  assert.ok(!JSON.stringify(bobList.json.result).includes('report.txt'));
  const aliceList = await modernRequest(s.url, 'resources/list', {}, { token: alice });
  assert.ok(JSON.stringify(aliceList.json.result).includes(uri), 'its own artifact is listed with its URI');

  // The same file as a signed link: no token needed, and nothing else.
  const url = r.artifacts.find((x) => x.path === 'report.txt')?.url;
  assert.match(url, new RegExp(`^${s.url.replace(/\/mcp$/, '')}/artifacts/[0-9a-f]{16}/report\\.txt\\?t=alice&exp=\\d+&sig=[0-9a-f]{64}$`));
  let g = await request(url, { method: 'GET', body: undefined });
  assert.equal(g.status, 200);
  assert.equal(g.body, 'report\n');
  assert.equal(g.headers['content-type'], 'text/plain');
  assert.equal(g.headers['content-disposition'], 'attachment; filename="report.txt"; filename*=UTF-8\'\'report.txt');
  assert.equal(g.headers['accept-ranges'], 'bytes');
  g = await request(url, { method: 'GET', headers: { range: 'bytes=1-3' } });
  assert.equal(g.status, 206);
  assert.equal(g.body, 'epo');
  assert.equal(g.headers['content-range'], 'bytes 1-3/7');
  g = await request(url, { method: 'GET', headers: { range: 'bytes=-2' } });
  assert.equal(g.body, 't\n');
  g = await request(url, { method: 'GET', headers: { range: 'bytes=7-' } });
  assert.equal(g.status, 416);
  assert.equal(g.headers['content-range'], 'bytes */7');
  g = await request(url, { method: 'HEAD' });
  assert.equal(g.status, 200);
  assert.equal(g.headers['content-length'], '7');
  // Tampered with, another tenant's, expired: 403 alike.
  const u = new URL(url);
  const variant = (f) => { const v = new URL(u); f(v); return v.toString(); };
  const sig = u.searchParams.get('sig');
  for (const bad of [
    variant((v) => v.searchParams.set('sig', (sig[0] === 'a' ? 'b' : 'a') + sig.slice(1))),
    variant((v) => v.searchParams.set('t', 'bob')),
    variant((v) => v.searchParams.set('t', '')),
    variant((v) => v.searchParams.set('exp', String(Number(v.searchParams.get('exp')) + 1))),
    variant((v) => { v.pathname = v.pathname.replace('report.txt', 'other.txt'); }),
  ]) assert.equal((await request(bad, { method: 'GET' })).status, 403, bad);
  // Links signed with the server's own key (read here from its state
  // directory): an expired one, a missing file, paths out of the set.
  const key = fs.readFileSync(path.join(st.dir, 'link.key'));
  const id = u.pathname.split('/')[2];
  const signed = (tenant, p, exp) => {
    const sigv = crypto.createHmac('sha256', key).update(`${tenant}\0${id}\0${p}\0${exp}`).digest('hex');
    return `${u.origin}/artifacts/${id}/${p.split('/').map(encodeURIComponent).join('/')}?t=${tenant}&exp=${exp}&sig=${sigv}`;
  };
  const later = Math.floor(Date.now() / 1000) + 600;
  assert.equal((await request(signed('alice', 'report.txt', later), { method: 'GET' })).status, 200, 'the test signs as the server does');
  assert.equal((await request(signed('alice', 'report.txt', Math.floor(Date.now() / 1000) - 1), { method: 'GET' })).status, 403, 'expired');
  assert.equal((await request(signed('alice', 'missing.txt', later), { method: 'GET' })).status, 404);
  assert.equal((await request(signed('bob', 'report.txt', later), { method: 'GET' })).status, 404, 'bob has no such set');
  for (const p of ['../../link.key', '/etc/passwd', '..', 'a/../../x']) {
    const sigv = crypto.createHmac('sha256', key).update(`alice\0${id}\0${p}\0${later}`).digest('hex');
    const raw = `${u.origin}/artifacts/${id}/${p.replace(/\./g, '%2e').replace(/\//g, '%2f')}?t=alice&exp=${later}&sig=${sigv}`;
    const res = await request(raw, { method: 'GET' });
    assert.ok([403, 404].includes(res.status), `${p}: ${res.status} ${res.body}`);
    assert.ok(!res.body.includes('root:'), p);
  }
  assert.equal((await request(`${u.origin}/artifacts/${id}/report.txt`, { method: 'GET' })).status, 404, 'no signature');
  assert.equal((await request(url, { method: 'POST', body: '{}' })).status, 405);

  run(await toolCall(s.url, 'sandbox_execute', { language: 'bash', code: 'echo bob' }, { token: bob }));
  const bobEvents = JSON.parse(ok(await toolCall(s.url, 'sandbox_security', { action: 'events', limit: 500 }, { token: bob })).content[0].text);
  assert.ok(bobEvents.events.length >= 1);
  assert.ok(bobEvents.events.every((e) => e.tenant === 'bob' || e.session?.startsWith('bob.')), JSON.stringify(bobEvents.events));
  assert.equal(bobEvents.log, undefined, 'a tenant is not told where the log is');
  const aliceEvents = JSON.parse(ok(await toolCall(s.url, 'sandbox_security', { action: 'events', limit: 500 }, { token: alice })).content[0].text);
  assert.ok(aliceEvents.events.some((e) => e.tool === 'sandbox_execute' && e.tenant === 'alice'));
  assert.ok(!aliceEvents.events.some((e) => e.tenant === 'bob'));
  const lines = fs.readFileSync(audit, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.ok(lines.some((e) => e.tenant === 'alice') && lines.some((e) => e.tenant === 'bob'), 'the log holds both, each named');
});

e2e('quotas: concurrent executions, executions per minute, sessions and artifact bytes answer quota_exceeded; SIGHUP reads the tokens again', { timeoutMs: 180_000 }, async (h) => {
  const file = tokensFile(h);
  const busy = newToken(file, 'busy', 'concurrent=1 per_minute=1000');
  const rate = newToken(file, 'rate', 'per_minute=2');
  const few = newToken(file, 'few', 'sessions=1 artifact_mb=1');
  const st = withStateDir(h);
  const s = await startHttp(h, { env: st.env({ ...ENV, SANDBOX_BASH_POOL_SIZE: '2', SANDBOX_HTTP_TOKENS_FILE: file }) });

  // concurrent=1: a second call while the first runs.
  const long = toolCall(s.url, 'sandbox_execute', { language: 'bash', code: 'sleep 600', timeout: 600000 }, { token: busy, headers: { accept: 'application/json' } });
  await waitFor(async () => {
    const r = await toolCall(s.url, 'sandbox_execute', { language: 'bash', code: 'echo two' }, { token: busy });
    return r.result?.isError && toolError(r.result).code === 'quota_exceeded' ? r : null;
  }, { timeoutMs: 30_000, what: 'the second call refused while the first runs' }).then((r) => assert.match(toolError(r.result).message, /concurrent=1/));

  // per_minute=2: the third start within the minute.
  run(await toolCall(s.url, 'sandbox_execute', { language: 'bash', code: 'echo 1' }, { token: rate }));
  run(await toolCall(s.url, 'sandbox_execute', { language: 'bash', code: 'echo 2' }, { token: rate }));
  const third = err(await toolCall(s.url, 'sandbox_execute', { language: 'bash', code: 'echo 3' }, { token: rate }));
  assert.equal(third.code, 'quota_exceeded');
  assert.match(third.message, /per_minute=2/);

  // sessions=1.
  ok(await toolCall(s.url, 'sandbox_session', { action: 'create', language: 'bash', name: 'one' }, { token: few }));
  const two = err(await toolCall(s.url, 'sandbox_session', { action: 'create', language: 'bash', name: 'two' }, { token: few }));
  assert.equal(two.code, 'quota_exceeded');
  ok(await toolCall(s.url, 'sandbox_session', { action: 'destroy', name: 'one' }, { token: few }));
  // artifact_mb=1: 600 KB is kept, the next 600 KB is not.
  const big = 'head -c 600000 /dev/zero > /work/blob.bin';
  const first = run(await toolCall(s.url, 'sandbox_execute', { language: 'bash', code: big }, { token: few }));
  assert.match(first.artifacts[0].uri ?? '', /^sandbox:\/\/artifact\//);
  const second = run(await toolCall(s.url, 'sandbox_execute', { language: 'bash', code: big }, { token: few }));
  assert.equal(second.artifacts[0].uri, undefined);
  assert.match(second.artifacts[0].note, /quota_exceeded/);

  // SIGHUP: a new tenant is let in, removed ones are refused, and so are
  // the links to their artifacts.
  const link = first.artifacts[0].url;
  assert.equal((await request(link, { method: 'GET' })).status, 200);
  const carol = newToken(file, 'carol');
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').split('\n').filter((l) => !l.startsWith('rate ') && !l.startsWith('few ')).join('\n'));
  s.proc.kill('SIGHUP');
  await waitFor(() => /tokens reloaded: 2 tenant\(s\)/.test(s.stderr), { timeoutMs: 10_000, what: 'the reload' });
  run(await toolCall(s.url, 'sandbox_execute', { language: 'bash', code: 'echo carol' }, { token: carol }));
  assert.equal((await toolCall(s.url, 'sandbox_execute', { language: 'bash', code: 'echo rate' }, { token: rate })).status, 401);
  assert.equal((await request(link, { method: 'GET' })).status, 403, 'a removed tenant\'s link is dead');
  // A file that no longer reads leaves the tenants as they were.
  fs.writeFileSync(file, 'not a tokens file\n');
  s.proc.kill('SIGHUP');
  await waitFor(() => /tokens not reloaded/.test(s.stderr), { timeoutMs: 10_000, what: 'the refused reload' });
  run(await toolCall(s.url, 'sandbox_execute', { language: 'bash', code: 'echo still' }, { token: carol }));

  await s.close();
  const ended = await long;
  assert.equal(toolError(ended.result).code, 'shutting_down');
});

e2e('tenants cannot starve each other: one floods (initializes, parallel creates and runs), the other is served within its quota; quotas are exact under concurrency; a tenant sees its own figures only', { timeoutMs: 180_000 }, async (h) => {
  const file = tokensFile(h);
  const flood = newToken(file, 'flood', 'http_sessions=4 sessions=2 per_minute=4 concurrent=8 artifact_mb=1');
  const calm = newToken(file, 'calm');
  const st = withStateDir(h);
  const s = await startHttp(h, { env: st.env({ ...ENV, SANDBOX_BASH_POOL_SIZE: '2', SANDBOX_HTTP_TOKENS_FILE: file, SANDBOX_HTTP_MAX_SESSIONS: '8' }) });
  const as = (token, extra = {}) => ({ authorization: `Bearer ${token}`, ...extra });
  const init = (token, id = 1) => request(s.url, {
    headers: as(token),
    body: { jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } },
  });
  const list = (token, sid) => request(s.url, { headers: as(token, { 'mcp-session-id': sid }), body: { jsonrpc: '2.0', id: 2, method: 'tools/list' } });

  // 30 initializes at once, none used after: each is answered, but the
  // tenant keeps its quota of 4 (its oldest never-used one ends to make
  // room), so the table (max_sessions = 8) never fills.
  const inits = await Promise.all(Array.from({ length: 30 }, (_, i) => init(flood, i)));
  assert.deepEqual(inits.map((r) => r.status), Array(30).fill(200), inits.find((r) => r.status !== 200)?.body);
  let alive = 0;
  for (const r of inits) alive += (await list(flood, r.headers['mcp-session-id'])).status === 200 ? 1 : 0;
  assert.equal(alive, 4, 'the flooding tenant keeps http_sessions=4');
  const mine = await init(calm);
  assert.equal(mine.status, 200, mine.body);
  assert.equal((await list(calm, mine.headers['mcp-session-id'])).status, 200);
  // Its 4 now used, the flooding tenant's next initialize is refused with
  // its id; the other's is not.
  const over = await init(flood, 99);
  assert.deepEqual([over.status, over.headers['retry-after'], over.json?.id], [429, '1', 99], over.body);
  assert.match(over.json.error.message, /http_sessions=4/);
  assert.equal((await init(calm)).status, 200);

  // Five creates at once against sessions=2: exactly two are made (the
  // room is held from the check on, while containers start).
  const creates = await Promise.all(Array.from({ length: 5 }, (_, i) => toolCall(s.url, 'sandbox_session', { action: 'create', language: 'bash', name: `p${i}` }, { token: flood })));
  const made = creates.filter((r) => !r.result?.isError);
  assert.equal(made.length, 2, JSON.stringify(creates.map((r) => r.result?.isError ? toolError(r.result).message : 'made')));
  for (const r of creates.filter((x) => x.result?.isError)) assert.equal(toolError(r.result).code, 'quota_exceeded');
  for (const r of made) ok(await toolCall(s.url, 'sandbox_session', { action: 'destroy', name: JSON.parse(r.result.content[0].text).session.name }, { token: flood }));

  // Six runs at once against per_minute=4, each keeping 600 KB against
  // artifact_mb=1, while the other tenant runs too: exactly four run,
  // exactly one keeps its file, and the other tenant's run is served.
  const big = 'head -c 600000 /dev/zero > /work/blob.bin';
  const [other, ...runs] = await Promise.all([
    toolCall(s.url, 'sandbox_execute', { language: 'bash', code: 'echo calm' }, { token: calm }),
    ...Array.from({ length: 6 }, () => toolCall(s.url, 'sandbox_execute', { language: 'bash', code: big }, { token: flood })),
  ]);
  assert.equal(run(other).stdout, 'calm\n');
  const ran = runs.filter((r) => !r.result?.isError).map((r) => runResult(r.result));
  assert.equal(ran.length, 4, 'per_minute=4');
  for (const r of runs.filter((x) => x.result?.isError)) assert.match(toolError(r.result).message, /per_minute=4/);
  assert.equal(ran.filter((r) => r.artifacts[0]?.uri).length, 1, JSON.stringify(ran.map((r) => r.artifacts)));
  for (const r of ran.filter((x) => !x.artifacts[0]?.uri)) assert.match(r.artifacts[0].note, /quota_exceeded.*artifact_mb=1/);

  // Pool and engines: the configuration and a tenant's own figures, no
  // live count that is every tenant's together.
  const seen = {};
  for (const [name, token] of [['calm', calm], ['flood', flood]]) {
    seen[name] = JSON.parse(ok(await toolCall(s.url, 'sandbox_inspect', { what: 'all' }, { token })).content[0].text);
    const { pool, engines } = seen[name];
    assert.equal(pool.tenant.name, name);
    assert.deepEqual(Object.keys(pool.languages.bash).sort(), ['ceiling', 'floor', 'prestart', 'warmAtStart']);
    for (const e of engines) for (const k of ['containers', 'inUse', 'waiting', 'sessions', 'placed']) assert.ok(!(k in e), `${name}: engine ${k}`);
  }
  assert.deepEqual([seen.flood.pool.tenant.quota.perMinute, seen.flood.pool.tenant.startsAvailable, seen.flood.pool.tenant.httpSessions], [4, 0, 4]);
  assert.deepEqual([seen.calm.pool.tenant.quota.perMinute, seen.calm.pool.tenant.quota.httpSessions, seen.calm.pool.tenant.httpSessions], [120, 32, 2]);
  assert.equal(seen.calm.sessions.open, 0);
});
