// Packages (docs/packages.md): sandbox_install and sandbox_execute's
// `packages`, installed in a container of their own behind the egress
// proxy, kept in the cache volume under the set's key, mounted read-only
// into sandboxes that still have no network. npm goes to the real registry
// (the one the image's npm is configured with, reached through the proxy
// with the host's CA bundle); pip goes to an index of wheels this test
// builds and serves from a container on the install network.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { e2e, runResult, toolError } from './lib/server.mjs';
import { createSession, sessionExecCall, sessionResult } from './lib/sessions.mjs';

function docker(...args) {
  return execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** A volume and an internal network of the test's own, removed at the end. */
function packageEnv(h, extra = {}) {
  const id = crypto.randomBytes(4).toString('hex');
  const volume = `sbx-test-pkgs-${id}`;
  const network = `sbx-test-pkgnet-${id}`;
  const state = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-pkg-state-'));
  h.t.after(() => {
    // The servers are closed by now; their containers are gone.
    for (const c of docker('ps', '-aq', '--filter', `network=${network}`).split('\n').filter(Boolean)) docker('rm', '-f', c);
    try { docker('network', 'rm', network); } catch { /* never made */ }
    try { docker('volume', 'rm', '-f', volume); } catch { /* never made */ }
    fs.rmSync(state, { recursive: true, force: true });
  });
  return {
    volume,
    network,
    env: {
      SANDBOX_PACKAGES_VOLUME: volume,
      SANDBOX_PACKAGES_NETWORK: network,
      SANDBOX_SESSIONS_STATE_DIR: state,
      SANDBOX_POOL_WARM_AT_START: '',
      ...extra,
    },
  };
}

async function install(s, args, { requestTimeoutMs = 240_000 } = {}) {
  return s.client.callTool({ name: 'sandbox_install', arguments: args }, undefined, { timeout: requestTimeoutMs });
}

async function installOk(s, args, opts) {
  const r = await install(s, args, opts);
  assert.equal(r.isError ?? false, false, r.content?.[0]?.text);
  return JSON.parse(r.content[0].text);
}

e2e('packages: npm from the real registry through the proxy, cached, and a sandbox that uses it has no network', { timeoutMs: 600_000 }, async (h) => {
  const p = packageEnv(h);
  const s = await h.start({ env: p.env });

  const first = await installOk(s, { language: 'javascript', packages: ['is-odd@3.0.1'] });
  assert.equal(first.cached, false, 'a first install downloads');
  assert.match(first.key, /^[0-9a-f]{64}$/);
  const odd = first.packages.find((x) => x.name === 'is-odd');
  assert.deepEqual([odd.version, odd.requested], ['3.0.1', true]);
  assert.ok(odd.bytes > 0, 'its size is counted');
  assert.ok(first.packages.some((x) => x.name === 'is-number' && !x.requested), 'its dependency is listed');
  assert.ok(first.bytes >= odd.bytes);
  assert.match(first.installer, /^npm \d+\./);
  // The proxy logged what the install reached: the registry, allowed.
  assert.ok(first.connections.length > 0, 'the proxy saw the install');
  for (const c of first.connections) assert.deepEqual([c.method, c.port, c.allowed], ['CONNECT', 443, true]);
  assert.ok(first.connections.some((c) => c.bytesOut > 1000), 'bytes came back through the proxy');
  // No install container or proxy is left.
  assert.equal(docker('ps', '-aq', '--filter', `network=${p.network}`), '');

  // The same set again: from the cache, no container, no download.
  const again = await installOk(s, { language: 'js', packages: ['is-odd@3.0.1'] });
  assert.deepEqual([again.cached, again.key, again.connections], [true, first.key, undefined]);

  // A one-off run with the set: ES import and require() both find it.
  const run = runResult(await s.call({
    language: 'javascript',
    packages: ['is-odd@3.0.1'],
    code: "import isOdd from 'is-odd';\nconst n = require('is-number');\nconsole.log(isOdd(3), n(4));",
  }, { requestTimeoutMs: 120_000 }));
  assert.equal(run.stdout, 'true true\n', run.stderr);
  assert.equal(run.packages.cached, true);
  assert.equal(run.packages.key, first.key);

  // Still no network in the sandbox: only the loopback interface, and the
  // packages are read-only.
  const net = runResult(await s.call({
    language: 'javascript',
    packages: ['is-odd@3.0.1'],
    code: "import os from 'node:os'; import fs from 'node:fs';\nconsole.log(Object.keys(os.networkInterfaces()).join(','));\ntry { fs.writeFileSync(require.resolve('is-odd'), 'x'); console.log('written'); } catch (e) { console.log(e.code); }",
  }, { requestTimeoutMs: 120_000 }));
  assert.equal(net.stdout, 'lo\nEROFS\n', net.stderr);
  // Without packages the set is not there.
  const none = runResult(await s.call({ language: 'javascript', code: "import('is-odd').then(() => console.log('found'), (e) => console.log(e.code));" }));
  assert.equal(none.stdout, 'ERR_MODULE_NOT_FOUND\n');

  // A session created with the set: its interpreter imports it, by ES
  // import and require(), from the cache (nothing downloaded).
  const created = await s.client.callTool({ name: 'sandbox_session', arguments: { action: 'create', language: 'javascript', name: 'jspkgs', packages: ['is-odd@3.0.1'] } }, undefined, { timeout: 240_000 });
  assert.equal(created.isError ?? false, false, created.content?.[0]?.text);
  assert.equal(created.structuredContent.installed.cached, true);
  assert.deepEqual(created.structuredContent.session.packages, [first.key]);
  const cell = sessionResult(await sessionExecCall(s, 'jspkgs', "import isOdd from 'is-odd';\nconst n = require('is-number');\nconsole.log(isOdd(5), n(1));"), 'jspkgs');
  assert.equal(cell.stdout, 'true true\n', cell.stderr);
});

/** A wheel of a pure-python package, built with the host's python3. */
function buildWheel(dir, name, version, body) {
  const py = `
import base64, hashlib, sys, zipfile
name, version, body, out = sys.argv[1:5]
files = {f"{name}/__init__.py": body.encode(),
         f"{name}-{version}.dist-info/METADATA": f"Metadata-Version: 2.1\\nName: {name}\\nVersion: {version}\\n".encode(),
         f"{name}-{version}.dist-info/WHEEL": b"Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"}
record = []
for p, data in files.items():
    h = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    record.append(f"{p},sha256={h},{len(data)}")
record.append(f"{name}-{version}.dist-info/RECORD,,")
files[f"{name}-{version}.dist-info/RECORD"] = ("\\n".join(record) + "\\n").encode()
with zipfile.ZipFile(out, "w") as z:
    for p, data in files.items():
        z.writestr(p, data)
`;
  const file = `${name}-${version}-py3-none-any.whl`;
  fs.mkdirSync(path.join(dir, 'files'), { recursive: true });
  execFileSync('python3', ['-c', py, name, version, body, path.join(dir, 'files', file)]);
  fs.mkdirSync(path.join(dir, 'simple', name), { recursive: true });
  fs.writeFileSync(path.join(dir, 'simple', name, 'index.html'), `<html><body><a href="../../files/${file}">${file}</a></body></html>\n`);
}

e2e('packages: pip from a local index on the install network; bad specs refused before anything runs', { timeoutMs: 600_000 }, async (h) => {
  const index = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-pypi-'));
  h.t.after(() => fs.rmSync(index, { recursive: true, force: true }));
  buildWheel(index, 'sbxdemo', '1.0', "def hello():\n    return 'hello from sbxdemo'\n");
  fs.chmodSync(index, 0o755);
  const p = packageEnv(h, { SANDBOX_PYTHON_REGISTRY: 'http://pypi-local:8080/simple/' });
  // The network first (internal, as the server wants it), then the index.
  docker('network', 'create', '--internal', p.network);
  docker('run', '-d', '--rm', '--network', p.network, '--network-alias', 'pypi-local', '--read-only', '--user', '1000',
    '-v', `${index}:/srv:ro`, '--entrypoint', 'python3', 'mcp-sandbox/python:latest', '-m', 'http.server', '8080', '--directory', '/srv');
  const s = await h.start({ env: p.env });

  const first = await installOk(s, { language: 'python', packages: ['SBXDemo==1.0'] });
  assert.equal(first.cached, false);
  assert.deepEqual(first.specs, ['sbxdemo==1.0'], 'the spec in its normal form');
  assert.deepEqual(first.packages.map((x) => [x.name, x.version, x.requested]), [['sbxdemo', '1.0', true]]);
  assert.ok(first.packages[0].bytes > 0);
  assert.match(first.installer, /^pip \d+\./);
  assert.ok(first.connections.some((c) => c.host === 'pypi-local' && c.port === 8080 && c.allowed), JSON.stringify(first.connections));
  assert.ok(first.connections.every((c) => c.allowed));

  const run = runResult(await s.call({ language: 'python', packages: ['sbxdemo==1.0'], code: 'import sbxdemo\nprint(sbxdemo.hello())' }, { requestTimeoutMs: 120_000 }));
  assert.equal(run.stdout, 'hello from sbxdemo\n', run.stderr);
  assert.equal(run.packages.cached, true);

  // Into a running session: its interpreter, with its variables, imports
  // the set at the next call, without a restart.
  await createSession(s, 'python', { name: 'pypkgs' });
  assert.equal(sessionResult(await sessionExecCall(s, 'pypkgs', 'x = 41\ntry:\n    import sbxdemo\nexcept ImportError:\n    print("not yet")'), 'pypkgs').stdout, 'not yet\n');
  const into = await installOk(s, { session: 'pypkgs', packages: ['sbxdemo==1.0'] });
  assert.deepEqual([into.session, into.language, into.cached, into.key], ['pypkgs', 'python', true, first.key]);
  const after = sessionResult(await sessionExecCall(s, 'pypkgs', 'import sbxdemo\nprint(x + 1, sbxdemo.hello())'), 'pypkgs');
  assert.equal(after.stdout, '42 hello from sbxdemo\n', after.stderr);
  assert.equal(after.stateKept, true);
  // A session of another language is refused; one that does not exist too.
  assert.equal(toolError(await install(s, { session: 'pypkgs', language: 'javascript', packages: ['x'] })).code, 'language_mismatch');
  assert.equal(toolError(await install(s, { session: 'nosuch', packages: ['x'] })).code, 'session_not_found');

  // A package the index does not have: the installer's words come back.
  const missing = toolError(await install(s, { language: 'python', packages: ['nosuchpkg-sbx'] }));
  assert.equal(missing.code, 'install_failed');
  assert.match(missing.message, /nosuchpkg-sbx/);

  // Refused before anything runs: URLs, paths, VCS, options, whitespace,
  // shell metacharacters; and a language without an installer.
  const bad = [
    ['python', 'requests; rm -rf /'], ['python', '--index-url=http://x'], ['python', 'git+https://x/y'],
    ['python', './local'], ['python', 'a b'], ['python', 'pkg @ https://x/p.whl'], ['javascript', 'github:x/y'],
    ['javascript', 'file:../x'], ['javascript', 'x@$(id)'], ['javascript', 'https://x/y.tgz'],
  ];
  for (const [language, spec] of bad) {
    const e = toolError(await install(s, { language, packages: [spec] }));
    assert.equal(e.code, 'invalid_package', `${spec}: ${e.message}`);
  }
  assert.equal(toolError(await install(s, { language: 'bash', packages: ['curl'] })).code, 'no_installer');
});

e2e('packages: [packages] network = none turns installs off with a clear error', { timeoutMs: 60_000 }, async (h) => {
  const s = await h.start({ env: { SANDBOX_PACKAGES_NETWORK: 'none', SANDBOX_POOL_WARM_AT_START: '' } });
  const e = toolError(await install(s, { language: 'python', packages: ['requests'] }));
  assert.equal(e.code, 'installs_disabled');
  const x = toolError(await s.call({ language: 'python', packages: ['requests'], code: 'print(1)' }));
  assert.equal(x.code, 'installs_disabled');
});
