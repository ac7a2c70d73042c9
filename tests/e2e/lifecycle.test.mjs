// The server as a host sees it: the handshake, the tool list, and shutdown
// leaving no container behind.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { ROOT, SHIPPED_POOL, e2e, runResult } from './lib/server.mjs';
import { instanceContainers, serverContainers } from './lib/sandbox.mjs';
import { eventually, waitFor } from './lib/wait.mjs';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const NO_POOL = { SANDBOX_POOL_SIZE: '0' };
// python and bash with a container each from the start (lib/server.mjs's
// pool sizes), for the tests that count on containers being there.
const WARM = { SANDBOX_POOL_WARM_AT_START: 'python, bash' };

e2e('tools/list describes sandbox_execute, sandbox_session, sandbox_file_ops, sandbox_install, sandbox_security and sandbox_inspect with their schemas', { docker: false }, async (h) => {
  const s = await h.start({ env: NO_POOL });
  assert.deepEqual(
    s.tools.map((t) => t.name),
    ['sandbox_execute', 'sandbox_session', 'sandbox_file_ops', 'sandbox_install', 'sandbox_security', 'sandbox_inspect', 'sandbox_process', 'sandbox_http'],
  );
  const [t, st, ft, it, sec, ins] = s.tools;
  assert.deepEqual(ins.inputSchema.properties.what.enum, ['all', 'pool', 'sessions', 'engine', 'plugins', 'limits', 'tasks']);
  // Portable schemas: some clients' function declarations take one type
  // per property, never a list such as ["integer", "null"].
  const lists = [];
  const walk = (o, at) => {
    if (!o || typeof o !== 'object') return;
    if (Array.isArray(o.type)) lists.push(at);
    for (const [k, v] of Object.entries(o)) walk(v, `${at}.${k}`);
  };
  for (const tool of s.tools) walk({ input: tool.inputSchema, output: tool.outputSchema }, tool.name);
  assert.deepEqual(lists, [], 'no schema gives a list of types');
  assert.equal(ins.annotations.readOnlyHint, true);
  assert.deepEqual(sec.inputSchema.properties.action.enum, ['events', 'violations', 'stats', 'verify']);
  assert.equal(sec.annotations.readOnlyHint, true);
  assert.deepEqual(it.inputSchema.required, ['packages'], 'language may come from a session');
  assert.equal(it.inputSchema.properties.packages.type, 'array');
  assert.equal(it.annotations.openWorldHint, true, 'an install reaches registries');
  assert.equal(t.inputSchema.properties.packages.type, 'array', 'sandbox_execute takes packages');
  assert.deepEqual(ft.inputSchema.required, ['action'], 'session may be left out for an artifact URI');
  assert.deepEqual(ft.inputSchema.properties.action.enum,
    ['write', 'read', 'list', 'stat', 'mkdir', 'delete', 'move', 'export', 'import']);
  assert.equal(ft.outputSchema, undefined, 'file_ops answers with one JSON text block: a read is sent once');
  assert.equal(ft.annotations.destructiveHint, true);
  assert.deepEqual(st.inputSchema.required, ['action']);
  assert.deepEqual(st.inputSchema.properties.action.enum,
    ['create', 'list', 'get', 'pause', 'resume', 'extend', 'destroy', 'export', 'snapshot', 'restore', 'fork', 'snapshots', 'delete_snapshot']);
  for (const k of ['session', 'sessions', 'destroyed', 'exported']) assert.ok(k in st.outputSchema.properties, `session outputSchema has ${k}`);
  assert.equal(st.annotations.destructiveHint, true);
  assert.equal(typeof t.title, 'string');
  assert.ok(t.title.length > 0);
  assert.ok(t.description.length > 0);
  assert.equal(t.inputSchema.type, 'object');
  // language may be left out when the call names a session.
  assert.deepEqual([...t.inputSchema.required].sort(), ['code']);
  assert.equal(t.inputSchema.properties.session.type, 'string');
  assert.equal(t.inputSchema.properties.code.type, 'string');
  assert.equal(t.inputSchema.properties.timeout.type, 'integer');
  // Every built-in plugin's language is offered (the file is named after it).
  const built = readdirSync(path.join(ROOT, 'build/lib/mcp-sandbox/plugins'))
    .filter((f) => f.endsWith('.so'))
    .map((f) => f.slice(0, -3))
    .sort();
  assert.ok(built.includes('python') && built.includes('bash'), `plugins built: ${built}`);
  assert.deepEqual([...t.inputSchema.properties.language.enum].sort(), built);
  // No output schema: Claude Code would show the model only a
  // structuredContent and drop the images (docs/files.md).
  assert.equal(t.outputSchema, undefined, 'sandbox_execute declares no outputSchema');
  assert.equal(typeof t.annotations, 'object');
  assert.equal(t.annotations.readOnlyHint, false);
  assert.equal(t.annotations.openWorldHint, false);
  // The SDK negotiated its own latest version, which the server speaks.
  const caps = s.client.getServerCapabilities();
  assert.ok(caps.tools, 'tools capability');
  assert.equal(s.client.getServerVersion().name, 'mcp-sandbox');
  assert.ok(s.client.getInstructions()?.includes('sandbox_execute'), 'instructions mention the tool');
});

