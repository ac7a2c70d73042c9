// Load over HTTP across two engines (issue 15; the full-size run with its
// figures is bench/http-load.mjs, recorded in docs/scaling.md): clients of
// two tenants on their own connections send stateless calls back to back,
// a share of them in sandbox sessions of their own, the rest one-off.
// Bounded by a count of calls, not by time: every call must succeed, both
// engines must take one-off calls, and once the clients are gone the
// server's open descriptors come back to where they were and its memory
// has not grown past a bound.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startEngine } from './lib/engines.mjs';
import { MODERN_META, modernHeaders, startHttp } from './lib/http.mjs';
import { BIN, IN_CI, e2e, runResult } from './lib/server.mjs';
import { withStateDir } from './lib/sessions.mjs';
import { waitFor } from './lib/wait.mjs';

const CLIENTS = 16;
const CALLS = 15; // per client
const RSS_GROWTH_KIB = 16 * 1024;

function procStats(pid) {
  return {
    rssKiB: Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]),
    fds: fs.readdirSync(`/proc/${pid}/fd`).length,
  };
}

/** TCP sockets on this local port still open on the server's side: not
 * its listener (0A), nor TIME_WAIT (06, closed). From /proc/net/tcp. */
function serverConnections(port) {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  return fs.readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f.length > 3 && f[1].endsWith(`:${hex}`) && f[3] !== '0A' && f[3] !== '06').length;
}

/** A stateless tools/call on the client's own kept-alive connection. */
function call(url, token, agent, name, args) {
  const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args, _meta: MODERN_META } };
  const data = JSON.stringify(body);
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: u.hostname, port: u.port, path: u.pathname, method: 'POST', agent,
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${token}`, ...modernHeaders(body), 'content-length': Buffer.byteLength(data) },
    }, (res) => {
      let text = '';
      res.on('data', (c) => { text += c; });
      res.on('end', () => {
        try {
          const msg = JSON.parse(text);
          if (res.statusCode !== 200 || msg.error) reject(new Error(`HTTP ${res.statusCode}: ${text.slice(0, 500)}`));
          else resolve(msg.result);
        } catch (e) {
          reject(new Error(`HTTP ${res.statusCode}: ${text.slice(0, 500)} (${e.message})`));
        }
      });
    });
    req.on('error', reject);
    req.end(data);
  });
}

e2e(`load: ${CLIENTS} HTTP clients of two tenants, ${CALLS} calls each, one-off and in sessions, over two engines: every call succeeds, descriptors and memory come back`, { timeoutMs: 300_000 }, async (h) => {
  if (process.getuid() !== 0) {
    if (IN_CI) throw new Error('this test starts a dockerd and needs root, and CI=true');
    h.t.skip('needs root to start a dockerd');
    return;
  }
  const second = await startEngine(h, { images: ['mcp-sandbox/bash:latest'] });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-load-'));
  h.t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const tokens = path.join(dir, 'tokens');
  const tok = ['team-a', 'team-b'].map((t) => execFileSync(BIN, ['token', t, '--file', tokens]).toString().trim());
  const ini = path.join(dir, 'sandbox.ini');
  fs.writeFileSync(ini, [
    '[engine.local]', 'host = unix:///var/run/docker.sock',
    '[engine.second]', `host = ${second.url}`, '',
  ].join('\n'));
  const st = withStateDir(h);
  const s = await startHttp(h, {
    args: ['serve', '--http', '127.0.0.1:0', '--config', ini],
    env: st.env({
      SANDBOX_POOL_SIZE: '0', SANDBOX_BASH_POOL_SIZE: '2', SANDBOX_BASH_POOL_MAX_SIZE: '6', SANDBOX_POOL_WARM_AT_START: 'bash',
      SANDBOX_HTTP_TOKENS_FILE: tokens, SANDBOX_HTTP_QUOTA_CONCURRENT: '0', SANDBOX_HTTP_QUOTA_PER_MINUTE: '0', SANDBOX_HTTP_QUOTA_SESSIONS: '0',
      SANDBOX_SESSIONS_MAX_SESSIONS: String(CLIENTS),
    }),
  });
  await waitFor(() => (s.stderr.match(/\[bash\] warm: /g) || []).length >= 2, { timeoutMs: 120_000, what: 'both engines\' bash pools warm' });

  const clients = Array.from({ length: CLIENTS }, (_, i) => ({
    i, token: tok[i % 2], agent: new http.Agent({ keepAlive: true, maxSockets: 1 }), session: i % 4 === 0 ? `s${i}` : null,
  }));
  for (const c of clients.filter((x) => x.session)) {
    const r = await call(s.url, c.token, c.agent, 'sandbox_session', { action: 'create', language: 'bash', name: c.session });
    assert.equal(r.isError ?? false, false, JSON.stringify(r));
  }
  // One round first, so that the baseline counts each client's connection.
  await Promise.all(clients.map((c) => call(s.url, c.token, c.agent, 'sandbox_execute', c.session ? { session: c.session, code: 'N=0' } : { language: 'bash', code: 'true' })));
  const before = procStats(s.pid);

  const engines = {};
  await Promise.all(clients.map(async (c) => {
    for (let k = 1; k <= CALLS; k++) {
      const args = c.session ? { session: c.session, code: 'N=$((N+1)); echo $N' } : { language: 'bash', code: `echo ${c.i}:${k}` };
      const run = runResult(await call(s.url, c.token, c.agent, 'sandbox_execute', args));
      assert.equal(run.exitCode, 0, run.stderr);
      assert.equal(run.stdout, c.session ? `${k}\n` : `${c.i}:${k}\n`, 'each call its own output; a session its state');
      if (!c.session) engines[run.engine] = (engines[run.engine] ?? 0) + 1;
    }
  }));
  assert.deepEqual(Object.keys(engines).sort(), ['local', 'second'], `one-off calls ran on ${JSON.stringify(engines)}`);

  for (const c of clients) c.agent.destroy();
  // The server closes its side of every client connection (none left on
  // its port but the listener); its descriptors are then those it had,
  // give or take the boxes its pools grew by under the load (each holds
  // its attach stream): a leak per call would be hundreds.
  const port = Number(new URL(s.url).port);
  await waitFor(() => serverConnections(port) === 0, { timeoutMs: 30_000, what: 'the server\'s side of the client connections closed' });
  const after = procStats(s.pid);
  assert.ok(after.fds <= before.fds + 16, `descriptors ${before.fds} with the clients connected, ${after.fds} after`);
  assert.ok(after.rssKiB - before.rssKiB < RSS_GROWTH_KIB, `RSS ${before.rssKiB} -> ${after.rssKiB} KiB`);
  h.t.diagnostic(`${CLIENTS * CALLS} calls; engines ${JSON.stringify(engines)}; RSS ${before.rssKiB} -> ${after.rssKiB} KiB; fds ${before.fds} -> ${after.fds}`);
  for (const c of clients.filter((x) => x.session)) await call(s.url, c.token, new http.Agent(), 'sandbox_session', { action: 'destroy', name: c.session });
});
