// Packages at their edges (docs/packages.md), beside packages.test.mjs
// (which has npm, pip, the cache and the CLI): what the egress proxy
// refuses, the time and disk budgets of an install, an upstream proxy the
// egress proxy chains to, registries that cannot be reached (named at
// once, with what to set, and not tried again for a while), and the
// installers whose registries this machine cannot reach, Go's module proxy
// and Cargo's sparse registry, each served by the test from a container
// on the package tests' own install network.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { e2e, runResult, toolError } from './lib/server.mjs';
import { install, installOk, packageEnv, volumeKeys } from './lib/packages.mjs';
import { sessionExecCall, sessionResult } from './lib/sessions.mjs';
import { addCrate, addGoModule, addNpmPackage, addProbePackages, addWheel, docker, listenerHits, serveListener, serveRegistry, testCertificates, waitLogged } from './lib/registry.mjs';

e2e('packages: faults: a destination off the list is refused by the proxy and logged; time and disk budgets; nothing half-made stays', { timeoutMs: 600_000 }, async (h) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-reg-'));
  h.t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  // npm: one package whose tarball is on the registry, one whose tarball
  // is on another host (a container of this test, not on the list).
  addNpmPackage(dir, 'sbx-good', '1.0.0', { 'index.js': 'module.exports = 7;\n' }, 'http://npm-local:8080/tarballs/');
  addNpmPackage(dir, 'sbx-elsewhere', '1.0.0', { 'index.js': 'module.exports = 8;\n' }, 'http://npm-other:8080/tarballs/');
  // One whose install script calls another host (through the proxy, as
  // a script's fetch() does in the install container).
  addNpmPackage(dir, 'sbx-phone-home', '1.0.0', { 'index.js': 'module.exports = 9;\n' }, 'http://npm-local:8080/tarballs/', {
    postinstall: "node -e \"fetch('http://npm-other:8080/collect').then((r) => process.exit(r.ok ? 0 : 1), (e) => { console.error('blocked:', e.cause?.message ?? e.message); process.exit(1); })\"",
  });
  // One whose install script tries to plant a set in the cache under a
  // key another request would ask for.
  addNpmPackage(dir, 'sbx-poison', '1.0.0', { 'index.js': 'module.exports = 0;\n' }, 'http://npm-local:8080/tarballs/', {
    postinstall: `node -e "require('fs').mkdirSync('/opt/sbx/pkgs/${'a'.repeat(64)}')"`,
  });
  addWheel(dir, 'big', '1.0', 'X = 1\n', 24_000_000);
  addWheel(dir, 'small', '1.0', 'Y = 1\n');
  const p = packageEnv(h, {
    SANDBOX_JAVASCRIPT_REGISTRY: 'http://npm-local:8080/',
    SANDBOX_PYTHON_REGISTRY: 'http://pypi-local:8080/simple/',
    SANDBOX_PACKAGES_DISK_MB: '16',
  });
  docker('network', 'create', '--internal', p.network);
  const registry = serveRegistry(p.network, ['npm-local', 'npm-other', 'pypi-local'], dir);
  const s = await h.start({ env: p.env });

  const good = await installOk(s, { language: 'javascript', packages: ['sbx-good@1.0.0'] });
  assert.deepEqual(good.packages.map((x) => [x.name, x.version]), [['sbx-good', '1.0.0']]);
  assert.ok(good.connections.every((c) => c.host === 'npm-local' && c.allowed));
  const run = runResult(await s.call({ language: 'javascript', packages: ['sbx-good@1.0.0'], code: "import g from 'sbx-good'; console.log(g);" }, { requestTimeoutMs: 120_000 }));
  assert.equal(run.stdout, '7\n', run.stderr);

  // No route but the proxy: an npm postinstall and a python build hook
  // that ignore it try this test's own addresses directly: the registry by
  // name and address, and the install network's gateway, where a listener
  // of this test (on that address only) logs what reaches it. Nothing
  // connects; the installs, through the proxy, succeed.
  const gateway = JSON.parse(docker('network', 'inspect', p.network))[0].IPAM.Config[0].Gateway;
  const reached = [];
  const listener = net.createServer((c) => { reached.push(c.remoteAddress); c.destroy(); });
  await new Promise((resolve, reject) => listener.once('error', reject).listen(0, gateway, resolve));
  h.t.after(() => listener.close());
  const registryIp = JSON.parse(docker('inspect', registry))[0].NetworkSettings.Networks[p.network].IPAddress;
  const targets = [[gateway, listener.address().port], ['npm-other', 8080], [registryIp, 8080]];
  addProbePackages(dir, targets, { tarballBase: 'http://npm-local:8080/tarballs/' });
  const probes = [];
  for (const [language, spec, code] of [
    ['javascript', 'sbx-probe@1.0.0', "console.log(JSON.stringify(require('sbx-probe/report.json')))"],
    ['python', 'sbxprobe==1.0', "import os, sbxprobe\nprint(open(os.path.join(sbxprobe.__path__[0], 'report.json')).read())"],
  ]) {
    probes.push((await installOk(s, { language, packages: [spec] })).key);
    const r = runResult(await s.call({ language, packages: [spec], code }, { requestTimeoutMs: 120_000 }));
    const outcomes = JSON.parse(r.stdout || '[]');
    assert.equal(outcomes.length, targets.length, `${language}: ${r.stdout} ${r.stderr}`);
    assert.deepEqual(outcomes.filter((o) => / connected$/.test(o)), [], `${language}'s install-time code reached: ${r.stdout}`);
  }
  assert.deepEqual(reached, [], 'the listener on the gateway saw no connection');

  const off = toolError(await install(s, { language: 'javascript', packages: ['sbx-elsewhere@1.0.0'] }));
  assert.equal(off.code, 'install_failed');
  assert.match(off.message, /the egress proxy refused: npm-other:8080/);

  const home = toolError(await install(s, { language: 'javascript', packages: ['sbx-phone-home@1.0.0'] }));
  assert.equal(home.code, 'install_failed');
  assert.match(home.message, /blocked:/, 'the script\'s request failed');
  assert.match(home.message, /the egress proxy refused: npm-other:8080/);
  // The audit log counts both among the violations, and nothing else of
  // this server so far: the installs that went through the proxy.
  const audited = await s.client.callTool({ name: 'sandbox_security', arguments: { action: 'violations' } });
  assert.equal(audited.isError ?? false, false, audited.content?.[0]?.text);
  assert.deepEqual(JSON.parse(audited.content[0].text).events.map((e) => [e.tool, e.outcome, e.violation]),
    [['sandbox_install', 'install_failed', true], ['sandbox_install', 'install_failed', true]]);

  // The cache is read-only to an install: only the store step (root, a
  // container of its own) writes there.
  const poison = toolError(await install(s, { language: 'javascript', packages: ['sbx-poison@1.0.0'] }));
  assert.equal(poison.code, 'install_failed');
  assert.match(poison.message, /EROFS|read-only file system/);

  // Over the disk budget (a 24 MB wheel into 16 MB).
  const disk = toolError(await install(s, { language: 'python', packages: ['big==1.0'] }));
  assert.equal(disk.code, 'install_failed');
  // A file over the budget meets RLIMIT_FSIZE, files that add up to it
  // the full /work: either way the installer says so.
  assert.match(disk.message, /No space left on device|File too large/);

  // Over the time budget: a registry that does not answer.
  const slow = await h.start({ env: { ...p.env, SANDBOX_PYTHON_REGISTRY: 'http://pypi-local:8080/slow/simple/', SANDBOX_PACKAGES_TIMEOUT_MS: '3000' } });
  const late = toolError(await install(slow, { language: 'python', packages: ['small==1.0'] }));
  assert.equal(late.code, 'install_failed');
  assert.match(late.message, /longer than its 3000 ms budget/);

  // Only the finished set is in the volume: no key, no temporary
  // directory of the failed ones.
  assert.deepEqual((await volumeKeys(s)).sort(), [good.key, ...probes].sort());
  assert.equal(docker('ps', '-aq', '--filter', 'label=org.mcp-sandbox.role=install', '--filter', `network=${p.network}`), '');
  // Nothing of an install stays: install containers, proxies, forwarders,
  // their volumes.
  for (const srv of [s, slow]) {
    const mine = `label=org.mcp-sandbox.owner-pid=${srv.pid}`;
    assert.equal(docker('ps', '-aq', '--filter', mine, '--filter', 'label=org.mcp-sandbox.role'), '');
    assert.equal(docker('volume', 'ls', '-q', '--filter', mine), '');
  }
});