e2e('initialize echoes a supported protocol version, offers the newest one before an unsupported one, else its latest', { docker: false }, async (h) => {
  const cases = [
    ['2025-06-18', '2025-06-18'],
    ['2025-03-26', '2024-11-05'], // needs batches, which are not served
    ['2024-11-05', '2024-11-05'],
    ['2025-11-25', '2025-11-25'],
    ['2026-07-28', '2025-11-25'], // has no handshake: never negotiated here
    ['1999-01-01', '2025-11-25'],
  ];
  for (const [asked, answered] of cases) {
    const s = await h.startRaw({ env: NO_POOL });
    const r = await s.initialize(asked);
    assert.equal(r.result?.protocolVersion, answered, `asked ${asked}: ${JSON.stringify(r)}`);
    assert.equal(r.result.serverInfo.name, 'mcp-sandbox');
    assert.equal(typeof r.result.serverInfo.version, 'string');
    assert.ok(r.result.capabilities.tools, 'tools capability');
    assert.equal(typeof r.result.instructions, 'string');
    assert.ok(r.result.instructions.length > 0);
    // A client on the old version still gets a usable tool list.
    const list = await s.request('l', 'tools/list');
    assert.equal(list.result.tools[0].name, 'sandbox_execute');
    assert.equal(list.result.tools[0].inputSchema.type, 'object');
    await s.close();
  }
});

/** Runs one call so that containers exist, and returns the server's instance id. */
async function instanceOf(s) {
  const r = await s.execute('bash', 'echo hi');
  assert.equal(r.stdout, 'hi\n');
  // Both languages warm one container each (SANDBOX_POOL_SIZE=1).
  const mine = await eventually(async () => {
    const c = await serverContainers(s.pid);
    return c.length >= 2 ? c : null;
  });
  assert.ok(mine, `the server runs containers (pid ${s.pid})`);
  const ids = new Set(mine.map((c) => c.Labels['org.mcp-sandbox.instance']));
  assert.equal(ids.size, 1, 'one instance id per server');
  const [instance] = ids;
  assert.match(instance, /^[0-9a-f]{8,}$/);
  return { instance, count: mine.length };
}

e2e('closing the client removes every container of the server', {}, async (h) => {
  const s = await h.start({ env: WARM });
  const { instance } = await instanceOf(s);
  assert.ok((await instanceContainers(instance)).length >= 2);
  await s.close(); // stdin EOF, as every MCP host does
  const left = await instanceContainers(instance);
  assert.deepEqual(
    left.map((c) => `${c.Id.slice(0, 12)} ${c.State}`),
    [],
    'no container of this server instance is left',
  );
});

