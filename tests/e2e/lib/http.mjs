// A server started with `serve --http`, for the HTTP transport's tests:
// the real binary on a port the kernel picks on 127.0.0.1, its URL read
// from the line it logs when it serves. h.servers closes it like the
// others (SIGTERM, then a clean exit is required).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import https from 'node:https';
import { BIN, ROOT, serverEnv } from './server.mjs';

const STDERR_KEEP = 256 * 1024;

export class HttpServer {
  constructor({ env = {}, args = ['serve', '--http', '127.0.0.1:0'], bin = BIN } = {}) {
    this.env = env;
    this.args = args;
    this.bin = bin;
    this.stderr = '';
    this.closed = false;
    this.url = null;
  }

  get label() {
    return `mcp-sandbox (HTTP, pid ${this.proc?.pid ?? '-'})`;
  }

  /** Resolves once the server logs its URL; rejects if it exits first. */
  start() {
    this.proc = spawn(this.bin, this.args, { env: serverEnv(this.env), cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    this.pid = this.proc.pid;
    this.stdout = '';
    this.proc.stdout.on('data', (c) => { this.stdout += c; });
    this.exit = new Promise((resolve) => this.proc.on('close', (code, signal) => resolve({ code, signal })));
    return new Promise((resolve, reject) => {
      this.proc.stderr.on('data', (c) => {
        this.stderr = (this.stderr + c).slice(-STDERR_KEEP);
        const m = /serving MCP at (\S+)/.exec(this.stderr);
        if (m && !this.url) {
          this.url = m[1];
          resolve(this);
        }
      });
      this.exit.then((e) => reject(new Error(`${this.label} exited before serving: ${JSON.stringify(e)}\n${this.stderr.slice(-3000)}`)));
    });
  }

  /** SIGTERM; the server must exit 0 within 20 s. */
  async close() {
    if (this.closed) return;
    this.closed = true;
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    this.proc.kill('SIGTERM');
    let timer;
    const r = await Promise.race([this.exit, new Promise((res) => { timer = setTimeout(() => res(null), 20_000); })]);
    clearTimeout(timer);
    if (!r) {
      this.proc.kill('SIGKILL');
      throw new Error(`${this.label} did not exit within 20 s of SIGTERM`);
    }
    if (r.code !== 0) throw new Error(`${this.label} exited ${JSON.stringify(r)} on SIGTERM`);
    if (this.stdout) throw new Error(`${this.label} wrote to stdout: ${this.stdout.slice(0, 500)}`);
  }
}

/** Starts an HttpServer that the harness closes after the test. */
export async function startHttp(h, opts) {
  const s = new HttpServer(opts);
  h.servers.push(s);
  return s.start();
}

/**
 * One raw request: { status, headers, body (text), json (parsed or
 * undefined) }. headers are sent as given (Host too); body a string or
 * an object (JSON). ca: a CA file's contents for https.
 */
export function request(url, { method = 'POST', headers = {}, body, ca, timeoutMs = 60_000 } = {}) {
  const u = new URL(url);
  const data = body === undefined ? undefined : typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  const h = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...modernHeaders(body), ...headers };
  for (const k of Object.keys(h)) if (h[k] === undefined) delete h[k];
  if (data !== undefined) h['content-length'] = Buffer.byteLength(data);
  const mod = u.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.request({ method, host: u.hostname, port: u.port, path: u.pathname + u.search, headers: h, ca, timeout: timeoutMs }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json;
        try { json = JSON.parse(text); } catch { /* SSE or empty */ }
        resolve({ status: res.statusCode, headers: res.headers, body: text, json });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${url}: no answer in ${timeoutMs} ms`)));
    req.on('error', reject);
    if (data !== undefined) req.write(data);
    req.end();
  });
}

/**
 * The headers a 2026-07-28 client sends with a request (MCP-Protocol-Version,
 * Mcp-Method, Mcp-Name: a tool, a URI or a task's id), read from the body as
 * such a client would; none
 * for another body. A test overrides or drops one with headers
 * (undefined drops it).
 */
export function modernHeaders(body) {
  const meta = body?.params?._meta;
  if (!meta?.['io.modelcontextprotocol/protocolVersion']) return {};
  const h = { 'mcp-protocol-version': meta['io.modelcontextprotocol/protocolVersion'], 'mcp-method': body.method };
  const name = ['tools/call', 'prompts/get'].includes(body.method)
    ? body.params.name
    : body.method === 'resources/read'
      ? body.params.uri
      : ['tasks/get', 'tasks/update', 'tasks/cancel'].includes(body.method)
        ? body.params.taskId
        : undefined;
  if (name !== undefined) h['mcp-name'] = name;
  return h;
}

/** The JSON-RPC messages of an event stream's body, in order. */
export function sseMessages(text) {
  return text.split('\n\n').map((ev) => ev.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n'))
    .filter(Boolean).map((d) => JSON.parse(d));
}

/** _meta of a 2026-07-28 request. */
export const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'e2e-raw', version: '1' },
};

/**
 * tools/call of a 2026-07-28 request as a tenant (token, or none):
 * resolves to { status, result (the CallToolResult), error (JSON-RPC) }.
 */
export async function toolCall(url, name, args, { token, headers = {}, ca } = {}) {
  const h = { ...headers };
  if (token) h.authorization = `Bearer ${token}`;
  const r = await request(url, {
    headers: h, ca,
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args, _meta: MODERN_META } },
  });
  const msg = r.json ?? sseMessages(r.body).at(-1);
  return { status: r.status, result: msg?.result, error: msg?.error, headers: r.headers };
}

/** Any other 2026-07-28 request as a tenant. */
export async function modernRequest(url, method, params = {}, { token } = {}) {
  const r = await request(url, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
    body: { jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: MODERN_META } },
  });
  return { status: r.status, json: r.json ?? sseMessages(r.body).at(-1), headers: r.headers };
}

/** A tenants' tokens file in a directory of the test's own, removed after it. */
export function tokensFile(h) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-tokens-'));
  h.t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'tokens');
}

/** `mcp-sandbox token NAME --file F`: the token it prints; quotas added to its line. */
export function newToken(file, name, quotas = '') {
  const token = execFileSync(BIN, ['token', name, '--file', file], { stdio: ['ignore', 'pipe', 'pipe'] }).toString().trim();
  if (quotas) {
    const lines = fs.readFileSync(file, 'utf8').split('\n').map((l) => (l.startsWith(`${name} `) ? `${l} ${quotas}` : l));
    fs.writeFileSync(file, lines.join('\n'));
  }
  return token;
}
