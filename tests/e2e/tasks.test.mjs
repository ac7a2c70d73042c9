// Calls that outlive their request (docs/tasks.md): the tasks extension of
// 2026-07-28 through a raw stdio client (the 2.x SDK client has no tasks),
// 2025-11-25's experimental tasks through the 1.x SDK's own task client
// (client.experimental.tasks), a task's end written in the state directory
// and read back by the next server, and the refusals.
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, CreateTaskResultSchema, TaskStatusNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import fs from 'node:fs';
import path from 'node:path';
import { newToken, request, startHttp, tokensFile } from './lib/http.mjs';
import { packageEnv } from './lib/packages.mjs';
import { serverContainers } from './lib/sandbox.mjs';
import { BIN, ROOT, e2e, runResult, serverEnv, toolError } from './lib/server.mjs';
import { withStateDir } from './lib/sessions.mjs';
import { waitFor } from './lib/wait.mjs';

const EXT = 'io.modelcontextprotocol/tasks';
const V = '2026-07-28';
// [tasks] sync_ms 0: every call the policy picks is a task at once (the
// window of the default is its own test below).
const ENV = { SANDBOX_POOL_SIZE: '0', SANDBOX_PYTHON_POOL_SIZE: '1', SANDBOX_TASKS_SYNC_MS: '0' };

/** A 2026-07-28 request's params: _meta with the version and, when tasks, the extension. */
function modern(params = {}, { tasks = true } = {}) {
  return {
    ...params,
    _meta: {
      'io.modelcontextprotocol/protocolVersion': V,
      'io.modelcontextprotocol/clientCapabilities': tasks ? { extensions: { [EXT]: {} } } : {},
      'io.modelcontextprotocol/clientInfo': { name: 'tasks-e2e', version: '1' },
    },
  };
}

let next = 1;
async function call(s, method, params, opts) {
  return s.request(next++, method, params, opts);
}

/** tasks/get until the task is no longer working (polled at the interval the server asks for), within a deadline. */
async function settle(s, taskId, { tasks = true } = {}) {
  let last;
  return waitFor(async () => {
    const r = await call(s, 'tasks/get', modern({ taskId }, { tasks }));
    assert.ok(r.result, JSON.stringify(r));
    last = r.result;
    if (r.result.status === 'working') assert.equal(typeof r.result.pollIntervalMs, 'number');
    return r.result.status !== 'working' && r.result;
  }, { timeoutMs: 90_000, intervalMs: 1000, what: `task ${taskId} to end (last: ${JSON.stringify(last)})` });
}

const long = (code) => ({ name: 'sandbox_execute', arguments: { language: 'python', code, timeout: 70_000 } });

e2e('2026-07-28: a long call with the extension becomes a task; tasks/get brings its result inline', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await h.startRaw({ env: st.env(ENV) });
  const d = await call(s, 'server/discover', modern({}, { tasks: false }));
  assert.deepEqual(d.result.capabilities.extensions, { [EXT]: {} });

  const created = await call(s, 'tools/call', modern(long('print(6 * 7)')));
  const t = created.result;
  assert.equal(t.resultType, 'task', JSON.stringify(created));
  assert.match(t.taskId, /^[0-9a-f]{32}$/);
  assert.equal(t.status, 'working');
  assert.equal(t.ttlMs, 3_600_000);
  assert.ok(Date.parse(t.createdAt) && Date.parse(t.lastUpdatedAt));
  const done = await settle(s, t.taskId);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  assert.equal(done.resultType, 'complete');
  assert.equal(runResult(done.result).stdout, '42\n');
  assert.equal(runResult(done.result).exitCode, 0);
  assert.equal(done.result.resultType, undefined, 'the inline result is the tool result, not a response');

  // The same call without the extension, or short, stays synchronous.
  const sync = await call(s, 'tools/call', modern(long('print(1)'), { tasks: false }));
  assert.equal(sync.result.resultType, 'complete');
  assert.equal(runResult(sync.result).stdout, '1\n');
  const short = await call(s, 'tools/call', modern({ name: 'sandbox_execute', arguments: { language: 'python', code: 'print(2)' } }));
  assert.equal(short.result.resultType, 'complete');
  assert.equal(runResult(short.result).stdout, '2\n');

  // A finished task: cancel is an empty acknowledgement, the result stays.
  const ack = await call(s, 'tasks/cancel', modern({ taskId: t.taskId }));
  assert.equal(ack.result.resultType, 'complete', JSON.stringify(ack));
  assert.equal((await call(s, 'tasks/get', modern({ taskId: t.taskId }))).result.status, 'completed');
});

