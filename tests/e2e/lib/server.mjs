// Starting the real build/bin/mcp-sandbox for a test, two ways:
//
//  - McpServer: through the official SDK's Client + StdioClientTransport,
//    the way an MCP host runs it;
//  - RawServer: through child_process with hand-written lines on stdin, for
//    what the SDK cannot send (malformed JSON, huge lines, odd versions).
//
// and e2e(), a node:test wrapper that gates on Docker, bounds the test's
// time, closes every server the test started (the server removes its
// containers when it exits) and, when the test fails, puts the servers'
// stderr into the failure; a server the tests of a file share (h.shared)
// is closed when the file's tests are done.
import { spawn } from 'node:child_process';
import fs, { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { dockerReachable } from './docker.mjs';

/**
 * The run of a successful sandbox_execute result: its JSON, the first
 * content block (the tool has no output schema, so that a client which
 * prefers structuredContent still passes its images on). Images and
 * resource links may follow it, nothing else.
 */
export function runResult(r) {
  assert.equal(r.structuredContent, undefined, 'sandbox_execute returns no structuredContent');
  assert.equal(r.content?.[0]?.type, 'text', 'the first block is the JSON text');
  for (const b of r.content.slice(1)) assert.ok(['image', 'resource_link'].includes(b.type), `a block after the text: ${b.type}`);
  return JSON.parse(r.content[0].text);
}

export const ROOT = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
export const BIN = process.env.MCP_SANDBOX_BIN || path.join(ROOT, 'build/bin/mcp-sandbox');
export const IN_CI = process.env.CI === 'true';
/** The plugin ABI of the tree's SDK header, "MAJOR.MINOR". */
export const PLUGIN_ABI = (() => {
  const h = fs.readFileSync(path.join(ROOT, 'sdk/include/mcp-sandbox/plugin.h'), 'utf8');
  return `${h.match(/#define SBX_PLUGIN_ABI_MAJOR (\d+)/)[1]}.${h.match(/#define SBX_PLUGIN_ABI_MINOR (\d+)/)[1]}`;
})();

// One warm container per language instead of the default two, and none for
// the languages that most tests do not use: the machine has two cores and
// every test starts its own server. A test that needs more sets its own
// values (a language's own key beats SANDBOX_POOL_SIZE). No language is
// warm from the start: a language's first call starts its container, and
// a server that never runs python or bash starts none (two warm containers
// cost each server start about 0.5 s of CPU, and the suite starts a few
// hundred). A test that wants containers waiting names them
// (SANDBOX_POOL_WARM_AT_START); pool_adaptive.test.mjs runs with the
// shipped pool settings instead (SHIPPED_POOL).
// Sessions are remembered in a state directory; tests never use the user's
// (one per test process, removed at its exit; session tests use their own).
const STATE_DIR = mkdtempSync(path.join(os.tmpdir(), 'sbx-e2e-state-'));
process.on('exit', () => rmSync(STATE_DIR, { recursive: true, force: true }));
const POOL_ENV = {
  SANDBOX_POOL_WARM_AT_START: '',
  SANDBOX_POOL_SIZE: '1',
  SANDBOX_JAVASCRIPT_POOL_SIZE: '0',
  SANDBOX_TYPESCRIPT_POOL_SIZE: '0',
  SANDBOX_GO_POOL_SIZE: '0',
  SANDBOX_RUST_POOL_SIZE: '0',
  SANDBOX_PYTHON_ML_POOL_SIZE: '0',
};
// SBX_E2E_BLOCKLIST=off|warn|block runs every server with that blocklist
// mode (scripts/test.sh runs the adversarial suite again with it off).
const DEFAULT_ENV = {
  SANDBOX_SESSIONS_STATE_DIR: STATE_DIR,
  ...POOL_ENV,
  ...(process.env.SBX_E2E_BLOCKLIST ? { SANDBOX_LIMITS_BLOCKLIST: process.env.SBX_E2E_BLOCKLIST } : {}),
};

/** Pass as (part of) a server's env to run it with sandbox.ini's pool settings. */
export const SHIPPED_POOL = Object.fromEntries(Object.keys(POOL_ENV).map((k) => [k, undefined]));
const STDERR_KEEP = 256 * 1024;
const STDERR_SHOW = Number(process.env.SBX_E2E_STDERR_SHOW || 12 * 1024);

export function serverEnv(env) {
  const all = { ...process.env, ...DEFAULT_ENV, ...env };
  // undefined unsets a variable (SHIPPED_POOL).
  return Object.fromEntries(Object.entries(all).filter(([, v]) => v !== undefined));
}

function keepTail(s) {
  return s.length > STDERR_KEEP ? s.slice(s.length - STDERR_KEEP) : s;
}

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no result after ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** The {code, message} of a host-side failure result (isError true). */
export function toolError(result) {
  assert.equal(result.isError, true, `expected isError true, got ${JSON.stringify(result).slice(0, 2000)}`);
  assert.equal(result.structuredContent, undefined, 'an error result carries no structuredContent');
  assert.ok(Array.isArray(result.content) && result.content[0]?.type === 'text', 'an error result has a text content');
  const body = JSON.parse(result.content[0].text);
  assert.equal(typeof body.error?.code, 'string', `error text: ${result.content[0].text}`);
  assert.equal(typeof body.error?.message, 'string', `error text: ${result.content[0].text}`);
  return body.error;
}

export class McpServer {
  constructor({ env = {}, args = [], cwd = ROOT, bin = BIN } = {}) {
    this.bin = bin; // an installed one, for instance
    this.env = env;
    this.args = args;
    this.cwd = cwd; // the working directory (sessions' state slots depend on it)
    this.stderr = '';
    this.pid = null;
    this.exited = null;
    this.closed = false;
  }

  get label() {
    return `mcp-sandbox (SDK client, pid ${this.pid ?? '-'})`;
  }

  async start() {
    this.transport = new StdioClientTransport({
      command: this.bin,
      args: this.args,
      env: serverEnv(this.env),
      cwd: this.cwd,
      stderr: 'pipe',
    });
    this.transport.stderr.on('data', (c) => {
      this.stderr = keepTail(this.stderr + c.toString('utf8'));
    });
    this.client = new Client({ name: 'mcp-sandbox-e2e', version: '1.0.0' });
    // Called when the server process has gone (the transport's 'close').
    this.exited = new Promise((resolve) => {
      this.client.onclose = resolve;
    });
    await this.client.connect(this.transport);
    this.pid = this.transport.pid;
    // As a host does: it also makes the SDK check every structuredContent
    // against the tool's outputSchema.
    this.tools = (await this.client.listTools()).tools;
    return this;
  }

  /** tools/call sandbox_execute with raw arguments; returns the CallToolResult. */
  call(args, { requestTimeoutMs = 60_000 } = {}) {
    return this.client.callTool({ name: 'sandbox_execute', arguments: args }, undefined, {
      timeout: requestTimeoutMs,
    });
  }

  /**
   * Runs code and returns the JSON of a successful call (isError false,
   * runResult()). Other
   * keys of the options (stdin, typecheck, optimize, ml...) are passed as
   * tool arguments.
   */
  async execute(language, code, { timeout, requestTimeoutMs, ...extra } = {}) {
    const args = { language, code, ...extra };
    if (timeout !== undefined) args.timeout = timeout;
    const r = await this.call(args, { requestTimeoutMs });
    assert.equal(
      r.isError ?? false,
      false,
      `sandbox_execute(${language}) failed on the host side: ${r.content?.[0]?.text}`,
    );
    return runResult(r);
  }

  async close() {
    if (this.closed) return;
    this.closed = true;
    if (!this.client) return;
    await this.client.close();
    await withTimeout(this.exited, 15_000, `${this.label} exit`);
  }
}

export class RawServer {
  constructor({ env = {}, args = [], bin = BIN } = {}) {
    this.env = env;
    this.args = args;
    this.bin = bin;
    this.stderr = '';
    this.messages = []; // every stdout line, parsed
    this.badLines = []; // stdout lines that are not JSON
    this.waiters = [];
    this.closed = false;
  }

  get label() {
    return `mcp-sandbox (raw stdio, pid ${this.proc?.pid ?? '-'})`;
  }

  start() {
    this.proc = spawn(this.bin, this.args, { env: serverEnv(this.env), cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    this.pid = this.proc.pid;
    this.exited = null;
    this.exit = new Promise((resolve) => {
      // 'close' comes after stdout has been read to its end.
      this.proc.on('close', (code, signal) => {
        this.exited = { code, signal };
        for (const w of [...this.waiters]) w.fail(`the server exited: ${JSON.stringify(this.exited)}`);
        resolve(this.exited);
      });
    });
    this.proc.stdin.on('error', () => {}); // EPIPE if the server went away: the test says so
    this.proc.stderr.on('data', (c) => {
      this.stderr = keepTail(this.stderr + c.toString('utf8'));
    });
    let pending = Buffer.alloc(0);
    this.proc.stdout.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      let nl;
      while ((nl = pending.indexOf(0x0a)) >= 0) {
        const line = pending.subarray(0, nl).toString('utf8');
        pending = pending.subarray(nl + 1);
        let msg;
        try {
          msg = JSON.parse(line);
        } catch {
          this.badLines.push(line);
          continue;
        }
        if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) {
          this.badLines.push(line);
          continue;
        }
        this.messages.push(msg);
        for (const w of [...this.waiters]) w.check();
      }
    });
    this.proc.stdout.on('end', () => {
      if (pending.length) this.badLines.push(`(unterminated) ${pending.toString('utf8')}`);
    });
    return new Promise((resolve, reject) => {
      this.proc.once('spawn', () => resolve(this));
      this.proc.once('error', reject);
    });
  }

  /** Writes bytes followed by a newline, honouring back-pressure. */
  async sendLine(data) {
    const buf = Buffer.isBuffer(data) ? data : Buffer.from(typeof data === 'string' ? data : JSON.stringify(data));
    const payload = Buffer.concat([buf, Buffer.from('\n')]);
    if (!this.proc.stdin.write(payload)) {
      await new Promise((resolve, reject) => {
        this.proc.stdin.once('drain', resolve);
        this.proc.once('close', () => reject(new Error(`${this.label} exited while we were writing`)));
      });
    }
  }

  /** The first message from index `from` on that matches, waiting up to timeoutMs. */
  waitFor(pred, { from = 0, timeoutMs = 15_000, what = 'a matching message' } = {}) {
    return new Promise((resolve, reject) => {
      const waiter = {
        check: () => {
          const i = this.messages.findIndex((m, k) => k >= from && pred(m));
          if (i < 0) return false;
          cleanup();
          resolve(this.messages[i]);
          return true;
        },
        fail: (why) => {
          cleanup();
          reject(
            new Error(`${this.label}: no ${what} (${why}); got ${JSON.stringify(this.messages.slice(from)).slice(0, 3000)}`),
          );
        },
      };
      const timer = setTimeout(() => waiter.fail(`waited ${timeoutMs} ms`), timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== waiter);
      };
      if (this.exited) waiter.check() || waiter.fail(`the server exited: ${JSON.stringify(this.exited)}`);
      else if (!waiter.check()) this.waiters.push(waiter);
    });
  }

  /**
   * Sends one line and returns the next response (result or error) written
   * after it; notifications (e.g. log messages) are passed over.
   */
  async exchange(line, opts = {}) {
    const from = this.messages.length;
    await this.sendLine(line);
    return this.waitFor((m) => 'id' in m && ('result' in m || 'error' in m), { from, what: 'response', ...opts });
  }

  /** Sends a request and returns the response with its id. */
  async request(id, method, params, opts = {}) {
    const msg = { jsonrpc: '2.0', id, method };
    if (params !== undefined) msg.params = params;
    const from = this.messages.length;
    await this.sendLine(msg);
    return this.waitFor((m) => m.id === id && ('result' in m || 'error' in m), {
      from,
      what: `response to ${method} (id ${JSON.stringify(id)})`,
      ...opts,
    });
  }

  async initialize(protocolVersion = '2025-06-18', id = 'init') {
    const r = await this.request(id, 'initialize', {
      protocolVersion,
      capabilities: {},
      clientInfo: { name: 'mcp-sandbox-e2e-raw', version: '1.0.0' },
    });
    await this.sendLine({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return r;
  }

  /** Closes stdin and waits for the process to exit (SIGTERM, then SIGKILL, if it does not). */
  async close() {
    if (this.closed) return this.exit;
    this.closed = true;
    if (this.exited) return this.exit;
    this.proc.stdin.end();
    const late = Symbol('late');
    const wait = (ms) => {
      let timer;
      return Promise.race([this.exit, new Promise((r) => (timer = setTimeout(() => r(late), ms)))]).finally(() =>
        clearTimeout(timer),
      );
    };
    let r = await wait(15_000);
    if (r !== late) return r;
    this.proc.kill('SIGTERM');
    r = await wait(10_000);
    if (r !== late) throw new Error(`${this.label} ignored stdin EOF for 15 s and exited only on SIGTERM`);
    this.proc.kill('SIGKILL');
    await this.exit;
    throw new Error(`${this.label} ignored stdin EOF and SIGTERM; killed`);
  }
}

// The servers the tests of this file share, by their options: started by
// the first test that asks, closed once the file's tests are done (each
// removes its containers as it exits).
const shared = new Map();
after(async () => {
  const closing = await Promise.allSettled([...shared.values()].map((s) => s.close()));
  const bad = closing.find((c) => c.status === 'rejected');
  if (bad) throw bad.reason;
});

/**
 * A test that starts servers. fn receives a harness:
 *   h.start(opts)    -> a started McpServer   (opts: { env, args, cwd })
 *   h.startRaw(opts) -> a started RawServer
 *   h.shared(opts)   -> a started McpServer that the file's tests with the
 *                       same opts share: for tests that only make calls
 *                       and need no server of their own (its log, its
 *                       containers, its end are not theirs to look at)
 *   h.t              -> the node:test context
 * docker: true (the default) skips the test when no Docker engine answers,
 * except under CI=true, where that is a failure.
 */
export function e2e(name, { docker = true, timeoutMs = 60_000 } = {}, fn) {
  test(name, async (t) => {
    if (docker) {
      const d = await dockerReachable();
      if (!d.ok) {
        if (IN_CI) throw new Error(`Docker is not reachable and CI=true: ${d.reason}`);
        t.skip(`Docker is not reachable: ${d.reason}`);
        return;
      }
    }
    const servers = [];
    const used = []; // shared ones, for the failure's diagnostics
    const h = {
      t,
      servers,
      async start(opts) {
        const s = new McpServer(opts);
        servers.push(s);
        return s.start();
      },
      async startRaw(opts) {
        const s = new RawServer(opts);
        servers.push(s);
        return s.start();
      },
      async shared(opts = {}) {
        const key = JSON.stringify(opts);
        let s = shared.get(key);
        if (!s) {
          s = new McpServer(opts);
          s.starting = s.start();
          shared.set(key, s);
        }
        used.push(s);
        await s.starting;
        return s;
      },
    };
    let failure;
    try {
      await withTimeout(fn(h), timeoutMs, `test "${name}"`);
    } catch (e) {
      failure = e;
    }
    // Close in parallel: each server removes its containers on the way out.
    const closing = await Promise.allSettled(servers.map((s) => s.close()));
    if (!failure) {
      const bad = closing.find((c) => c.status === 'rejected');
      if (bad) failure = bad.reason;
    }
    if (failure) {
      for (const s of [...servers, ...used]) {
        const tail = s.stderr.length > STDERR_SHOW ? `...${s.stderr.slice(-STDERR_SHOW)}` : s.stderr;
        // One diagnostic per line: reporters show each as a line of its own.
        t.diagnostic(`--- stderr of ${s.label}${used.includes(s) ? ', shared by the file\'s tests' : ''} ---`);
        for (const line of (tail || '(empty)').split('\n')) t.diagnostic(line);
      }
      throw failure;
    }
  });
}
