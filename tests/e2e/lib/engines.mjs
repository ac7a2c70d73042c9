// Engines of a test's own on this machine (docs/scaling.md): a dockerd
// with its own data root, exec root, socket, pid file and bridge (no
// iptables rules, no other network touched), optionally listening on
// 127.0.0.1 with TLS; and the certificates for it, made with OpenSSL.
// Everything stays on this machine and goes with the test (h.t.after).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { dockerGet } from './docker.mjs';
import { waitFor } from './wait.mjs';

const openssl = (dir, ...args) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });

// `openssl ca` signs with any validity period, expired ones included.
const CA_CONF = `[ca]
default_ca = c
[c]
database = index.txt
new_certs_dir = .
serial = serial
default_md = sha256
policy = p
unique_subject = no
copy_extensions = none
[p]
commonName = supplied
`;

function newKey(dir, name) {
  openssl(dir, 'genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-out', `${name}-key.pem`);
}

function newCa(dir, name) {
  newKey(dir, name);
  openssl(dir, 'req', '-x509', '-new', '-key', `${name}-key.pem`, '-out', `${name}.pem`, '-days', '2', '-subj', `/CN=${name}`);
}

/** A certificate for cn signed by ca; kind 'server' (for 127.0.0.1) or 'client'; expired: valid only in 2020. */
function issue(dir, ca, name, { cn, kind, expired = false }) {
  newKey(dir, name);
  openssl(dir, 'req', '-new', '-key', `${name}-key.pem`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`);
  const ext = kind === 'server'
    ? 'subjectAltName = IP:127.0.0.1\nextendedKeyUsage = serverAuth\n'
    : 'extendedKeyUsage = clientAuth\n';
  fs.writeFileSync(path.join(dir, `${name}.ext`), ext);
  fs.writeFileSync(path.join(dir, 'ca.cnf'), CA_CONF);
  fs.writeFileSync(path.join(dir, 'index.txt'), '');
  fs.writeFileSync(path.join(dir, 'serial'), `${Date.now().toString(16).padStart(16, '0')}\n`);
  openssl(dir, 'ca', '-batch', '-config', 'ca.cnf', '-cert', `${ca}.pem`, '-keyfile', `${ca}-key.pem`,
    '-in', `${name}.csr`, '-out', `${name}.pem`, '-extfile', `${name}.ext`, '-notext',
    ...(expired ? ['-startdate', '20200101000000Z', '-enddate', '20200102000000Z'] : ['-days', '2']));
}

/**
 * Certificates for an engine on 127.0.0.1 and its clients, in a new
 * directory: ca, server, client (mutual TLS as it should be); otherCa and
 * otherClient (a client certificate the engine's CA never signed);
 * expiredClient and expiredServer (the right CA, valid only in 2020).
 * Each entry is { cert, key } paths (ca and otherCa: { cert }).
 */

/** Unmounts (lazily, the deepest first) every mount at or under dir. */
function unmountUnder(dir) {
  const mounts = fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\n')
    .map((l) => l.split(' ')[4]?.replace(/\\040/g, ' '))
    .filter((m) => m && (m === dir || m.startsWith(`${dir}/`)));
  for (const m of mounts.sort((a, b) => b.length - a.length)) {
    try { execFileSync('umount', ['-l', m], { stdio: 'ignore' }); } catch { /* gone meanwhile */ }
  }
}
export function makeCerts(h) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-certs-'));
  h.t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  newCa(dir, 'ca');
  newCa(dir, 'other-ca');
  issue(dir, 'ca', 'server', { cn: '127.0.0.1', kind: 'server' });
  issue(dir, 'ca', 'client', { cn: 'client', kind: 'client' });
  issue(dir, 'other-ca', 'other-client', { cn: 'client', kind: 'client' });
  issue(dir, 'ca', 'expired-client', { cn: 'client', kind: 'client', expired: true });
  issue(dir, 'ca', 'expired-server', { cn: '127.0.0.1', kind: 'server', expired: true });
  const pair = (n) => ({ cert: path.join(dir, `${n}.pem`), key: path.join(dir, `${n}-key.pem`) });
  // The docker CLI's layout (DOCKER_CERT_PATH): ca.pem, cert.pem, key.pem.
  const cliDir = path.join(dir, 'docker-cli');
  fs.mkdirSync(cliDir);
  fs.copyFileSync(path.join(dir, 'ca.pem'), path.join(cliDir, 'ca.pem'));
  fs.copyFileSync(path.join(dir, 'client.pem'), path.join(cliDir, 'cert.pem'));
  fs.copyFileSync(path.join(dir, 'client-key.pem'), path.join(cliDir, 'key.pem'));
  return {
    dir,
    cliDir,
    ca: { cert: path.join(dir, 'ca.pem') },
    otherCa: { cert: path.join(dir, 'other-ca.pem') },
    server: pair('server'),
    client: pair('client'),
    otherClient: pair('other-client'),
    expiredClient: pair('expired-client'),
    expiredServer: pair('expired-server'),
  };
}

/** A TCP port on 127.0.0.1 nobody listens on now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const ROOTLESS_USER = 'sbxrootless';

/** The user a rootless Podman runs as, made (with its subordinate ids) if missing. */
function rootlessUser() {
  try {
    execFileSync('id', [ROOTLESS_USER], { stdio: 'pipe' });
  } catch {
    execFileSync('useradd', ['--create-home', '--shell', '/usr/sbin/nologin', ROOTLESS_USER], { stdio: 'pipe' });
  }
  const uid = Number(execFileSync('id', ['-u', ROOTLESS_USER]).toString());
  return { name: ROOTLESS_USER, uid };
}

/**
 * A Podman service of the test's own on a unix socket: its own storage
 * and run roots, its log in its directory. rootless: as an unprivileged
 * user (made if missing), as a user who has Podman would run it.
 * netns (root only): the service in a network namespace of its own, with
 * its network configurations in its directory, so the networks it makes
 * (bridges, netavark's iptables rules, aardvark-dns) live there and touch
 * nothing of this machine's; make containers with networks through its
 * socket (the docker CLI with -H url), never with the podman CLI.
 * images: loaded from this machine's engine, in one archive (shared
 * layers once). Returns { dir, sock, url, netns } (netns: the
 * namespace's name under /var/run/netns, or null).
 */
export async function startPodman(h, { images = [], rootless = false, netns = false } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-pod-'));
  const ns = netns ? `sbxpod${process.pid % 100000}` : null;
  const ip = (...a) => execFileSync('ip', a, { stdio: 'pipe' });
  if (ns) {
    try { ip('netns', 'del', ns); } catch { /* none left over */ }
    ip('netns', 'add', ns);
    ip('netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up');
  }
  const user = rootless ? rootlessUser() : null;
  if (user) fs.chownSync(dir, user.uid, user.uid);
  fs.chmodSync(dir, 0o711);
  const sock = path.join(dir, 'podman.sock');
  const conf = path.join(dir, 'containers.conf');
  fs.writeFileSync(conf, [
    '[engine]',
    'cgroup_manager = "cgroupfs"',
    'events_logger = "file"',
    'runtime = "runc"',
    ...(ns ? ['[network]', `network_config_dir = "${path.join(dir, 'networks')}"`] : []),
    '',
  ].join('\n'));
  const storage = ['--root', path.join(dir, 'storage'), '--runroot', path.join(dir, 'run'),
    ...(rootless ? ['--storage-driver', 'vfs'] : [])];
  const env = { PATH: process.env.PATH, CONTAINERS_CONF: conf, HOME: rootless ? dir : process.env.HOME };
  if (rootless) {
    fs.mkdirSync(path.join(dir, 'xdg'), { mode: 0o700 });
    fs.chownSync(path.join(dir, 'xdg'), user.uid, user.uid);
    env.XDG_RUNTIME_DIR = path.join(dir, 'xdg');
  }
  // nsenter, not ip netns exec: that one also remounts /sys, where
  // Podman would find no cgroups.
  const as = (args) => (rootless ? ['runuser', ['-u', user.name, '--', 'podman', ...args]]
    : ns ? ['nsenter', [`--net=/var/run/netns/${ns}`, 'podman', ...args]] : ['podman', args]);
  const logFile = path.join(dir, 'podman.log');
  const log = fs.openSync(logFile, 'a');
  const [cmd, args] = as([...storage, 'system', 'service', '--time=0', `unix://${sock}`]);
  // A process group of its own: runuser passes a signal on to the podman
  // it started, but a rootless podman runs the service in a child (in the
  // user namespace) that would outlive them both; the group takes all.
  const proc = spawn(cmd, args, { env, stdio: ['ignore', log, log], cwd: dir, detached: true });
  fs.closeSync(log);
  const group = (sig) => {
    try {
      process.kill(-proc.pid, sig);
      return true;
    } catch {
      return false; // none of it is left
    }
  };
  h.t.after(async () => {
    if (group('SIGTERM')) {
      await waitFor(() => !group(0), { timeoutMs: 20_000, what: 'the podman service to end' }).catch(() => group('SIGKILL'));
    }
    const [c, a] = as([...storage, 'rm', '--all', '--force']);
    try { execFileSync(c, a, { env, stdio: 'pipe', cwd: dir }); } catch { /* nothing left */ }
    // A rootless podman keeps its user namespace in a pause process, which
    // stays when podman ends (each podman run as the user starts one if it
    // is gone): its pid is in the runtime directory the test gave it.
    if (rootless) {
      let pause = 0;
      try { pause = Number(fs.readFileSync(path.join(env.XDG_RUNTIME_DIR, 'libpod/tmp/pause.pid'), 'utf8')); } catch { /* never made */ }
      if (pause > 0) try { process.kill(pause, 'SIGKILL'); } catch { /* gone */ }
    }
    if (ns) try { ip('netns', 'del', ns); } catch { /* gone */ }
    fs.rmSync(dir, { recursive: true, force: true });
  });
  await waitFor(async () => proc.exitCode === null && (await dockerGet('/_ping', { socket: sock }).catch(() => ({}))).status === 200,
    { timeoutMs: 60_000, what: `the test's podman service (${logFile})` }).catch((e) => {
    throw new Error(`${e.message}\n${fs.readFileSync(logFile, 'utf8').slice(-3000)}`);
  });
  if (images.length) {
    const [c, a] = as([...storage, 'load', '-q']);
    execFileSync('sh', ['-c', `docker save ${images.join(' ')} | ${[c, ...a].join(' ')}`], { env, stdio: 'pipe', cwd: dir });
  }
  return { dir, sock, url: `unix://${sock}`, netns: ns };
}

let engines = 0;

/**
 * A dockerd of the test's own. tls: certificates from makeCerts (then it
 * also listens on 127.0.0.1:<port> and requires a client certificate of
 * its CA). images: loaded from this machine's engine. args: more dockerd
 * flags. Returns { dir, sock, port, url, netns, stop(), start(), running() }
 * (netns: the namespace's name under /var/run/netns, or null):
 * stop() ends the daemon (SIGTERM, as an administrator would: its
 * containers stop with it) and start() brings it back on the same data
 * root, port and socket.
 */
export async function startEngine(h, { tls, netns = false, images = [], args = [], tag = `t${process.pid % 1000}x${engines}` } = {}) {
  engines++;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-eng-'));
  fs.chmodSync(dir, 0o711);
  const sock = path.join(dir, 'docker.sock');
  const bridge = `sbx${tag}`.slice(0, 15);
  const subnet = 100 + ((process.pid + engines) % 150);
  const ip = (...a) => execFileSync('ip', a, { stdio: 'pipe' });
  // netns: the daemon in a network namespace of its own, where it keeps
  // its own iptables rules (its networks' DNS needs them) without
  // touching this machine's; reached through its unix socket only.
  if (netns) {
    try { ip('netns', 'del', bridge); } catch { /* none left over */ }
    ip('netns', 'add', bridge);
    ip('netns', 'exec', bridge, 'ip', 'link', 'set', 'lo', 'up');
  } else {
    try { ip('link', 'del', bridge); } catch { /* none left over */ }
    ip('link', 'add', 'name', bridge, 'type', 'bridge');
    ip('addr', 'add', `10.253.${subnet}.1/24`, 'dev', bridge);
    ip('link', 'set', bridge, 'up');
  }
  const port = tls ? await freePort() : 0;
  const flags = [
    `--data-root=${dir}/data`, `--exec-root=${dir}/exec`, `--pidfile=${dir}/docker.pid`,
    `--host=unix://${sock}`,
    ...(netns ? [] : [`--bridge=${bridge}`, '--iptables=false', '--ip6tables=false', '--ip-masq=false', '--ip-forward=false']),
    ...(tls ? [`--host=tcp://127.0.0.1:${port}`, '--tlsverify', `--tlscacert=${tls.ca.cert}`,
      `--tlscert=${tls.server.cert}`, `--tlskey=${tls.server.key}`] : []),
    ...args,
  ];
  const logFile = path.join(dir, 'dockerd.log');
  let proc = null;
  let exited = null;
  const up = async () => {
    await waitFor(async () => proc.exitCode === null && (await dockerGet('/_ping', { socket: sock }).catch(() => ({}))).status === 200,
      { timeoutMs: 60_000, what: `the test's dockerd (${logFile})` }).catch((e) => {
      throw new Error(`${e.message}\n${fs.readFileSync(logFile, 'utf8').slice(-3000)}`);
    });
  };
  const start = async () => {
    const log = fs.openSync(logFile, 'a');
    // nsenter, not ip netns exec: that one also remounts /sys, where the
    // daemon would find no cgroups.
    proc = netns ? spawn('nsenter', [`--net=/var/run/netns/${bridge}`, 'dockerd', ...flags], { stdio: ['ignore', log, log] })
      : spawn('dockerd', flags, { stdio: ['ignore', log, log] });
    fs.closeSync(log);
    exited = new Promise((resolve) => proc.on('exit', resolve));
    await up();
  };
  const stop = async () => {
    if (!proc || proc.exitCode !== null) return;
    proc.kill('SIGTERM');
    // A timer left running would keep the test file's process alive for
    // its 30 s after the daemon has gone.
    let timer;
    await Promise.race([exited, new Promise((r) => { timer = setTimeout(r, 30_000); })]);
    clearTimeout(timer);
    if (proc.exitCode === null) {
      proc.kill('SIGKILL');
      await exited;
    }
  };
  h.t.after(async () => {
    await stop();
    try { ip(...(netns ? ['netns', 'del', bridge] : ['link', 'del', bridge])); } catch { /* gone */ }
    // A mount the daemon left under its data (a container's shm, an
    // overlay it had not unmounted when it exited) makes rmdir EBUSY.
    unmountUnder(dir);
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  });
  await start();
  for (const image of images)
    execFileSync('sh', ['-c', `docker save ${image} | docker -H unix://${sock} load -q`], { stdio: 'pipe' });
  return {
    dir,
    sock,
    port,
    url: tls ? `tcp://127.0.0.1:${port}` : `unix://${sock}`,
    netns: netns ? bridge : null,
    start,
    stop,
    running: () => proc?.exitCode === null,
  };
}