e2e('2026-07-28, the default [tasks] sync_ms: a call that ends within it is a plain result, one that outlasts it a task', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const { SANDBOX_TASKS_SYNC_MS, ...env } = ENV;
  assert.equal(SANDBOX_TASKS_SYNC_MS, '0');
  // 30 s: a print(1) ends within it however loaded the machine is.
  const s = await h.startRaw({ env: st.env({ ...env, SANDBOX_TASKS_SYNC_MS: '30000' }) });
  const quick = (await call(s, 'tools/call', modern(long('print(1)')), { timeoutMs: 60_000 })).result;
  assert.equal(quick.resultType, 'complete', JSON.stringify(quick));
  assert.equal(runResult(quick).stdout, '1\n');
  const listed = async () => JSON.parse((await call(s, 'tools/call', modern({ name: 'sandbox_inspect', arguments: { what: 'tasks' } }))).result.content[0].text).tasks;
  assert.deepEqual(await listed(), [], 'a call answered in its window leaves no task');

  // The shipped window (1 s): a program that sleeps 3 s outlasts it.
  const d = await h.startRaw({ env: withStateDir(h).env(env) });
  const slow = (await call(d, 'tools/call', modern(long('import time\ntime.sleep(3)\nprint("slept")')))).result;
  assert.equal(slow.resultType, 'task', JSON.stringify(slow));
  const done = await settle(d, slow.taskId);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  assert.equal(runResult(done.result).stdout, 'slept\n');
  assert.equal(done.result._meta, undefined, 'the inline result is the tool\'s, without the response\'s serverInfo');
});

e2e('2026-07-28: a session\'s long call is a task too, and the session keeps its state', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await h.startRaw({ env: st.env(ENV) });
  const made = await call(s, 'tools/call', modern({ name: 'sandbox_session', arguments: { action: 'create', language: 'python', name: 'work' } }), { timeoutMs: 60_000 });
  assert.equal(made.result.isError ?? false, false, JSON.stringify(made));
  const set = await call(s, 'tools/call', modern({ name: 'sandbox_execute', arguments: { language: 'python', session: 'work', code: 'x = 41' } }));
  assert.equal(set.result.resultType, 'complete');
  const t = (await call(s, 'tools/call', modern({ name: 'sandbox_execute', arguments: { language: 'python', session: 'work', code: 'print(x + 1)', timeout: 70_000 } }))).result;
  assert.equal(t.resultType, 'task', JSON.stringify(t));
  const done = await settle(s, t.taskId);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  assert.equal(runResult(done.result).stdout, '42\n');
  assert.equal(runResult(done.result).stateKept, true);
  const gone = await call(s, 'tools/call', modern({ name: 'sandbox_session', arguments: { action: 'destroy', name: 'work' } }));
  assert.equal(gone.result.isError ?? false, false);
});

e2e('2026-07-28: tasks/cancel ends a running task, and its container goes', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await h.startRaw({ env: st.env(ENV) });
  const created = await call(s, 'tools/call', modern(long('import time\ntime.sleep(300)')));
  const id = created.result.taskId;
  const ack = await call(s, 'tasks/cancel', modern({ taskId: id }));
  assert.deepEqual(Object.keys(ack.result).sort(), ['_meta', 'resultType']);
  const after = await settle(s, id);
  assert.equal(after.status, 'cancelled');
  assert.equal(after.result, undefined);
  // A request cancelled before its task's id was answered: the task does
  // not run (nobody could ask for it). Both lines in one write, so the
  // server reads the cancel before the task's file is written.
  const rid = next++;
  const req = { jsonrpc: '2.0', id: rid, method: 'tools/call', params: modern(long('print("never")')) };
  const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: rid, _meta: modern()._meta } };
  await s.sendLine(`${JSON.stringify(req)}\n${JSON.stringify(cancel)}`);
  const orphanOf = async () => {
    const listed = await call(s, 'tools/call', modern({ name: 'sandbox_inspect', arguments: { what: 'tasks' } }));
    return JSON.parse(listed.result.content[0].text).tasks.find((x) => x.taskId !== id);
  };
  // Its file is written first (the task exists), then it ends unstarted.
  const orphan = await waitFor(async () => {
    const o = await orphanOf();
    return o?.status === 'working' ? null : o;
  }, { what: 'the orphaned task to end' });
  assert.equal(orphan.status, 'cancelled', JSON.stringify(orphan));
  assert.match(orphan.statusMessage, /request was cancelled before/);
  assert.equal(s.messages.filter((m) => m.id === rid).length, 0, 'a cancelled request gets no answer');
  // The server goes on serving, and a new call runs.
  const r = await call(s, 'tools/call', modern({ name: 'sandbox_execute', arguments: { language: 'python', code: 'print(3)' } }));
  assert.equal(runResult(r.result).stdout, '3\n');
});

