// Helpers for the session tests (sandbox_session and sandbox_execute with
// `session`).
//
// Session containers outlive their server on purpose, clean exits included
// (an editor restarting the server must find its sessions again), so the
// harness's closing of servers does not remove them. Every test therefore
// gets its own state directory (SANDBOX_SESSIONS_STATE_DIR), and removes
// afterwards, pass or fail, the containers of the slots its servers took
// there: a slot is named after a "<8 hex>-<n>.lock" file in the directory
// and its containers are named "sbx-s.<slot>.<deadline>.<language>.<name>".
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { runResult, toolError } from './server.mjs';
import { waitFor } from './wait.mjs';

const run = promisify(execFile);

export const SESSION_PREFIX = 'sbx-s.';
export const GENERATED_NAME = /^[A-Za-z0-9]{22}$/;
export const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** A fresh, empty state directory. */
export function makeStateDir() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-sandbox-e2e-state-'));
}

/** The slots servers took in a state directory ("<8hex>-<n>", from the lock and state files). */
export function stateSlots(dir) {
  let names;
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const slots = new Set();
  for (const f of names) {
    const m = /^([0-9a-f]{8}-\d+)\.(lock|json)$/.exec(f);
    if (m) slots.add(m[1]);
  }
  return [...slots].sort();
}

/** Every container (running or not) as { id, name } (name without Docker's leading '/'). */
async function allContainers() {
  const { stdout } = await run('docker', ['ps', '-a', '--no-trunc', '--format', '{{.ID}}\t{{.Names}}'], {
    timeout: 30_000,
  });
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [id, names] = l.split('\t');
      return { id, name: names.split(',')[0] };
    });
}

/**
 * Session containers of the given slots (or of every slot of a state
 * directory): [{ id, name, slot, deadline, language, session }].
 */
export async function sessionContainers({ dir, slots } = {}) {
  const want = slots ?? stateSlots(dir);
  if (want.length === 0) return [];
  const out = [];
  for (const c of await allContainers()) {
    for (const slot of want) {
      const p = `${SESSION_PREFIX}${slot}.`;
      if (!c.name.startsWith(p)) continue;
      const m = /^(\d+)\.([^.]+)\.(.+)$/.exec(c.name.slice(p.length));
      out.push({
        ...c,
        slot,
        deadline: m ? Number(m[1]) : null,
        language: m ? m[2] : null,
        session: m ? m[3] : null,
      });
    }
  }
  return out;
}

/** The container of one session of the state directory (asserted to exist). */
export async function sessionContainer(dir, session) {
  const all = await sessionContainers({ dir });
  const c = all.find((x) => x.session === session);
  assert.ok(c, `a container for session ${session} among ${JSON.stringify(all.map((x) => x.name))}`);
  return c;
}

/**
 * Python code that returns once `file` exists: put it in a call that must
 * still be running while the test looks (session busy, a call queued), and
 * end it with releaseFile() once the test has seen what it waited for.
 */
export function pyUntilFile(file) {
  return `import os, time\nwhile not os.path.exists(${JSON.stringify(file)}):\n    time.sleep(0.05)\n`;
}

/** The same for bash. */
export function shUntilFile(file) {
  return `until [ -e '${file}' ]; do sleep 0.05; done\n`;
}

/**
 * Creates `file` in a container (a { id } or an id) as the sandbox user:
 * ends a call waiting for it. The call may end, and the agent sweep the
 * sandbox user's processes as a call's end does, while `touch` is still on
 * its way out after making the file: docker exec then says 137 (SIGKILL).
 * The file is there; touching it again, with no call left to end, says so.
 */
export async function releaseFile(container, file) {
  const touch = () => run('docker', ['exec', '-u', '1000', container.id ?? container, 'touch', file], { timeout: 30_000 });
  try {
    await touch();
  } catch (e) {
    if (e.code !== 137) throw e;
    await touch();
  }
}

/** `docker rm -f` every session container of the state directory's slots; returns how many. */
export async function removeSessionContainers(dir) {
  const ids = (await sessionContainers({ dir })).map((c) => c.id);
  if (ids.length) await run('docker', ['rm', '-f', ...ids], { timeout: 60_000 });
  return ids.length;
}

