// Both protocol eras on one stdio server (docs/architecture.md, "Two
// protocol eras"), each driven by an official client: the TypeScript SDK
// 2.x client (@modelcontextprotocol/client) in the stateless revision
// 2026-07-28 (server/discover, the version in every request's _meta) and
// in its legacy mode, and the 1.x SDK with its initialize handshake. Each
// lists the tools and runs code in a session. The 2.x client checks every
// result strictly (resultType, cache hints), so a result shaped wrong
// fails here.
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { BIN, ROOT, e2e, runResult, toolError } from './lib/server.mjs';
import { withStateDir } from './lib/sessions.mjs';

const TOOLS = ['sandbox_execute', 'sandbox_file_ops', 'sandbox_http', 'sandbox_inspect', 'sandbox_install', 'sandbox_process', 'sandbox_security', 'sandbox_session'];

// The stock transport probes server/discover in a throw-away sibling
// process; a subclass probes on the connection itself, so one server
// process sees the whole exchange.
class InPlaceStdio extends StdioClientTransport {}

/** A 2.x client connected to a new server; closed after the test. */
async function v2(h, env, negotiation, Transport = InPlaceStdio) {
  const client = new Client({ name: 'e2e-v2', version: '2.4.0' }, { versionNegotiation: negotiation });
  let stderr = '';
  const transport = new Transport({ command: BIN, args: [], env: { ...process.env, ...env }, cwd: ROOT, stderr: 'pipe' });
  transport.stderr?.on('data', (c) => { stderr += c; });
  await client.connect(transport);
  h.t.after(async () => {
    await client.close();
    if (h.t.passed === false) h.t.diagnostic(stderr.slice(-4000));
  });
  return client;
}

/** Lists the tools, then in a python session: state kept across calls, then destroyed. */
async function sessionRoundTrip(client, name) {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), TOOLS);
  const created = await client.callTool({ name: 'sandbox_session', arguments: { action: 'create', language: 'python', name } });
  assert.equal(created.isError ?? false, false, JSON.stringify(created));
  const first = await client.callTool({ name: 'sandbox_execute', arguments: { language: 'python', session: name, code: 'x = 6 * 7' } });
  assert.equal(runResult(first).exitCode, 0);
  const second = runResult(await client.callTool({ name: 'sandbox_execute', arguments: { language: 'python', session: name, code: 'print(x)' } }));
  assert.equal(second.stdout, '42\n');
  assert.equal(second.stateKept, true);
  const gone = await client.callTool({ name: 'sandbox_session', arguments: { action: 'destroy', name } });
  assert.equal(gone.isError ?? false, false);
}

const ENV = { SANDBOX_POOL_SIZE: '0', SANDBOX_POOL_WARM_AT_START: '' };

e2e('the 2.x client in the stateless revision: server/discover, then tools and a session with the version in every request', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const client = await v2(h, st.env(ENV), { mode: { pin: '2026-07-28' } });
  assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
  const d = client.getDiscoverResult();
  assert.deepEqual(d?.supportedVersions, ['2026-07-28'], JSON.stringify(d));
  assert.ok(d.capabilities.tools && d.capabilities.resources);
  assert.deepEqual(d.capabilities.extensions, { 'io.modelcontextprotocol/tasks': {} }, 'the tasks extension (docs/tasks.md)');
  await sessionRoundTrip(client, 'modern');
  // A tool's own failure is a result, a protocol error stays an error.
  assert.equal(toolError(await client.callTool({ name: 'sandbox_execute', arguments: { language: 'cobol', code: 'x' } })).code, 'unknown_language');
  await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), (e) => e.code === -32602);
  await assert.rejects(client.readResource({ uri: 'sandbox://session/nosuch/x' }), (e) => e.code === -32602, 'a missing resource is -32602 in this revision');
});

e2e('the 2.x client in auto mode with its stock transport (a probe process, then the session) gets the stateless revision', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const client = await v2(h, st.env(ENV), { mode: 'auto', probe: { timeoutMs: 20_000 } }, StdioClientTransport);
  assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
  await sessionRoundTrip(client, 'auto');
});

e2e('the 2.x client in legacy mode, and the 1.x SDK, negotiate 2025-11-25 through initialize and work the same', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const client = await v2(h, st.env(ENV), { mode: 'legacy' });
  assert.equal(client.getNegotiatedProtocolVersion(), '2025-11-25');
  await sessionRoundTrip(client, 'legacy2');

  const old = await st.start(ENV);
  assert.equal(old.client.getServerVersion()?.name, 'mcp-sandbox');
  await sessionRoundTrip(old.client, 'legacy1');
  await assert.rejects(old.client.readResource({ uri: 'sandbox://session/nosuch/x' }), (e) => e.code === -32002, 'a missing resource stays -32002 in 2025-11-25');
});

e2e('raw: one connection serves both eras, request by request; bad and unknown versions get the specified errors', { docker: false }, async (h) => {
  const s = await h.startRaw({ env: ENV });
  const meta = (v = '2026-07-28') => ({ 'io.modelcontextprotocol/protocolVersion': v, 'io.modelcontextprotocol/clientCapabilities': {} });
  const modern = await s.request(1, 'tools/list', { _meta: meta() });
  assert.equal(modern.result.resultType, 'complete');
  assert.equal(modern.result.cacheScope, 'public');
  assert.ok(Number.isInteger(modern.result.ttlMs));
  assert.equal(modern.result._meta['io.modelcontextprotocol/serverInfo'].name, 'mcp-sandbox');
  // Without a handshake, a request of the older era is refused...
  assert.equal((await s.request(2, 'tools/list')).error.code, -32600);
  // ...and after one, both are served on the same connection.
  await s.initialize('2025-11-25');
  const legacy = await s.request(3, 'tools/list');
  assert.equal(legacy.result.resultType, undefined);
  assert.equal((await s.request(4, 'resources/list', { _meta: meta() })).result.resultType, 'complete');
  const bad = await s.request(5, 'tools/list', { _meta: meta('2099-01-01') });
  assert.deepEqual(bad.error, { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2026-07-28'], requested: '2099-01-01' } });
  assert.equal((await s.request(6, 'tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } })).error.code, -32602);
  assert.equal((await s.request(7, 'tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': 20260728, 'io.modelcontextprotocol/clientCapabilities': {} } })).error.code, -32602);
  assert.equal((await s.request(8, 'server/discover')).error.code, -32602);
  assert.equal((await s.request(9, 'ping', { _meta: meta() })).error.code, -32601);
  assert.equal((await s.request(10, 'logging/setLevel', { level: 'debug', _meta: meta() })).error.code, -32601);
  // 2025-03-26 needs batches, which are not served: a client asking for
  // it is offered the newest revision before it.
  const s2 = await h.startRaw({ env: ENV });
  const init = await s2.request(1, 'initialize', { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'old', version: '1' } });
  assert.equal(init.result.protocolVersion, '2024-11-05');
});