e2e('packages: Go modules from a local module proxy; a go program builds against them offline', { timeoutMs: 300_000 }, async (h) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-goproxy-'));
  h.t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  addGoModule(dir, 'example.test/greet', 'v1.2.0', { 'greet.go': 'package greet\n\nfunc Hello(n string) string { return "hello, " + n }\n' });
  const p = packageEnv(h, { SANDBOX_GO_REGISTRY: 'http://goproxy-local:8080/' });
  docker('network', 'create', '--internal', p.network);
  serveRegistry(p.network, ['goproxy-local'], dir);
  const s = await h.start({ env: p.env });

  const set = await installOk(s, { language: 'go', packages: ['example.test/greet@v1.2.0'] });
  assert.equal(set.cached, false);
  assert.deepEqual(set.packages.map((x) => [x.name, x.version, x.requested]), [['example.test/greet', 'v1.2.0', true]]);
  assert.ok(set.packages[0].bytes > 0);
  assert.match(set.installer, /^go 1\./);
  assert.ok(set.connections.length > 0 && set.connections.every((c) => c.host === 'goproxy-local' && c.allowed));

  const code = 'package main\n\nimport (\n\t"fmt"\n\n\t"example.test/greet"\n)\n\nfunc main() { fmt.Println(greet.Hello("go")) }\n';
  // The build compiles what the program imports from the standard library
  // too, which on a busy 2-core machine comes near the default 30 s: how
  // long it takes is not what this test is about.
  const BUILD = 120_000;
  const run = runResult(await s.call({ language: 'go', packages: ['example.test/greet@v1.2.0'], code, timeout: BUILD }, { requestTimeoutMs: 180_000 }));
  assert.equal(run.stdout, 'hello, go\n', run.stderr);
  assert.equal(run.packages.cached, true);
  // A go session builds against its set too.
  const created = await s.client.callTool({ name: 'sandbox_session', arguments: { action: 'create', language: 'go', name: 'gopkgs', packages: ['example.test/greet@v1.2.0'] } }, undefined, { timeout: 120_000 });
  assert.equal(created.isError ?? false, false, created.content?.[0]?.text);
  const cell = sessionResult(await sessionExecCall(s, 'gopkgs', code, { timeout: BUILD, requestTimeoutMs: 180_000 }), 'gopkgs');
  assert.equal(cell.stdout, 'hello, go\n', cell.stderr);
  // A version the proxy does not have; a branch name is refused before.
  assert.equal(toolError(await install(s, { language: 'go', packages: ['example.test/greet@v9.9.9'] })).code, 'install_failed');
  assert.equal(toolError(await install(s, { language: 'go', packages: ['example.test/greet@main'] })).code, 'invalid_package');
});