e2e('stdin EOF: the server exits 0 by itself and leaves no container', {}, async (h) => {
  const s = await h.startRaw({ env: WARM });
  await s.initialize();
  const r = await s.request('run', 'tools/call', {
    name: 'sandbox_execute',
    arguments: { language: 'bash', code: 'echo hi' },
  }, { timeoutMs: 60_000 });
  assert.equal(runResult(r.result).stdout, 'hi\n', JSON.stringify(r));
  const mine = await serverContainers(s.pid);
  assert.ok(mine.length >= 1);
  const instance = mine[0].Labels['org.mcp-sandbox.instance'];
  const exit = await s.close(); // throws if it needed a signal
  assert.deepEqual(exit, { code: 0, signal: null });
  assert.deepEqual(await instanceContainers(instance), []);
});

e2e('SIGTERM: the server exits at once and every container of it goes', {}, async (h) => {
  const s = await h.startRaw({ env: WARM });
  await s.initialize();
  // A call still running when the signal comes.
  const running = s.request('run', 'tools/call', {
    name: 'sandbox_execute',
    arguments: { language: 'python', code: 'import time\nprint("up", flush=True)\ntime.sleep(30)' },
    _meta: { progressToken: 'run' }, // its output comes as progress notifications
  }, { timeoutMs: 60_000 });
  running.catch(() => {}); // it may or may not be answered before exit
  // The output may arrive split over several notifications ("up", "\n").
  const streamed = () =>
    s.messages
      .filter((m) => m.method === 'notifications/progress' && m.params?.progressToken === 'run')
      .map((m) => m.params.message ?? '')
      .join('');
  await s.waitFor(() => /up\n/.test(streamed()), { timeoutMs: 45_000, what: 'the running code printing "up"' });
  const mine = await eventually(async () => {
    const c = await serverContainers(s.pid);
    return c.length >= 2 ? c : null;
  });
  assert.ok(mine, 'the server runs containers');
  const instance = mine[0].Labels['org.mcp-sandbox.instance'];
  process.kill(s.pid, 'SIGTERM');
  let timer;
  const exit = await Promise.race([s.exit, new Promise((r) => { timer = setTimeout(() => r('still running'), 20_000); })]);
  clearTimeout(timer);
  assert.notEqual(exit, 'still running', 'the server exits within 20 s of SIGTERM');
  assert.ok(exit.code === 0 || exit.signal === 'SIGTERM', `exit ${JSON.stringify(exit)}`);
  // After a signal the server does not wait for the engine's answers: its
  // containers end with their agents (docs/architecture.md's figure).
  await goneWithin(() => instanceContainers(instance), 'this server instance\'s containers');
  assert.deepEqual(s.badLines, []);
});

e2e('logging/setLevel turns on notifications/message at that level', {}, async (h) => {
  const s = await h.start({ env: { SANDBOX_BASH_POOL_SIZE: '0' } });
  const got = [];
  s.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => got.push(n.params));
  // Before setLevel only warnings and worse are forwarded: a normal call
  // produces none.
  await s.execute('python', 'print(1)');
  // The server writes in order: once the ping is answered, every
  // notification it sent before is here.
  await s.client.ping();
  assert.deepEqual(got.filter((m) => m.level === 'debug' || m.level === 'info'), []);
  await s.client.setLoggingLevel('debug');
  // bash has no warm container here: the call starts one, and the Engine
  // API requests are logged at debug.
  await s.execute('bash', 'echo 2');
  const debug = await eventually(() => got.find((m) => m.level === 'debug' && m.logger === 'docker'), {
    timeoutMs: 10_000,
  });
  assert.ok(debug, `a debug record from the docker logger, got ${JSON.stringify(got).slice(0, 400)}`);
  assert.equal(typeof debug.data, 'string');
});

// docs/architecture.md ("Container ownership"): a server's containers are
// gone within this long of its end, however it ended (on a loaded machine;
// about a second on an idle one).
const GONE_MS = 5_000;

/** Polls list() until it is empty, for GONE_MS; fails naming what is left. */
async function goneWithin(list, what) {
  await waitFor(async () => (await list()).length === 0, { timeoutMs: GONE_MS, what: `${what} to be gone` })
    .catch(async (e) => assert.fail(`${e.message}: ${(await list()).map((c) => `${c.Id.slice(0, 12)} ${c.State} ${c.Status}`).join(', ')}`));
}

