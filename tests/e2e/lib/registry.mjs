// Local package registries for the package tests (docs/packages.md): a pip
// "simple" index of wheels and an npm registry of packuments and tarballs,
// built here, served by a container on the test's install network under
// the names given. Nothing leaves this machine.
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export function docker(...args) {
  return execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

// A static file server; a path under /slow/ is answered after 30 s (a
// registry that hangs).
const SERVER = `
import http.server, os, sys, time
class H(http.server.SimpleHTTPRequestHandler):
    def do_GET(self):
        if self.path.startswith("/slow/"):
            time.sleep(30)
            self.path = self.path[5:]
        return super().do_GET()
    def log_message(self, *a):
        pass
os.chdir("/srv")
server = http.server.ThreadingHTTPServer(("", 8080), H)
if len(sys.argv) > 1:
    # https, with the certificate and key in that directory
    import ssl
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(sys.argv[1] + "/server.pem", sys.argv[1] + "/server.key")
    server.socket = ctx.wrap_socket(server.socket, server_side=True)
print("listening", flush=True)
server.serve_forever()
`;

/**
 * Waits until the container's log (stdout and stderr) matches re, up to
 * 60 s: for a server that says when it accepts connections. host: the
 * engine the container is on (default this machine's).
 */
export function waitLogged(id, re, { host } = {}) {
  const end = Date.now() + 60_000;
  for (;;) {
    const r = spawnSync('docker', [...(host ? ['-H', host] : []), 'logs', id], { encoding: 'utf8' });
    const log = `${r.stdout ?? ''}${r.stderr ?? ''}`;
    if (r.status === 0 && re.test(log)) return;
    if (Date.now() > end) throw new Error(`${id.slice(0, 12)} never logged ${re} in 60 s: ${log.slice(-2000)}`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
  }
}

/**
 * Serves dir on network as http://<alias>:8080/ for every alias, once it
 * listens (https with tls: testCertificates()'s, for those names). The
 * network must exist. Returns the container id (removed with the network
 * by the caller's clean-up).
 */
export function serveRegistry(network, aliases, dir, { tls } = {}) {
  fs.chmodSync(dir, 0o755);
  const args = ['run', '-d', '--rm', '--network', network];
  for (const a of aliases) args.push('--network-alias', a);
  if (tls) args.push('-v', `${tls.dir}:/tls:ro`);
  args.push('--read-only', '--user', '1000', '-v', `${dir}:/srv:ro`, '--entrypoint', 'python3',
    'mcp-sandbox/python:latest', '-c', SERVER, ...(tls ? ['/tls'] : []));
  const id = docker(...args);
  waitLogged(id, /^listening$/m);
  return id;
}

/**
 * A certificate authority of the test's own and a server certificate it
 * signed for names, in dir (made): ca.pem, server.pem, server.key
 * (readable by the registry's user).
 */
export function testCertificates(dir, names) {
  fs.mkdirSync(dir, { recursive: true });
  const ssl = (...a) => execFileSync('openssl', a, { cwd: dir, stdio: 'pipe' });
  ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=sbx test CA', '-keyout', 'ca.key', '-out', 'ca.pem');
  ssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${names[0]}`, '-keyout', 'server.key', '-out', 'server.csr');
  fs.writeFileSync(path.join(dir, 'ext.cnf'), `subjectAltName=${names.map((n) => `DNS:${n}`).join(',')}\n`);
  ssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '1', '-extfile', 'ext.cnf', '-out', 'server.pem');
  fs.chmodSync(dir, 0o755);
  for (const f of ['server.pem', 'server.key', 'ca.pem']) fs.chmodSync(path.join(dir, f), 0o644);
  return { dir, ca: path.join(dir, 'ca.pem') };
}

// A listener: "500" answers every request with 500 Internal Server Error
// (an upstream proxy that refuses), "silent" accepts connections and never
// answers. Each connection is logged as "hit".
const LISTENER = `
import socket, sys
mode, port = sys.argv[1], int(sys.argv[2])
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", port))
s.listen(64)
print("listening", flush=True)
held = []
while True:
    c, _ = s.accept()
    print("hit", flush=True)
    if mode == "500":
        c.recv(65536)
        c.sendall(b"HTTP/1.1 500 Internal Server Error\\r\\nContent-Length: 0\\r\\nConnection: close\\r\\n\\r\\n")
        c.close()
    else:
        held.append(c)
`;

/**
 * A listener of mode "500" or "silent" on network as <alias>:8080 for
 * every alias, once it listens (removed with the network by the caller's
 * clean-up). Returns the container id.
 */
export function serveListener(network, aliases, mode) {
  const args = ['run', '-d', '--rm', '--network', network];
  for (const a of aliases) args.push('--network-alias', a);
  const id = docker(...args, '--read-only', '--user', '1000', '--entrypoint', 'python3', 'mcp-sandbox/python:latest', '-c', LISTENER, mode, '8080');
  waitLogged(id, /^listening$/m);
  return id;
}

/** How many connections a listener has had. */
export function listenerHits(id) {
  return (docker('logs', id).match(/^hit$/gm) ?? []).length;
}

/** A wheel of a pure-python package (with payload random bytes in it), and its index page. */
export function addWheel(dir, name, version, body, payload = 0) {
  const py = `
import base64, hashlib, os, sys, zipfile
name, version, body, out, payload = sys.argv[1:6]
files = {f"{name}/__init__.py": body.encode(),
         f"{name}-{version}.dist-info/METADATA": f"Metadata-Version: 2.1\\nName: {name}\\nVersion: {version}\\n".encode(),
         f"{name}-{version}.dist-info/WHEEL": b"Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"}
if int(payload):
    files[f"{name}/payload.bin"] = os.urandom(int(payload))
record = []
for p, data in files.items():
    h = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    record.append(f"{p},sha256={h},{len(data)}")
record.append(f"{name}-{version}.dist-info/RECORD,,")
files[f"{name}-{version}.dist-info/RECORD"] = ("\\n".join(record) + "\\n").encode()
with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
    for p, data in files.items():
        z.writestr(p, data)
`;
  const file = `${name}-${version}-py3-none-any.whl`;
  fs.mkdirSync(path.join(dir, 'files'), { recursive: true });
  execFileSync('python3', ['-c', py, name, version, body, path.join(dir, 'files', file), String(payload)]);
  fs.mkdirSync(path.join(dir, 'simple', name), { recursive: true });
  fs.writeFileSync(path.join(dir, 'simple', name, 'index.html'), `<html><body><a href="../../files/${file}">${file}</a></body></html>\n`);
}

/**
 * An npm package: its tarball in dir/tarballs, and its packument at
 * dir/<name> pointing at tarballBase + the tarball's name; scripts are its
 * package.json's (a postinstall...).
 */
export function addNpmPackage(dir, name, version, files, tarballBase, scripts) {
  const work = fs.mkdtempSync(path.join(dir, '.build-'));
  const pkgDir = path.join(work, 'package');
  fs.mkdirSync(pkgDir);
  const manifest = { name, version, main: 'index.js', ...(scripts ? { scripts } : {}) };
  fs.writeFileSync(path.join(pkgDir, 'package.json'), JSON.stringify(manifest));
  for (const [f, text] of Object.entries(files)) fs.writeFileSync(path.join(pkgDir, f), text);
  const tgz = `${name}-${version}.tgz`;
  fs.mkdirSync(path.join(dir, 'tarballs'), { recursive: true });
  execFileSync('tar', ['czf', path.join(dir, 'tarballs', tgz), '-C', work, 'package']);
  fs.rmSync(work, { recursive: true, force: true });
  const data = fs.readFileSync(path.join(dir, 'tarballs', tgz));
  const integrity = `sha512-${crypto.createHash('sha512').update(data).digest('base64')}`;
  fs.writeFileSync(path.join(dir, name), JSON.stringify({
    name,
    'dist-tags': { latest: version },
    versions: { [version]: { ...manifest, dist: { tarball: `${tarballBase}${tgz}`, integrity } } },
  }));
}

/**
 * A Go module in a module proxy directory (GOPROXY protocol: the version
 * list, .info, .mod and .zip of each version under <module>/@v/).
 */
export function addGoModule(dir, module, version, files) {
  const v = path.join(dir, module, '@v');
  fs.mkdirSync(v, { recursive: true });
  const gomod = `module ${module}\n\ngo 1.19\n`;
  fs.appendFileSync(path.join(v, 'list'), `${version}\n`);
  fs.writeFileSync(path.join(v, `${version}.info`), JSON.stringify({ Version: version, Time: '2026-01-01T00:00:00Z' }));
  fs.writeFileSync(path.join(v, `${version}.mod`), gomod);
  const py = `
import json, sys, zipfile
out, prefix, files = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
with zipfile.ZipFile(out, "w") as z:
    for name, text in files.items():
        z.writestr(prefix + name, text)
`;
  execFileSync('python3', ['-c', py, path.join(v, `${version}.zip`), `${module}@${version}/`, JSON.stringify({ 'go.mod': gomod, ...files })]);
}

/**
 * A crate in a Cargo sparse registry served from dir: config.json (its
 * download URL under base), the crate's index file and its .crate.
 * deps: {name: requirement} of other crates of the registry; files: more
 * files at the crate's root (a build.rs...).
 */
export function addCrate(dir, base, name, version, librs, deps = {}, files = {}) {
  const idx = path.join(dir, 'index');
  fs.mkdirSync(idx, { recursive: true });
  fs.writeFileSync(path.join(idx, 'config.json'), JSON.stringify({ dl: `${base}crates/{crate}/{version}/download` }));
  const work = fs.mkdtempSync(path.join(dir, '.build-'));
  const root = path.join(work, `${name}-${version}`);
  fs.mkdirSync(path.join(root, 'src'), { recursive: true });
  const depLines = Object.entries(deps).map(([d, req]) => `${d} = "${req}"\n`).join('');
  fs.writeFileSync(path.join(root, 'Cargo.toml'), `[package]\nname = "${name}"\nversion = "${version}"\nedition = "2021"\n\n[dependencies]\n${depLines}`);
  fs.writeFileSync(path.join(root, 'src', 'lib.rs'), librs);
  for (const [f, text] of Object.entries(files)) fs.writeFileSync(path.join(root, f), text);
  const out = path.join(dir, 'crates', name, version);
  fs.mkdirSync(out, { recursive: true });
  execFileSync('tar', ['czf', path.join(out, 'download'), '-C', work, `${name}-${version}`]);
  fs.rmSync(work, { recursive: true, force: true });
  const cksum = crypto.createHash('sha256').update(fs.readFileSync(path.join(out, 'download'))).digest('hex');
  const n = name.toLowerCase();
  const rel = n.length === 1 ? ['1', n] : n.length === 2 ? ['2', n] : n.length === 3 ? ['3', n[0], n] : [n.slice(0, 2), n.slice(2, 4), n];
  fs.mkdirSync(path.join(idx, ...rel.slice(0, -1)), { recursive: true });
  const entry = {
    name, vers: version, cksum, features: {}, yanked: false,
    deps: Object.entries(deps).map(([d, req]) => ({ name: d, req, features: [], optional: false, default_features: true, target: null, kind: 'normal' })),
  };
  fs.appendFileSync(path.join(idx, ...rel), `${JSON.stringify(entry)}\n`);
}

/**
 * Install-time code that ignores the proxy (docs/packages.md, "no route
 * but the proxy"): an npm package whose postinstall and a python sdist
 * whose build backend each open a TCP connection to every [host, port] of
 * targets, by address or by name, and write what happened, one
 * "host:port outcome" a target, to report.json in the installed package
 * (an outcome is "connected" or the error). The sdist builds without the
 * index: its backend is in the tree and needs nothing (requires = []).
 */
export function addProbePackages(dir, targets, { npmName = 'sbx-probe', pyName = 'sbxprobe', tarballBase }) {
  const probeJs = `const net = require('net');
const targets = ${JSON.stringify(targets)};
Promise.all(targets.map(([host, port]) => new Promise((done) => {
  const s = net.connect({ host, port, timeout: 3000 });
  const end = (what) => { s.destroy(); done(host + ':' + port + ' ' + what); };
  s.on('connect', () => end('connected'));
  s.on('timeout', () => end('timeout'));
  s.on('error', (e) => end(e.code || e.message));
}))).then((out) => require('fs').writeFileSync('report.json', JSON.stringify(out)));
`;
  addNpmPackage(dir, npmName, '1.0.0', { 'index.js': 'module.exports = 1;\n', 'probe.js': probeJs }, tarballBase, { postinstall: 'node probe.js' });

  const backend = `import base64, hashlib, json, socket, zipfile
TARGETS = ${JSON.stringify(targets)}
NAME, VERSION = ${JSON.stringify(pyName)}, "1.0"

def _probe():
    out = []
    for host, port in TARGETS:
        try:
            socket.create_connection((host, port), timeout=3).close()
            out.append(f"{host}:{port} connected")
        except OSError as e:
            out.append(f"{host}:{port} {type(e).__name__}: {e}")
    return out

def get_requires_for_build_wheel(config_settings=None):
    return []

def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    di = f"{NAME}-{VERSION}.dist-info"
    files = {f"{NAME}/__init__.py": b"",
             f"{NAME}/report.json": json.dumps(_probe()).encode(),
             f"{di}/METADATA": f"Metadata-Version: 2.1\\nName: {NAME}\\nVersion: {VERSION}\\n".encode(),
             f"{di}/WHEEL": b"Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"}
    record = [f"{p},sha256={base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b'=').decode()},{len(d)}" for p, d in files.items()]
    files[f"{di}/RECORD"] = ("\\n".join(record + [f"{di}/RECORD,,"]) + "\\n").encode()
    name = f"{NAME}-{VERSION}-py3-none-any.whl"
    with zipfile.ZipFile(f"{wheel_directory}/{name}", "w") as z:
        for p, d in files.items():
            z.writestr(p, d)
    return name
`;
  const work = fs.mkdtempSync(path.join(dir, '.build-'));
  const root = path.join(work, `${pyName}-1.0`);
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, 'pyproject.toml'), '[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n');
  fs.writeFileSync(path.join(root, 'backend.py'), backend);
  fs.writeFileSync(path.join(root, 'PKG-INFO'), `Metadata-Version: 2.1\nName: ${pyName}\nVersion: 1.0\n`);
  const file = `${pyName}-1.0.tar.gz`;
  fs.mkdirSync(path.join(dir, 'files'), { recursive: true });
  execFileSync('tar', ['czf', path.join(dir, 'files', file), '-C', work, `${pyName}-1.0`]);
  fs.rmSync(work, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'simple', pyName), { recursive: true });
  fs.writeFileSync(path.join(dir, 'simple', pyName, 'index.html'), `<html><body><a href="../../files/${file}">${file}</a></body></html>\n`);
}