e2e('2026-07-28: refusals: no extension, unknown or foreign ids, methods of the other era', { docker: false }, async (h) => {
  const st = withStateDir(h);
  const s = await h.startRaw({ env: st.env({ SANDBOX_POOL_SIZE: '0' }) });
  const no = await call(s, 'tasks/get', modern({ taskId: '0'.repeat(32) }, { tasks: false }));
  assert.equal(no.error.code, -32021, JSON.stringify(no));
  assert.deepEqual(no.error.data.requiredCapabilities, { extensions: { [EXT]: {} } });
  for (const taskId of ['0'.repeat(32), '../../etc/passwd', 'x']) {
    const r = await call(s, 'tasks/get', modern({ taskId }));
    assert.equal(r.error.code, -32602, JSON.stringify(r));
  }
  assert.equal((await call(s, 'tasks/get', modern({}))).error.code, -32602);
  for (const taskId of [7, null, ['x'], { id: 1 }, 'f'.repeat(100_000)]) {
    const r = await call(s, 'tasks/cancel', modern({ taskId }));
    assert.equal(r.error?.code, -32602, `${JSON.stringify(taskId).slice(0, 40)}: ${JSON.stringify(r).slice(0, 300)}`);
  }
  assert.equal((await call(s, 'tasks/list', modern({}))).error.code, -32601);
  assert.equal((await call(s, 'tasks/result', modern({ taskId: '0'.repeat(32) }))).error.code, -32601);
  // Nothing was broken: the server still answers.
  assert.ok((await call(s, 'server/discover', modern({}))).result.capabilities);
});

e2e('2025-11-25: the 1.x SDK task client: taskSupport, callToolStream, getTask, listTasks, cancelTask', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const transport = new StdioClientTransport({ command: BIN, args: [], env: serverEnv(st.env(ENV)), cwd: ROOT, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (c) => { stderr += c; });
  const client = new Client({ name: 'tasks-e2e', version: '1' }, { capabilities: {} });
  const heard = [];
  client.setNotificationHandler(TaskStatusNotificationSchema, (n) => { heard.push(n.params); });
  await client.connect(transport);
  h.t.after(async () => {
    await client.close();
    if (h.t.passed === false) h.t.diagnostic(stderr.slice(-4000));
  });
  assert.equal(client.getServerVersion() && client.getServerCapabilities().tasks?.requests?.tools?.call !== undefined, true);
  const { tools } = await client.listTools();
  assert.equal(tools.find((t) => t.name === 'sandbox_execute').execution?.taskSupport, 'optional');
  assert.equal(tools.find((t) => t.name === 'sandbox_session').execution, undefined);

  const seen = [];
  let result;
  for await (const m of client.experimental.tasks.callToolStream(
    { name: 'sandbox_execute', arguments: { language: 'python', code: 'print(6 * 7)' } },
    CallToolResultSchema,
    { task: { ttl: 120_000 } },
  )) {
    seen.push(m.type);
    if (m.type === 'taskCreated') assert.equal(m.task.ttl, 120_000);
    if (m.type === 'result') result = m.result;
    if (m.type === 'error') throw m.error;
  }
  assert.equal(seen[0], 'taskCreated');
  assert.equal(seen.at(-1), 'result');
  assert.equal(runResult(result).stdout, '42\n');
  assert.ok(result._meta?.['io.modelcontextprotocol/related-task']?.taskId);

  // The connection that made it heard of its end (notifications/tasks/status).
  await waitFor(() => heard.some((p) => p.status === 'completed'), { what: 'notifications/tasks/status' });
  assert.equal(heard.find((p) => p.status === 'completed').taskId, result._meta['io.modelcontextprotocol/related-task'].taskId);
  const { tasks } = await client.experimental.tasks.listTasks();
  assert.equal(tasks.length, 1);
  assert.equal(tasks[0].status, 'completed');
  // A finished task cannot be cancelled in this revision.
  await assert.rejects(client.experimental.tasks.cancelTask(tasks[0].taskId), (e) => e.code === -32602);

  // A running one can: cancelled before the answer, and tasks/result says so.
  const stream = client.experimental.tasks.callToolStream(
    { name: 'sandbox_execute', arguments: { language: 'python', code: 'import time\ntime.sleep(300)' } },
    CallToolResultSchema,
    { task: {} },
  );
  const first = await stream.next();
  assert.equal(first.value.type, 'taskCreated');
  const cancelled = await client.experimental.tasks.cancelTask(first.value.task.taskId);
  assert.equal(cancelled.status, 'cancelled');
  assert.equal((await client.experimental.tasks.getTask(first.value.task.taskId)).status, 'cancelled');
  await stream.return();

  // A task parameter that is not one, or a ttl that is not a number of ms.
  for (const task of [[], 'x', { ttl: -1 }, { ttl: 1.5 }, { ttl: '60000' }, { ttl: 2 ** 60 }]) {
    await assert.rejects(
      client.request({ method: 'tools/call', params: { name: 'sandbox_execute', arguments: { language: 'python', code: 'print(1)' }, task } }, CallToolResultSchema),
      (e) => e.code === -32602,
      JSON.stringify(task),
    );
  }
  // A ttl past [tasks] max_ttl_ms is lowered to it.
  const capped = await client.request(
    { method: 'tools/call', params: { name: 'sandbox_execute', arguments: { language: 'python', code: 'print(1)' }, task: { ttl: 10 * 86_400_000 } } },
    CreateTaskResultSchema,
  );
  assert.equal(capped.task.ttl, 86_400_000);
  // A tool that does not run as a task refuses params.task.
  await assert.rejects(
    client.request({ method: 'tools/call', params: { name: 'sandbox_inspect', arguments: {}, task: {} } }, CallToolResultSchema),
    (e) => e.code === -32601,
  );
});