e2e('packages: the egress proxy chains to an upstream proxy from sandbox.ini', { timeoutMs: 300_000 }, async (h) => {
  const index = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-pypi-'));
  h.t.after(() => fs.rmSync(index, { recursive: true, force: true }));
  addWheel(index, 'viaup', '1.0', 'U = 1\n');
  const p = packageEnv(h, { SANDBOX_PYTHON_REGISTRY: 'http://pypi-local:8080/simple/', SANDBOX_PACKAGES_UPSTREAM_PROXY: 'upstream-proxy:3128' });
  docker('network', 'create', '--internal', p.network);
  serveRegistry(p.network, ['pypi-local'], index);
  // The "corporate" proxy: another Squid, of the same image, that this
  // test starts and reads the log of.
  const up = docker('run', '-d', '--rm', '--network', p.network, '--network-alias', 'upstream-proxy', '--read-only', '--tmpfs', '/tmp',
    '--cap-drop', 'ALL', '-e', 'SBX_PROXY_ALLOW=pypi-local:8080', 'mcp-sandbox/proxy:latest');
  waitLogged(up, /Accepting HTTP Socket connections/);
  const s = await h.start({ env: p.env });
  const set = await installOk(s, { language: 'python', packages: ['viaup==1.0'] });
  assert.equal(set.cached, false);
  assert.ok(set.connections.some((c) => c.host === 'pypi-local' && c.allowed));
  const upLog = docker('logs', up);
  assert.match(upLog, /^sbx \S+ GET http:\/\/pypi-local:8080\/simple\/viaup\/ 200 /m, `the upstream proxy carried the install:\n${upLog}`);
});


