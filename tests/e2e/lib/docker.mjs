// A few read-only calls to the Docker Engine API, straight over its socket
// (no docker CLI needed): is the engine there, and which containers exist;
// and a gate in front of the engine that holds or fails the requests a test
// picks. The endpoint is the one the server uses by default: $DOCKER_HOST,
// else unix:///var/run/docker.sock.
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

function endpoint() {
  const host = process.env.DOCKER_HOST || 'unix:///var/run/docker.sock';
  if (host.startsWith('unix://')) return { socketPath: host.slice('unix://'.length) };
  if (host.startsWith('tcp://')) {
    const u = new URL(host.replace(/^tcp:/, 'http:'));
    return { host: u.hostname, port: Number(u.port || 2375) };
  }
  throw new Error(`DOCKER_HOST=${host}: only unix:// and tcp:// are supported by these tests`);
}

/**
 * GET an Engine API path; resolves with { status, body } (body parsed as
 * JSON when it is). socket: another engine's unix socket (one a test
 * started) instead of the default.
 */
export function dockerGet(path, { timeoutMs = 10_000, socket } = {}) {
  return new Promise((resolve, reject) => {
    const where = socket ? { socketPath: socket } : endpoint();
    const req = http.get({ ...where, path, timeout: timeoutMs }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body = text;
        try {
          body = JSON.parse(text);
        } catch {
          // _ping answers plain "OK"
        }
        resolve({ status: res.statusCode, body });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`Docker API ${path}: no answer in ${timeoutMs} ms`)));
    req.on('error', reject);
  });
}

let pingResult;

/**
 * Whether a Docker engine answers. Resolves with { ok: true } or
 * { ok: false, reason }. Asked once per test file.
 */
export function dockerReachable() {
  pingResult ??= dockerGet('/_ping', { timeoutMs: 5000 }).then(
    (r) => (r.status === 200 ? { ok: true } : { ok: false, reason: `/_ping answered HTTP ${r.status}` }),
    (e) => ({ ok: false, reason: e.message }),
  );
  return pingResult;
}

/**
 * Containers (running or not) carrying every given label ("key=value" or
 * "key"). Returns the Engine API's container summaries.
 */
export async function containersWithLabels(labels) {
  const filters = encodeURIComponent(JSON.stringify({ label: labels }));
  const r = await dockerGet(`/containers/json?all=1&filters=${filters}`);
  if (r.status !== 200) throw new Error(`Docker API /containers/json: HTTP ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** Whether an image exists locally. */
export async function imageExists(ref) {
  const r = await dockerGet(`/images/${encodeURIComponent(ref)}/json`);
  return r.status === 200;
}

/**
 * The IPv4 gateway of Docker's default bridge: an address of this machine
 * (the engine's host), the one target of tests that try to reach out of a
 * sandbox. Tests never aim at an address outside this machine.
 */
export async function bridgeGateway() {
  const r = await dockerGet('/networks/bridge');
  const c = r.body?.IPAM?.Config?.find((x) => x.Subnet && !x.Subnet.includes(':'));
  if (r.status !== 200 || !c) throw new Error(`Docker API /networks/bridge: no IPv4 subnet (HTTP ${r.status})`);
  if (c.Gateway) return c.Gateway;
  // Not stated: the engine gives the bridge the subnet's first address.
  const [base] = c.Subnet.split('/');
  const n = base.split('.').reduce((a, b) => a * 256 + Number(b), 0) + 1;
  return [24, 16, 8, 0].map((sh) => Math.floor(n / 2 ** sh) % 256).join('.');
}

/** The Engine API's statistics request: GET [/v1.41]/containers/{id}/stats. */
export const STATS_REQUEST = /^GET (\/v[\d.]+)?\/containers\/[^/\s]+\/stats[?\s]/;

/**
 * A unix socket in front of the engine (give the server `host` as
 * DOCKER_HOST) that passes everything through but the requests whose first
 * bytes match `match` (a request starts a client's write: the server's
 * client sends one request at a time on a connection, and a hijacked
 * stream carries agent frames, never "GET /"). What happens to those is
 * the gate's mode, which the test changes as it goes:
 *   hold()  from now on they wait, the connection kept and nothing sent,
 *           until pass() sends them on;
 *   fail()  from now on the gate answers them itself, 500 with a message;
 *   pass()  they go through (held ones too), as everything else does.
 * seen() counts the matching requests so far, held(text) those waiting
 * whose client is still connected (whose request line has text in it:
 * a container's id, say).
 */
export function engineGate(h, { match = STATS_REQUEST, mode = 'pass' } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-gate-'));
  const sock = path.join(dir, 'docker.sock');
  const engine = (process.env.DOCKER_HOST || 'unix:///var/run/docker.sock').replace(/^unix:\/\//, '');
  const open = new Set();
  const waiting = new Map(); // the held: () => send on, to the request line
  let seen = 0;
  const FAILED = '{"message":"failed by the test\'s gate"}';
  const server = net.createServer((c) => {
    const u = net.connect(engine);
    let held = null; // the bytes kept since the connection was held
    const release = () => {
      waiting.delete(release);
      if (held === null) return;
      for (const b of held) u.write(b);
      held = null;
    };
    open.add(c);
    open.add(u);
    c.on('data', (b) => {
      if (held !== null) return void held.push(b);
      if (match.test(b.toString('latin1', 0, 200))) {
        seen++;
        if (mode === 'hold') {
          held = [b];
          waiting.set(release, b.toString('latin1', 0, 200).split('\r\n')[0]);
          return;
        }
        if (mode === 'fail') {
          c.write(`HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\nContent-Length: ${FAILED.length}\r\n\r\n${FAILED}`);
          return;
        }
      }
      u.write(b);
    });
    u.pipe(c);
    const end = () => { waiting.delete(release); c.destroy(); u.destroy(); open.delete(c); open.delete(u); };
    c.on('error', end); u.on('error', end); c.on('close', end); u.on('close', end);
  });
  h.t.after(() => new Promise((r) => {
    for (const x of open) x.destroy();
    server.close(() => r());
    fs.rmSync(dir, { recursive: true, force: true });
  }));
  return new Promise((resolve) => server.listen(sock, () => resolve({
    host: `unix://${sock}`,
    hold: () => { mode = 'hold'; },
    fail: () => { mode = 'fail'; },
    pass: () => { mode = 'pass'; for (const go of [...waiting.keys()]) go(); },
    seen: () => seen,
    held: (text = '') => [...waiting.values()].filter((l) => l.includes(text)).length,
  })));
}