// Claude Code closing a stdio server: SIGINT, SIGTERM 100 ms later,
// SIGKILL 400 ms after that. The timing is the scenario.
async function claudeCodeStop(s) {
  process.kill(s.pid, 'SIGINT');
  await new Promise((r) => setTimeout(r, 100));
  if (!s.exited) process.kill(s.pid, 'SIGTERM');
  await new Promise((r) => setTimeout(r, 400));
  if (!s.exited) process.kill(s.pid, 'SIGKILL');
}

// The dead man's switch (agent/agent.c): a pool container ends when its
// host's connection does, however the host ended, and the engine removes
// it. Each way a server can end, then that server's containers gone
// within GONE_MS.
const ENDINGS = {
  'Claude Code\'s signal sequence': claudeCodeStop,
  'kill -9': async (s) => process.kill(s.pid, 'SIGKILL'),
  'stdin closed': async (s) => s.proc.stdin.end(),
};

for (const [how, end] of Object.entries(ENDINGS)) {
  e2e(`pool containers end with their server: ${how}`, { timeoutMs: 90_000 }, async (h) => {
    const s = await h.startRaw({ env: { ...WARM, SANDBOX_POOL_SIZE: '0', SANDBOX_PYTHON_POOL_SIZE: '1', SANDBOX_BASH_POOL_SIZE: '1' } });
    await s.initialize();
    // A call in each language: their containers are up and attached.
    for (const [language, code] of [['bash', 'echo hi'], ['python', 'print("hi")']]) {
      const r = await s.request(language, 'tools/call', { name: 'sandbox_execute', arguments: { language, code } }, { timeoutMs: 60_000 });
      assert.equal(runResult(r.result).stdout, 'hi\n', JSON.stringify(r));
    }
    const before = (await serverContainers(s.pid)).map((c) => c.Id);
    assert.ok(before.length >= 2, `the server runs containers: ${before.length}`);
    const pid = s.pid;
    await end(s);
    await s.exit;
    await goneWithin(async () => (await serverContainers(pid)).filter((c) => before.includes(c.Id)), `the server's ${before.length} containers`);
  });
}

// The same sequence with every language's pool warm from the start, at the
// shipped sizes: the server must leave by itself, not be SIGKILLed (it
// does not wait for the engine to confirm each removal: the agents end
// with their connections), both once the pools are warm and right after
// the start, while containers are still being created (their agents have
// never heard from the server: they are attached before they start, so
// they end too). Every container of the server, all states, is gone within
// GONE_MS.
const WARM_ALL = { ...SHIPPED_POOL, SANDBOX_POOL_WARM_AT_START: '*' };
const LANGUAGES = readdirSync(path.join(ROOT, 'build/lib/mcp-sandbox/plugins')).filter((f) => f.endsWith('.so')).length;

for (const when of ['pools warm', 'containers being created']) {
  e2e(`Claude Code's signal sequence with every language warm at start (${when}): the server exits by itself and its containers go`, { timeoutMs: 240_000 }, async (h) => {
    const s = await h.startRaw({ env: WARM_ALL });
    await s.initialize();
    const pid = s.pid;
    if (when === 'pools warm') {
      // pool.c logs "[<language>] warm: ..." once a language's floor is up.
      const warm = () => new Set([...s.stderr.matchAll(/\[([\w-]+)\] warm: /g)].map((m) => m[1])).size;
      await waitFor(() => warm() >= LANGUAGES, { timeoutMs: 200_000, what: `${LANGUAGES} languages warm` });
    } else {
      await waitFor(async () => (await serverContainers(pid)).length > 0, { timeoutMs: 60_000, what: 'the first container' });
    }
    await claudeCodeStop(s);
    const exit = await s.exit;
    assert.notEqual(exit.signal, 'SIGKILL', `the server left by itself, not by SIGKILL: ${JSON.stringify(exit)}`);
    assert.equal(exit.code, 0, JSON.stringify(exit));
    await goneWithin(() => serverContainers(pid), 'the server\'s containers');
  });
}