e2e('a task outlives its server: its result is read back after a restart, and one the restart ended says so', { timeoutMs: 180_000 }, async (h) => {
  const st = withStateDir(h);
  const a = await h.startRaw({ env: st.env(ENV) });
  const done = (await call(a, 'tools/call', modern(long('print("kept")')))).result.taskId;
  assert.equal((await settle(a, done)).status, 'completed');
  const running = (await call(a, 'tools/call', modern(long('import time\ntime.sleep(300)')))).result.taskId;
  // Killed, not stopped: nothing gets to write the running task's end.
  a.proc.kill('SIGKILL');
  await a.exit;

  // Files that are no task of this server's are left alone.
  const junk = path.join(st.dir, 'tasks', `${'a'.repeat(32)}.json`);
  fs.writeFileSync(junk, '{"id": "not this file\'s"');
  const b = await h.startRaw({ env: st.env(ENV) });
  assert.equal((await call(b, 'tasks/get', modern({ taskId: 'a'.repeat(32) }))).error.code, -32602);
  assert.equal(fs.readFileSync(junk, 'utf8'), '{"id": "not this file\'s"');
  const kept = (await call(b, 'tasks/get', modern({ taskId: done }))).result;
  assert.equal(kept.status, 'completed', JSON.stringify(kept));
  assert.equal(runResult(kept.result).stdout, 'kept\n');
  const ended = (await call(b, 'tasks/get', modern({ taskId: running }))).result;
  assert.equal(ended.status, 'failed', JSON.stringify(ended));
  assert.match(ended.statusMessage, /stopped before it ended/);
  assert.equal(ended.error.code, -32603);
  // The killed server's containers are the next one's to remove.
  await waitFor(async () => (await serverContainers(a.pid)).length === 0, {
    timeoutMs: 60_000,
    what: 'the killed server\'s containers to be removed by the next server',
  });
});

