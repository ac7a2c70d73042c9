// Real clients as users run them: the MCP Inspector's CLI (tools/list with
// its schema-portability check, and a tools/call) and Claude Code's own CLI (`claude mcp add` in a fresh
// home, then `claude mcp list` reports the server connected; no login is
// needed for that). Both come from the npm registry as test dependencies.
// Claude Code runs with its non-essential traffic (telemetry, error
// reports, update checks) off: the only process it talks to is ours.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startHttp } from './lib/http.mjs';
import { BIN, e2e } from './lib/server.mjs';
import { withStateDir } from './lib/sessions.mjs';

const run = promisify(execFile);
const bin = (name) => path.join(path.dirname(new URL(import.meta.url).pathname), 'node_modules/.bin', name);
/** Claude Code's environment: a fresh home, its non-essential traffic off. */
const claudeEnv = (home) => ({
  ...process.env,
  HOME: home,
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
  DISABLE_AUTOUPDATER: '1',
});
const QUIET = { SANDBOX_POOL_SIZE: '0', SANDBOX_PYTHON_POOL_SIZE: '1', SANDBOX_POOL_WARM_AT_START: 'python' };

e2e('the MCP Inspector CLI lists the tools and runs code', { timeoutMs: 120_000 }, async (h) => {
  const env = { ...process.env, ...withStateDir(h).env(QUIET) };
  // --strict: the Inspector's schema-portability check prints each problem
  // (a "type" array such as ["integer", "null"], which some clients'
  // function declarations cannot take); a clean schema prints nothing.
  const list = await run(bin('mcp-inspector'), ['--cli', BIN, '--strict', '--method', 'tools/list'], { env, timeout: 60_000 });
  assert.doesNotMatch(list.stdout + list.stderr, /portability|Warning:|Error:/, 'the schema-portability check found problems');
  assert.deepEqual(JSON.parse(list.stdout).tools.map((t) => t.name),
    ['sandbox_execute', 'sandbox_session', 'sandbox_file_ops', 'sandbox_install', 'sandbox_security', 'sandbox_inspect', 'sandbox_process', 'sandbox_http']);
  const call = await run(bin('mcp-inspector'), ['--cli', BIN, '--method', 'tools/call', '--tool-name', 'sandbox_execute',
    '--tool-arg', 'language=python', '--tool-arg', 'code=print(6*7)'], { env, timeout: 60_000 });
  const r = JSON.parse(call.stdout);
  assert.equal(r.isError, false);
  assert.equal(JSON.parse(r.content[0].text).stdout, '42\n');
});

e2e('Claude Code: claude mcp add in a fresh home, then claude mcp list reports the server connected', { timeoutMs: 180_000 }, async (h) => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-claude-home-'));
  h.t.after(() => fs.rmSync(home, { recursive: true, force: true }));
  const st = withStateDir(h);
  const env = claudeEnv(home);
  const args = ['mcp', 'add', 'sandbox', '--scope', 'user'];
  for (const [k, v] of Object.entries(st.env(QUIET))) args.push('-e', `${k}=${v}`);
  await run(bin('claude'), [...args, '--', BIN], { env, timeout: 60_000 });
  const { stdout } = await run(bin('claude'), ['mcp', 'list'], { env, timeout: 120_000 });
  assert.match(stdout, new RegExp(`^sandbox: ${BIN.replace(/[.+]/g, '\\$&')} +- ✔ Connected$`, 'm'), stdout);
});

e2e('Claude Code over HTTP: claude mcp add --transport http with a tenant\'s token, then claude mcp list reports serve --http connected', { timeoutMs: 180_000 }, async (h) => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-claude-home-'));
  h.t.after(() => fs.rmSync(home, { recursive: true, force: true }));
  const tokens = path.join(home, 'tokens');
  const token = (await run(BIN, ['token', 'claude', '--file', tokens])).stdout.trim();
  const s = await startHttp(h, { env: withStateDir(h).env({ ...QUIET, SANDBOX_HTTP_TOKENS_FILE: tokens }) });
  const env = claudeEnv(home);
  await run(bin('claude'), ['mcp', 'add', '--transport', 'http', 'sandbox', s.url, '--scope', 'user', '--header', `Authorization: Bearer ${token}`], { env, timeout: 60_000 });
  const { stdout } = await run(bin('claude'), ['mcp', 'list'], { env, timeout: 120_000 });
  assert.match(stdout, new RegExp(`^sandbox: ${s.url.replace(/[.+]/g, '\\$&')} \\(HTTP\\) +- ✔ Connected$`, 'm'), stdout);
  // Without the token it is not connected: the server asked for one.
  await run(bin('claude'), ['mcp', 'add', '--transport', 'http', 'nokey', s.url, '--scope', 'user'], { env, timeout: 60_000 });
  const again = (await run(bin('claude'), ['mcp', 'list'], { env, timeout: 120_000 })).stdout;
  assert.doesNotMatch(again, /^nokey: .*✔ Connected$/m, again);
  assert.match(again, /^nokey: .*✘ Failed to connect/m, again);
});