// A signal that comes while the server is already leaving (Claude Code's
// SIGTERM 100 ms after its SIGINT) must not end the process mid-way through
// its last writes: once the server stops watching signals it ignores them.
// Here SIGTERM follows SIGTERM until the process is gone, so one lands in
// every phase of the shutdown; the audit log's last line is the stop.
e2e('signals that keep coming while the server leaves do not cut its last writes short: exit 0, the audit log ends with server_stop', { timeoutMs: 120_000 }, async (h) => {
  const s = await h.startRaw({ env: { SANDBOX_POOL_SIZE: '0', SANDBOX_BASH_POOL_SIZE: '1', SANDBOX_POOL_WARM_AT_START: 'bash' } });
  await s.initialize();
  await waitFor(() => /\[bash\] warm: /.test(s.stderr), { timeoutMs: 60_000, what: 'the bash pool warm' });
  process.kill(s.pid, 'SIGINT');
  let gone = false;
  s.exit.then(() => { gone = true; });
  while (!gone) {
    try { process.kill(s.pid, 'SIGTERM'); } catch { break; }
    await new Promise((r) => setImmediate(r));
  }
  const exit = await s.exit;
  assert.equal(exit.code, 0, `the server left by itself: ${JSON.stringify(exit)}`);
  const file = s.stderr.match(/audit log: (\S+), head at stop/)?.[1];
  assert.ok(file, 'the head at stop is logged');
  const last = JSON.parse(readFileSync(file, 'utf8').trim().split('\n').at(-1));
  assert.equal(last.event, 'server_stop');
});

// Two servers that start at once find the same dead predecessor's
// containers: each container goes once, and "already being removed" or
// "no such container" is done for the other, with no warning.
e2e('two servers starting at once clean up a dead server\'s containers without a warning', { timeoutMs: 120_000 }, async (h) => {
  const dead = await h.startRaw({ env: { SANDBOX_POOL_SIZE: '0', SANDBOX_BASH_POOL_SIZE: '1', SANDBOX_POOL_WARM_AT_START: 'bash' } });
  await dead.initialize();
  const r = await dead.request('x', 'tools/call', { name: 'sandbox_execute', arguments: { language: 'bash', code: 'echo x' } }, { timeoutMs: 60_000 });
  assert.equal(runResult(r.result).stdout, 'x\n');
  const labels = (await serverContainers(dead.pid))[0].Labels;
  process.kill(dead.pid, 'SIGKILL');
  await dead.exit;
  // Containers that carry the dead server's identity and do not end by
  // themselves (as a store step or a proxy would not).
  const args = Object.entries(labels).filter(([k]) => k.startsWith('org.mcp-sandbox.')).flatMap(([k, v]) => ['--label', `${k}=${v}`]);
  const ids = [];
  for (let i = 0; i < 6; i++)
    ids.push(execFileSync('docker', ['run', '-d', '--network', 'none', ...args, '--entrypoint', 'sleep', 'mcp-sandbox/bash:latest', '300'], { encoding: 'utf8' }).trim());
  h.t.after(() => { try { execFileSync('docker', ['rm', '-f', ...ids], { stdio: 'ignore' }); } catch { /* gone */ } });

  const [a, b] = await Promise.all([h.startRaw({ env: NO_POOL }), h.startRaw({ env: NO_POOL })]);
  await Promise.all([a.initialize(), b.initialize()]);
  await Promise.all([a.request('l', 'logging/setLevel', { level: 'warning' }), b.request('l', 'logging/setLevel', { level: 'warning' })]);
  await eventually(async () => (await serverContainers(labels['org.mcp-sandbox.owner-pid'])).length === 0, { timeoutMs: 60_000 });
  assert.deepEqual(await serverContainers(labels['org.mcp-sandbox.owner-pid']), []);
  for (const s of [a, b]) {
    assert.doesNotMatch(s.stderr, /removing container [0-9a-f]+: /, 'no failed removal logged');
    const warned = s.messages.filter((m) => m.method === 'notifications/message' && /remov/i.test(JSON.stringify(m.params)));
    assert.deepEqual(warned, [], 'no warning about the clean-up sent to the client');
  }
});