/** Removes the state directory's session containers, then the directory. */
export async function cleanupStateDir(dir) {
  try {
    await removeSessionContainers(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * For an e2e() test: a private state directory, removed with its session
 * containers when the test ends (t.after: after the harness has closed the
 * servers, whether the test passed or not). Returns
 *   { dir, env(extra) -> server env with SANDBOX_SESSIONS_STATE_DIR,
 *     start(extra)   -> h.start with that env }.
 */
export function withStateDir(h) {
  const dir = makeStateDir();
  h.t.after(async () => {
    try {
      await cleanupStateDir(dir);
    } catch (e) {
      // Never hide the test's own failure; say what was left.
      h.t.diagnostic(`cleaning up ${dir}: ${e.message}`);
    }
  });
  const env = (extra = {}) => ({ SANDBOX_SESSIONS_STATE_DIR: dir, ...extra });
  return { dir, env, start: (extra = {}) => h.start({ env: env(extra) }) };
}

/** tools/call sandbox_session with raw arguments; returns the CallToolResult. */
export function sessionCall(s, args, { requestTimeoutMs = 120_000 } = {}) {
  return s.client.callTool({ name: 'sandbox_session', arguments: args }, undefined, { timeout: requestTimeoutMs });
}

/** A successful sandbox_session call's structuredContent (text content checked to mirror it). */
export async function sessionOk(s, args, opts) {
  const r = await sessionCall(s, args, opts);
  assert.equal(r.isError ?? false, false, `sandbox_session ${JSON.stringify(args)} failed: ${r.content?.[0]?.text}`);
  assert.ok(r.structuredContent, 'a successful sandbox_session result has structuredContent');
  assert.deepEqual(JSON.parse(r.content[0].text), r.structuredContent, 'text content mirrors structuredContent');
  return r.structuredContent;
}

/** The {code, message} of a failed sandbox_session call. */
export async function sessionErr(s, args, opts) {
  return toolError(await sessionCall(s, args, opts));
}

/** Checks the shape of a session description and returns it. */
export function checkSession(info, { name, language } = {}) {
  assert.equal(typeof info, 'object', `session description: ${JSON.stringify(info)}`);
  if (name !== undefined) assert.equal(info.name, name);
  if (language !== undefined) assert.equal(info.language, language);
  assert.ok(['active', 'busy', 'starting', 'paused'].includes(info.state), `state ${info.state}`);
  for (const k of ['created', 'lastUsed', 'expires', 'deadline']) {
    assert.match(info[k], ISO_TIME, `${k} is an ISO 8601 UTC time`);
    assert.ok(!Number.isNaN(Date.parse(info[k])), `${k} parses`);
  }
  assert.ok(Number.isInteger(info.ttlSeconds) && info.ttlSeconds >= 1, `ttlSeconds ${info.ttlSeconds}`);
  assert.ok(Number.isInteger(info.executions) && info.executions >= 0, `executions ${info.executions}`);
  assert.ok(Number.isInteger(info.queued) && info.queued >= 0, `queued ${info.queued}`);
  assert.equal(typeof info.keepsMemory, 'boolean', 'keepsMemory');
  // Absent until the first measurement, and then with its age (docs/sessions.md, "Memory").
  assert.ok(info.memoryBytes === undefined || Number.isInteger(info.memoryBytes), `memoryBytes ${info.memoryBytes}`);
  assert.equal(info.memoryAgeMs === undefined, info.memoryBytes === undefined, `memoryAgeMs ${info.memoryAgeMs} with memoryBytes ${info.memoryBytes}`);
  assert.ok(info.memoryAgeMs === undefined || (Number.isInteger(info.memoryAgeMs) && info.memoryAgeMs >= 0), `memoryAgeMs ${info.memoryAgeMs}`);
  assert.ok(Date.parse(info.created) <= Date.parse(info.lastUsed) + 1, 'created <= lastUsed');
  assert.ok(Date.parse(info.expires) <= Date.parse(info.deadline), 'expires <= deadline');
  return info;
}

/** Creates a session; returns its description. */
export async function createSession(s, language, { name, ttl, ml } = {}) {
  const args = { action: 'create', language };
  if (name !== undefined) args.name = name;
  if (ttl !== undefined) args.ttl = ttl;
  if (ml !== undefined) args.ml = ml;
  const r = await sessionOk(s, args);
  // ml: true picks another language (python -> python-ml): checked by the caller.
  return checkSession(r.session, { name, language: ml ? undefined : language });
}

/** The names in `list`. */
export async function listNames(s) {
  const r = await sessionOk(s, { action: 'list' });
  assert.ok(Array.isArray(r.sessions), `list: ${JSON.stringify(r)}`);
  return r.sessions.map((x) => x.name).sort();
}

/** Polls `get` until the session is neither starting nor busy (its interpreter is up). */
export async function waitActive(s, name, { timeoutMs = 60_000 } = {}) {
  return waitState(s, name, 'active', { timeoutMs });
}

/** Polls `get` until the session is in this state; returns its description. */
export async function waitState(s, name, state, { timeoutMs = 30_000 } = {}) {
  let last;
  try {
    return await waitFor(
      async () => {
        last = (await sessionOk(s, { action: 'get', name })).session;
        return last.state === state && last;
      },
      { timeoutMs, intervalMs: 50, what: `session ${name} to be ${state}` },
    );
  } catch (e) {
    throw new Error(`${e.message}: still ${last?.state}`);
  }
}

/** Polls `get` until `queued` calls wait in the session's queue. */
export async function waitQueued(s, name, queued, { timeoutMs = 30_000 } = {}) {
  return waitFor(async () => (await sessionOk(s, { action: 'get', name })).session.queued === queued, {
    timeoutMs,
    intervalMs: 50,
    what: `${queued} call(s) queued in session ${name}`,
  });
}

/** tools/call sandbox_execute in a session (raw result). Extra keys are passed as arguments. */
export function sessionExecCall(s, session, code, { timeout, requestTimeoutMs = 120_000, signal, onprogress, ...extra } = {}) {
  const args = { session, code, ...extra };
  if (timeout !== undefined) args.timeout = timeout;
  const opts = { timeout: requestTimeoutMs };
  if (signal) opts.signal = signal;
  if (onprogress) opts.onprogress = onprogress;
  return s.client.callTool({ name: 'sandbox_execute', arguments: args }, undefined, opts);
}

/** Checks a successful session execution result and returns its JSON. */
export function sessionResult(r, session) {
  assert.equal(r.isError ?? false, false, `sandbox_execute in session ${session} failed: ${r.content?.[0]?.text}`);
  const o = runResult(r);
  assert.equal(o.session, session, 'the result names its session');
  assert.equal(typeof o.stateKept, 'boolean', 'stateKept');
  assert.equal(typeof o.freshState, 'boolean', 'freshState');
  return o;
}

/** Runs code in a session; returns the JSON of a successful call. */
export async function sexec(s, session, code, opts = {}) {
  return sessionResult(await sessionExecCall(s, session, code, opts), session);
}

/** Same, and the program must have exited 0 (stderr in the message otherwise). */
export async function sexecOk(s, session, code, opts = {}) {
  const r = await sexec(s, session, code, opts);
  assert.equal(r.exitCode, 0, `exit ${r.exitCode} signal ${r.signal}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r;
}

/** The {code, message} of a failed sandbox_execute in a session. */
export async function sexecErr(s, session, code, opts = {}) {
  return toolError(await sessionExecCall(s, session, code, opts));
}

/** Kills a server with SIGKILL (no clean-up of any kind) and waits until its transport closed. */
export async function killServer(s) {
  assert.ok(s.pid, 'the server has a pid');
  process.kill(s.pid, 'SIGKILL');
  let timer;
  await Promise.race([
    s.exited,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${s.label} did not go away after SIGKILL`)), 10_000);
    }),
  ]).finally(() => clearTimeout(timer));
}