e2e('packages: a registry that cannot be reached is named at once, with how and what to set (pip, npm, Go, cargo), and not tried again for a while', { timeoutMs: 300_000 }, async (h) => {
  // The "corporate" proxy answers 500 to everything, as this machine's
  // way out does for pip's, Go's and Cargo's registries.
  const p = packageEnv(h, { SANDBOX_PACKAGES_UPSTREAM_PROXY: 'upstream-500:8080' });
  docker('network', 'create', '--internal', p.network);
  const up = serveListener(p.network, ['upstream-500'], '500');
  const s = await h.start({ env: p.env });
  const specs = { python: 'tabulate', javascript: 'is-odd@3.0.1', go: 'example.test/greet@v1.0.0', rust: 'serde@1' };
  const errors = await Promise.all(Object.entries(specs).map(async ([language, spec]) => [language, toolError(await install(s, { language, packages: [spec] }))]));
  for (const [language, e] of errors) {
    assert.equal(e.code, 'registry_unreachable', `${language}: ${e.message}`);
    const [first, second] = e.message.split('\n');
    // Which host, how, and what to set, before anything else. Squid
    // relays the upstream's answer to a CONNECT, or, having tried it
    // again, says it found no way through it.
    assert.match(first, /^registry unreachable: [a-z0-9.-]+:443(, [a-z0-9.-]+:443)*: (the upstream proxy upstream-500:8080 answered 500 Internal Server Error|the egress proxy got no way through the upstream proxy upstream-500:8080 \(500 ERR_CANNOT_FORWARD\))$/, `${language}: ${e.message}`);
    assert.match(second, new RegExp(`^${language}'s installer needs it: to use a mirror, set \\[${language}\\] registry = URL in sandbox.ini`), e.message);
    assert.match(second, /\[packages\] upstream_proxy = upstream-500:8080: check it, or change it/);
  }
  const seen = listenerHits(up);
  assert.ok(seen >= 4, `the checks went through the upstream proxy (${seen} connections)`);
  // Within registry_retry_ms a request that needs the same registries
  // gets the same answer at once: nothing reaches the upstream proxy.
  const again = toolError(await s.client.callTool({ name: 'sandbox_execute', arguments: { language: 'python', code: 'import tabulate', packages: ['tabulate==0.9.0'] } }, undefined, { timeout: 60_000 }));
  assert.equal(again.code, 'registry_unreachable');
  assert.match(again.message, /^registry unreachable: /);
  assert.match(again.message, /Found [\d.]+ s ago, and not tried again for [\d.]+ s more \(\[packages\] registry_retry_ms\)/);
  assert.equal(listenerHits(up), seen, 'the remembered failure made no connection');
  await s.close();

  // Mirrors on the install network: one that never answers, one whose
  // port is closed; registry_retry_ms = 0 tries again every time.
  const q = packageEnv(h, {
    SANDBOX_PYTHON_REGISTRY: 'http://silent-registry:8080/simple/',
    SANDBOX_JAVASCRIPT_REGISTRY: 'http://closed-registry:8081/',
    SANDBOX_PACKAGES_REGISTRY_TIMEOUT_MS: '1500',
    SANDBOX_PACKAGES_REGISTRY_RETRY_MS: '0',
  });
  docker('network', 'create', '--internal', q.network);
  const silent = serveListener(q.network, ['silent-registry', 'closed-registry'], 'silent');
  const t = await h.start({ env: q.env });
  for (let round = 0; round < 2; round++) {
    const py = toolError(await install(t, { language: 'python', packages: ['tabulate'] }));
    assert.equal(py.code, 'registry_unreachable');
    assert.match(py.message, /^registry unreachable: silent-registry:8080: no answer within 1\.5 s\npython's installer needs it: check the mirror set as \[python\] registry = http:\/\/silent-registry:8080\/simple\/ \(SANDBOX_PYTHON_REGISTRY\), or change it; to reach it through a proxy, set \[packages\] upstream_proxy/, py.message);
    assert.doesNotMatch(py.message, /not tried again/);
    assert.equal(listenerHits(silent), round + 1, 'each round asked the registry again');
  }
  const js = toolError(await install(t, { language: 'javascript', packages: ['is-odd'] }));
  assert.equal(js.code, 'registry_unreachable');
  assert.match(js.message, /^registry unreachable: closed-registry:8081: refused the connection \(TCP\)\n/, js.message);
});

e2e('packages: a registry whose certificate the installer does not trust is said first, with [packages] ca_bundle; with its CA there, the install works', { timeoutMs: 300_000 }, async (h) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-tls-'));
  h.t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  addWheel(path.join(dir, 'index'), 'overtls', '1.0', 'T = 1\n');
  const certs = testCertificates(path.join(dir, 'certs'), ['pypi-tls']);
  // A TLS-intercepting network's way: a certificate of a CA that the
  // host's bundle (the default ca_bundle) does not have.
  const p = packageEnv(h, { SANDBOX_PYTHON_REGISTRY: 'https://pypi-tls:8080/simple/' });
  docker('network', 'create', '--internal', p.network);
  serveRegistry(p.network, ['pypi-tls'], path.join(dir, 'index'), { tls: certs });
  const s = await h.start({ env: p.env });
  const e = toolError(await install(s, { language: 'python', packages: ['overtls==1.0'] }));
  assert.equal(e.code, 'registry_unreachable', e.message);
  assert.match(e.message, /^registry TLS failure: python's installer did not trust a registry's certificate \(a network that intercepts TLS\?\): set \[packages\] ca_bundle = the PEM file of its CA \(SANDBOX_PACKAGES_CA_BUNDLE\); the bundle given now does not have it\.\n/, e.message);
  assert.match(e.message, /CERTIFICATE_VERIFY_FAILED|certificate verify failed/);
  await s.close();

  const t = await h.start({ env: { ...p.env, SANDBOX_PACKAGES_CA_BUNDLE: certs.ca } });
  const set = await installOk(t, { language: 'python', packages: ['overtls==1.0'] });
  assert.deepEqual(set.packages.map((x) => [x.name, x.version]), [['overtls', '1.0']]);
  assert.ok(set.connections.some((c) => c.host === 'pypi-tls' && c.method === 'CONNECT' && c.allowed), JSON.stringify(set.connections));
  const run = runResult(await t.call({ language: 'python', packages: ['overtls==1.0'], code: 'import overtls\nprint(overtls.T)' }, { requestTimeoutMs: 120_000 }));
  assert.equal(run.stdout, '1\n', run.stderr);
});

