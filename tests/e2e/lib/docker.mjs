// A few read-only calls to the Docker Engine API, straight over its socket
// (no docker CLI needed): is the engine there, and which containers exist.
// The endpoint is the one the server uses by default: $DOCKER_HOST, else
// unix:///var/run/docker.sock.
import http from 'node:http';

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