e2e('over HTTP: a task is its tenant\'s, and Mcp-Name must carry its id', { timeoutMs: 120_000 }, async (h) => {
  const file = tokensFile(h);
  const alice = newToken(file, 'alice');
  const bob = newToken(file, 'bob');
  const st = withStateDir(h);
  const s = await startHttp(h, { env: st.env({ SANDBOX_POOL_SIZE: '0', SANDBOX_BASH_POOL_SIZE: '1', SANDBOX_TASKS_SYNC_MS: '0', SANDBOX_HTTP_TOKENS_FILE: file }) });
  const post = (who, method, params, headers = {}) =>
    request(s.url, { headers: { authorization: `Bearer ${who}`, accept: 'application/json', ...headers }, body: { jsonrpc: '2.0', id: next++, method, params: modern(params) } });

  const created = await post(alice, 'tools/call', { name: 'sandbox_execute', arguments: { language: 'bash', code: 'echo alice-only', timeout: 70_000 } });
  assert.equal(created.status, 200, created.body);
  const taskId = created.json.result.taskId;
  assert.match(taskId, /^[0-9a-f]{32}$/, created.body);

  // Another tenant: no such task, to get or to cancel.
  for (const m of ['tasks/get', 'tasks/cancel']) {
    const r = await post(bob, m, { taskId });
    assert.equal(r.json.error?.code, -32602, `${m}: ${r.body}`);
  }
  // Mcp-Name: required, and the task's id.
  let r = await post(alice, 'tasks/get', { taskId }, { 'mcp-name': 'f'.repeat(32) });
  assert.equal(r.status, 400);
  assert.equal(r.json.error.code, -32020, r.body);
  r = await post(alice, 'tasks/get', { taskId }, { 'mcp-name': undefined });
  assert.equal(r.status, 400);
  assert.equal(r.json.error.code, -32020, r.body);

  r = await waitFor(async () => {
    const g = await post(alice, 'tasks/get', { taskId });
    assert.equal(g.status, 200, g.body);
    return g.json.result.status !== 'working' && g;
  }, { timeoutMs: 60_000, intervalMs: 1000, what: 'alice\'s task to end' });
  assert.equal(r.json.result.status, 'completed', r.body);
  assert.equal(runResult(r.json.result.result).stdout, 'alice-only\n');
  // Listed to its owner only (sandbox_inspect).
  const mine = await post(alice, 'tools/call', { name: 'sandbox_inspect', arguments: { what: 'tasks' } });
  assert.deepEqual(JSON.parse(mine.json.result.content[0].text).tasks.map((t) => t.taskId), [taskId], mine.body);
  const theirs = await post(bob, 'tools/call', { name: 'sandbox_inspect', arguments: { what: 'tasks' } });
  assert.deepEqual(JSON.parse(theirs.json.result.content[0].text).tasks, [], theirs.body);
});

e2e('caps and expiry: a call past [tasks] max_live is quota_exceeded at once; a task past its ttl is gone', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await h.startRaw({ env: st.env({ ...ENV, SANDBOX_TASKS_MAX_LIVE: '1', SANDBOX_TASKS_TTL_MS: '1000' }) });
  const first = (await call(s, 'tools/call', modern(long('import time\ntime.sleep(300)')))).result;
  assert.equal(first.resultType, 'task');
  assert.equal(first.ttlMs, 1000);
  const second = (await call(s, 'tools/call', modern(long('print(1)')))).result;
  assert.equal(second.resultType, 'complete', JSON.stringify(second));
  assert.equal(toolError(second).code, 'quota_exceeded');
  // Past its ttl the task is gone (and its call with it); the cap is free again.
  await waitFor(async () => (await call(s, 'tasks/get', modern({ taskId: first.taskId }))).error?.code === -32602, {
    timeoutMs: 30_000,
    what: 'the task to expire',
  });
  const third = (await call(s, 'tools/call', modern(long('print(3)')))).result;
  assert.equal(third.resultType, 'task', JSON.stringify(third));
});

e2e('sandbox_install as a task (its budget is past the threshold): npm from the real registry, the result inline', { timeoutMs: 300_000 }, async (h) => {
  const p = packageEnv(h);
  const st = withStateDir(h);
  const s = await h.startRaw({ env: st.env({ ...p.env, SANDBOX_POOL_SIZE: '0', SANDBOX_TASKS_SYNC_MS: '0' }) });
  const created = (await call(s, 'tools/call', modern({ name: 'sandbox_install', arguments: { language: 'javascript', packages: ['is-odd@3.0.1'] } }))).result;
  assert.equal(created.resultType, 'task', JSON.stringify(created));
  const done = await settle(s, created.taskId);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  assert.equal(done.result.isError, false, JSON.stringify(done.result));
  const installed = JSON.parse(done.result.content[0].text);
  assert.deepEqual(installed.packages.filter((x) => x.requested).map((x) => [x.name, x.version]), [['is-odd', '3.0.1']]);
});