e2e('packages: crates from a local Cargo sparse registry, built once at install and linked by a rust program', { timeoutMs: 400_000 }, async (h) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-crates-'));
  h.t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  // The index and the downloads on two hosts: the index's config.json
  // names the second, which the proxy allows only once the index said so.
  const base = 'http://cargo-dl:8080/';
  addCrate(dir, base, 'sbxgreet', '1.0.3', 'pub fn hello(n: &str) -> String { format!("hello, {}", n) }\n');
  // With a build script, which cargo compiles and runs at install.
  addCrate(dir, base, 'sbxouter', '1.1.0', 'pub fn twice(n: &str) -> String { format!("{} {}", sbxgreet::hello(n), sbxgreet::hello(n)) }\n', { sbxgreet: '^1' },
    { 'build.rs': 'fn main() { println!("cargo:rerun-if-changed=build.rs"); }\n' });
  const p = packageEnv(h, { SANDBOX_RUST_REGISTRY: 'http://cargo-local:8080/index/' });
  docker('network', 'create', '--internal', p.network);
  serveRegistry(p.network, ['cargo-local', 'cargo-dl'], dir);
  const s = await h.start({ env: p.env });

  const set = await installOk(s, { language: 'rust', packages: ['sbxouter@1'] });
  assert.equal(set.cached, false);
  assert.deepEqual(set.packages.map((x) => [x.name, x.version, x.requested]).sort(), [['sbxgreet', '1.0.3', false], ['sbxouter', '1.1.0', true]]);
  assert.match(set.installer, /^cargo 1\./);
  assert.ok(set.connections.every((c) => c.allowed), JSON.stringify(set.connections));
  assert.deepEqual([...new Set(set.connections.map((c) => c.host))].sort(), ['cargo-dl', 'cargo-local']);
  // The next install of this image starts with both hosts allowed.
  const inner = await installOk(s, { language: 'rust', packages: ['sbxgreet@1.0'] });
  assert.equal(inner.cached, false);
  assert.ok(inner.connections.some((c) => c.host === 'cargo-dl' && c.allowed), JSON.stringify(inner.connections));

  const run = runResult(await s.call({ language: 'rust', packages: ['sbxouter@1'], code: 'println!("{}", sbxouter::twice("rs"));' }, { requestTimeoutMs: 180_000 }));
  assert.equal(run.stdout, 'hello, rs hello, rs\n', run.stderr);
  // A rust session links them too.
  const created = await s.client.callTool({ name: 'sandbox_session', arguments: { action: 'create', language: 'rust', name: 'rspkgs', packages: ['sbxouter@1'] } }, undefined, { timeout: 120_000 });
  assert.equal(created.isError ?? false, false, created.content?.[0]?.text);
  const cell = sessionResult(await sessionExecCall(s, 'rspkgs', 'println!("{}", sbxouter::twice("s"));'), 'rspkgs');
  assert.equal(cell.stdout, 'hello, s hello, s\n', cell.stderr);
  // Without the set the crate is unknown: a build error, not a download.
  const without = runResult(await s.call({ language: 'rust', code: 'println!("{}", sbxouter::twice("rs"));' }, { requestTimeoutMs: 180_000 }));
  assert.equal(without.phase, 'build');
  assert.match(without.stderr, /sbxouter/);

  // Without a mirror, the index is the one cargo itself fetches first
  // (its default or the image's source replacement), found with no
  // network: one http(s) URL.
  const found = docker('run', '--rm', '--network', 'none', '--user', '1000', '--entrypoint', '/opt/sbx/bin/rust-pkg', 'mcp-sandbox/rust:latest', 'registries', 'sbxouter@1');
  assert.match(found, /^https?:\/\/[^/\s]+\/\S*$/);
});
