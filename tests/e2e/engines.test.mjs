// Several container engines (docs/scaling.md): a second dockerd of the
// test's own (its own data root, bridge and socket), listening on
// 127.0.0.1 with TLS certificates the test makes with OpenSSL, beside this
// machine's engine. All traffic stays on this machine.
//
//  - mutual TLS works for runs, sessions and files, and each way it can be
//    wrong is refused with a message that says so;
//  - with two engines, one-off calls spread over both, each session stays
//    on its engine, and both survive a restart of the server;
//  - an engine stopped mid-run loses no one-off call that had not started,
//    its sessions are reported lost after the grace, and it rejoins when
//    it answers again.
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import tls from 'node:tls';
import { promisify } from 'node:util';
import { dockerGet } from './lib/docker.mjs';
import { makeCerts, startEngine, startPodman } from './lib/engines.mjs';
import { addNpmPackage, addProbePackages, waitLogged } from './lib/registry.mjs';
import { BIN, IN_CI, e2e, runResult, toolError } from './lib/server.mjs';
import { withStateDir } from './lib/sessions.mjs';
import { eventually, waitFor } from './lib/wait.mjs';

const run = promisify(execFile);
const IMAGE = 'mcp-sandbox/bash:latest';

function needRoot(h) {
  if (process.getuid() === 0) return true;
  if (IN_CI) throw new Error('this test starts a dockerd and needs root, and CI=true');
  h.t.skip('needs root to start a dockerd');
  return false;
}

/** `mcp-sandbox run bash -c code` with env; resolves { code, stdout, stderr }. */
async function runOnce(env, code = 'echo hi') {
  try {
    const all = { PATH: process.env.PATH, HOME: process.env.HOME, SANDBOX_CONFIG: '/dev/null', ...env };
    const r = await run(BIN, ['run', 'bash', '-c', code], {
      env: Object.fromEntries(Object.entries(all).filter(([, v]) => v !== undefined)),
      timeout: 60_000,
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** A sandbox.ini with these engines ({name: {key: value}}) and nothing else. */
function engineConfig(h, engines, extra = '') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-engines-ini-'));
  h.t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'sandbox.ini');
  let text = extra;
  for (const [name, keys] of Object.entries(engines)) {
    text += `\n[engine.${name}]\n`;
    for (const [k, v] of Object.entries(keys)) text += `${k} = ${v}\n`;
  }
  fs.writeFileSync(file, text);
  return file;
}

const tlsKeys = (certs, client = certs.client) => ({
  tls_ca: certs.ca.cert, tls_cert: client.cert, tls_key: client.key,
});

// The dockerd over mutual TLS that the first three tests share: started
// by the first that asks, gone when the file's tests are done. A new one
// a test would load the image again (about 5 CPU seconds). Each test's
// servers have their own state directory and remove their containers as
// they close; the third leaves the engine running, as it found it.
const fileEnds = [];
after(async () => {
  for (const f of fileEnds.reverse()) await f();
});
let tlsShared = null;
function tlsEngine() {
  tlsShared ??= (async () => {
    const file = { t: { after: (f) => fileEnds.push(f) } };
    const certs = makeCerts(file);
    return { certs, eng: await startEngine(file, { tls: certs, images: [IMAGE] }) };
  })();
  return tlsShared;
}

/** This machine's engine as "local" and the shared one over TLS as "remote". */
async function twoEngines(h, extra = '') {
  const { certs, eng } = await tlsEngine();
  const config = engineConfig(h, {
    local: { host: 'unix:///var/run/docker.sock' },
    remote: { host: eng.url, ...tlsKeys(certs) },
  }, extra);
  return { eng, config };
}

async function inspectEngines(s) {
  const r = await s.client.callTool({ name: 'sandbox_inspect', arguments: { what: 'engine' } });
  assert.equal(r.isError ?? false, false, r.content?.[0]?.text);
  return r.structuredContent.engines;
}

async function session(s, action, args) {
  return s.client.callTool({ name: 'sandbox_session', arguments: { action, ...args } });
}

e2e('an engine over mutual TLS: runs, sessions and files work; a wrong CA, a client certificate of another CA, expired certificates, no client certificate and plain TCP are refused', { timeoutMs: 240_000 }, async (h) => {
  if (!needRoot(h)) return;
  const { certs, eng } = await tlsEngine();

  // The docker CLI's variables, as a user who already talks to this
  // engine with `docker --tlsverify` has them.
  const s = await withStateDir(h).start({
    DOCKER_HOST: eng.url, DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: certs.cliDir,
    SANDBOX_POOL_SIZE: '0', SANDBOX_BASH_POOL_SIZE: '1', SANDBOX_POOL_WARM_AT_START: 'bash',
  });
  const r = await s.execute('bash', 'head -c 200000 /dev/zero | wc -c; echo err >&2; exit 3', { stdin: 'x'.repeat(300_000) });
  assert.deepEqual([r.stdout, r.stderr, r.exitCode], ['200000\n', 'err\n', 3]);
  assert.equal(r.engine, undefined, 'one engine: results do not name it');
  const created = await session(s, 'create', { language: 'bash', name: 'tls' });
  assert.equal(created.isError ?? false, false, created.content?.[0]?.text);
  assert.equal(created.structuredContent.session.engine, 'default');
  assert.equal(runResult(await s.call({ language: 'bash', session: 'tls', code: 'X=kept; echo v > /work/v.txt' })).exitCode, 0);
  assert.equal(runResult(await s.call({ language: 'bash', session: 'tls', code: 'echo $X' })).stdout, 'kept\n');
  const read = await s.client.callTool({ name: 'sandbox_file_ops', arguments: { action: 'read', session: 'tls', path: 'v.txt' } });
  assert.equal(JSON.parse(read.content[0].text).content, 'v\n');
  const [e] = await inspectEngines(s);
  assert.deepEqual([e.name, e.endpoint, e.tls, e.health], ['default', eng.url, true, 'up']);
  assert.equal(e.info.dataRoot, `${eng.dir}/data`, 'the description is the TLS engine\'s');
  assert.equal((await session(s, 'destroy', { name: 'tls' })).isError ?? false, false);

  // Each way to get it wrong, through `mcp-sandbox run`.
  const good = { SANDBOX_DOCKER_HOST: eng.url, SANDBOX_DOCKER_TLS_CA: certs.ca.cert, SANDBOX_DOCKER_TLS_CERT: certs.client.cert, SANDBOX_DOCKER_TLS_KEY: certs.client.key };
  assert.deepEqual(await runOnce(good), { code: 0, stdout: 'hi\n', stderr: '' });
  const refused = async (what, env, code, re) => {
    const o = await runOnce({ ...good, ...env });
    assert.equal(o.code, code, `${what}: exit ${o.code}: ${o.stderr}`);
    assert.equal(o.stdout, '', what);
    assert.match(o.stderr, re, what);
  };
  await refused('the daemon\'s certificate checked against another CA', { SANDBOX_DOCKER_TLS_CA: certs.otherCa.cert }, 125,
    /docker_unavailable: .*tcp:\/\/127\.0\.0\.1:\d+.*(certificate|issuer)/i);
  await refused('a client certificate of another CA', { SANDBOX_DOCKER_TLS_CERT: certs.otherClient.cert, SANDBOX_DOCKER_TLS_KEY: certs.otherClient.key }, 125,
    /docker_unavailable: .*(bad certificate|unknown ca|certificate)/i);
  await refused('an expired client certificate', { SANDBOX_DOCKER_TLS_CERT: certs.expiredClient.cert, SANDBOX_DOCKER_TLS_KEY: certs.expiredClient.key }, 125,
    /docker_unavailable: .*(certificate|expired)/i);
  await refused('no client certificate', { SANDBOX_DOCKER_TLS_CERT: undefined, SANDBOX_DOCKER_TLS_KEY: undefined }, 1,
    /TLS to the Docker daemon needs client certificate/);
  await refused('a client key that cannot be read', { SANDBOX_DOCKER_TLS_KEY: '/nonexistent/key.pem' }, 1,
    /client key \/nonexistent\/key\.pem: No such file/);
  await refused('plain TCP', { SANDBOX_DOCKER_TLS_CA: undefined, SANDBOX_DOCKER_TLS_CERT: undefined, SANDBOX_DOCKER_TLS_KEY: undefined }, 1,
    /is plain TCP: .*allow_plaintext/);

  // An expired server certificate of the right CA: a TLS server on this
  // machine that presents one (the daemon's own check of it is ours).
  const srv = tls.createServer({ cert: fs.readFileSync(certs.expiredServer.cert), key: fs.readFileSync(certs.expiredServer.key) }, (c) => c.destroy());
  await new Promise((resolve) => srv.listen(0, '127.0.0.1', resolve));
  h.t.after(() => srv.close());
  await refused('an expired server certificate', { SANDBOX_DOCKER_HOST: `tcp://127.0.0.1:${srv.address().port}` }, 125,
    /docker_unavailable: .*expired/i);
});

e2e('two engines: one-off calls spread over both, each session stays on its engine, and both survive a restart of the server', { timeoutMs: 300_000 }, async (h) => {
  if (!needRoot(h)) return;
  const { eng, config } = await twoEngines(h);
  const st = withStateDir(h);
  const env = { SANDBOX_CONFIG: config, SANDBOX_POOL_SIZE: '0', SANDBOX_BASH_POOL_SIZE: '1', SANDBOX_POOL_WARM_AT_START: 'bash' };
  let s = await st.start(env);
  await waitFor(async () => (await inspectEngines(s)).every((x) => x.health === 'up'), { what: 'both engines up' });

  // Eight calls at once: each goes where the least is in hand.
  const results = await Promise.all(Array.from({ length: 8 }, (_, i) => s.execute('bash', `sleep 0.5; echo ${i}`)));
  results.forEach((r, i) => assert.equal(r.stdout, `${i}\n`));
  const where = results.map((r) => r.engine);
  assert.ok(where.includes('local') && where.includes('remote'), `calls ran on ${where}`);
  const placed = Object.fromEntries((await inspectEngines(s)).map((x) => [x.name, x.placed]));
  assert.ok(placed.local >= 1 && placed.remote >= 1, JSON.stringify(placed));

  // Sessions spread too, and each keeps its engine.
  const engines = {};
  for (const name of ['s1', 's2', 's3', 's4']) {
    const c = await session(s, 'create', { language: 'bash', name });
    assert.equal(c.isError ?? false, false, c.content?.[0]?.text);
    engines[name] = c.structuredContent.session.engine;
    assert.equal(runResult(await s.call({ language: 'bash', session: name, code: `V=${name}` })).exitCode, 0);
  }
  assert.deepEqual(Object.values(engines).sort(), ['local', 'local', 'remote', 'remote'], JSON.stringify(engines));
  const counts = Object.fromEntries((await inspectEngines(s)).map((x) => [x.name, x.sessions]));
  assert.deepEqual(counts, { local: 2, remote: 2 });

  // kill -9, then the next server: every session back on its engine with
  // its shell variable.
  process.kill(s.pid, 'SIGKILL');
  await s.exited;
  s = await st.start(env);
  for (const [name, engine] of Object.entries(engines)) {
    const r = runResult(await s.call({ language: 'bash', session: name, code: 'echo $V' }));
    assert.equal(r.stdout, `${name}\n`, `${name} kept its state`);
    const got = await session(s, 'get', { name });
    assert.equal(got.structuredContent.session.engine, engine, `${name} is still on ${engine}`);
  }
  for (const name of Object.keys(engines)) await session(s, 'destroy', { name });
});

e2e('an engine stopped mid-run: one-off calls that had not started go to the other engine, its sessions are reported lost, and it rejoins when it is back', { timeoutMs: 300_000 }, async (h) => {
  if (!needRoot(h)) return;
  const { eng, config } = await twoEngines(h, '[docker]\nprobe_interval_ms = 200\nprobe_timeout_ms = 1000\ndown_after = 2\n[sessions]\nreconnect_grace_s = 3\n');
  const s = await withStateDir(h).start({ SANDBOX_CONFIG: config, SANDBOX_POOL_SIZE: '0', SANDBOX_BASH_POOL_SIZE: '1', SANDBOX_POOL_WARM_AT_START: 'bash' });
  await waitFor(async () => (await inspectEngines(s)).every((x) => x.health === 'up'), { what: 'both engines up' });
  const sessions = {};
  for (const name of ['a', 'b']) {
    const c = await session(s, 'create', { language: 'bash', name });
    assert.equal(c.isError ?? false, false, c.content?.[0]?.text);
    sessions[c.structuredContent.session.engine] = name;
  }
  assert.deepEqual(Object.keys(sessions).sort(), ['local', 'remote']);

  // Three callers, one call after another, while the remote engine stops.
  let stopped = false;
  let downAt = Infinity;
  const outcomes = [];
  const caller = async (k) => {
    for (let i = 0; i < 12; i++) {
      const asked = Date.now();
      const r = await s.call({ language: 'bash', code: `sleep 0.2; echo ${k}.${i}` });
      outcomes.push({ asked, r, k, i });
      if (k === 0 && i === 3 && !stopped) {
        stopped = true;
        await eng.stop();
        await waitFor(async () => (await inspectEngines(s)).find((x) => x.name === 'remote').health === 'down', { timeoutMs: 20_000, what: 'the remote engine marked down' });
        downAt = Date.now();
      }
    }
  };
  await Promise.all([caller(0), caller(1), caller(2)]);
  for (const { asked, r, k, i } of outcomes) {
    if (r.isError) {
      // Only a call that was running on the engine as it went: the
      // engine stops its containers first (sandbox_error, the connection
      // to the container lost, while the engine still answers), then
      // stops answering (docker_unavailable).
      const err = toolError(r);
      assert.ok(err.code === 'docker_unavailable' || (err.code === 'sandbox_error' && /connection to the container was lost/.test(err.message)),
        `${k}.${i}: ${err.code}: ${err.message}`);
      assert.ok(asked < downAt, `${k}.${i} failed though asked after the engine was down: ${err.message}`);
    } else {
      assert.equal(runResult(r).stdout, `${k}.${i}\n`);
      if (asked > downAt) assert.equal(runResult(r).engine, 'local', `${k}.${i} ran on the engine that is up`);
    }
  }
  assert.ok(outcomes.filter((o) => o.r.isError).length <= 3, 'at most the calls in flight failed');

  // The remote session: lost once the grace is over; the local one works.
  const lost = await waitFor(async () => {
    const r = await s.call({ language: 'bash', session: sessions.remote, code: 'echo x' }, { requestTimeoutMs: 10_000 });
    return r.isError && toolError(r).code === 'session_lost' ? toolError(r) : null;
  }, { timeoutMs: 30_000, what: 'the remote session reported lost' });
  assert.match(lost.message, /was lost/);
  assert.equal(runResult(await s.call({ language: 'bash', session: sessions.local, code: 'echo ok' })).stdout, 'ok\n');

  // Back: it answers, rejoins, and takes calls again.
  await eng.start();
  await waitFor(async () => (await inspectEngines(s)).find((x) => x.name === 'remote').health === 'up', { timeoutMs: 30_000, what: 'the remote engine back up' });
  const remote = (await inspectEngines(s)).find((x) => x.name === 'remote');
  assert.equal(remote.timesDown, 1);
  // Rounds of six calls at once (more than the local engine keeps warm)
  // until one runs there: until its pool has refilled, a call prefers the
  // engine with a warm container.
  let seen = [];
  const back = await eventually(async () => {
    const again = await Promise.all(Array.from({ length: 6 }, (_, i) => s.execute('bash', `sleep 0.5; echo ${i}`)));
    seen = again.map((r) => r.engine);
    return seen.includes('remote');
  }, { timeoutMs: 60_000 });
  assert.ok(back, `after its return calls ran on ${seen} (the last round)`);
  await session(s, 'destroy', { name: sessions.local });
});

e2e('a Podman service on a unix socket runs sandboxes with the same limits, seccomp profile and capabilities, sessions work there, and an install reaches its registry through the proxy only and leaves nothing behind', { timeoutMs: 300_000 }, async (h) => {
  if (!needRoot(h)) return;
  // In a network namespace of its own: the install network and Podman's
  // default one (the proxy's) get their bridges, rules and DNS there.
  const pod = await startPodman(h, { netns: true, images: [IMAGE, 'mcp-sandbox/node:latest', 'mcp-sandbox/proxy:latest'] });
  const podman = (...a) => execFileSync('docker', ['-H', pod.url, ...a], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  const id = crypto.randomBytes(4).toString('hex');
  const network = `sbx-test-pkgnet-${id}`;
  const volume = `sbx-test-pkgs-${id}`;
  const reg = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-reg-'));
  h.t.after(() => fs.rmSync(reg, { recursive: true, force: true }));
  addNpmPackage(reg, 'sbx-pod', '1.0.0', { 'index.js': 'module.exports = "installed on Podman";\n' }, 'http://npm-local:8080/tarballs/');
  fs.chmodSync(reg, 0o755);
  // The registry: a container on the install network, which only the
  // proxy joins (startPodman's clean-up removes it with the engine). Its
  // limits as the server sets them on Podman (docs/scaling.md): Podman's
  // defaults (1048576 files and processes) are more than runc may set here.
  podman('network', 'create', '--internal', network);
  const registry = podman('run', '-d', '--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=256:256', '--network', network, '--network-alias', 'npm-local', '--read-only', '--user', '1000',
    '-v', `${reg}:/srv:ro`, '--entrypoint', 'node', 'mcp-sandbox/node:latest', '-e',
    "require('http').createServer((q, r) => require('fs').readFile('/srv' + decodeURIComponent(new URL(q.url, 'http://x').pathname), (e, d) => { r.statusCode = e ? 404 : 200; r.end(e ? '' : d); })).listen(8080, () => console.log('listening'))");
  waitLogged(registry, /^listening$/m, { host: pod.url });
  const st = withStateDir(h);
  const env = {
    DOCKER_HOST: pod.url, SANDBOX_POOL_SIZE: '0', SANDBOX_BASH_POOL_SIZE: '1', SANDBOX_POOL_WARM_AT_START: 'bash',
    SANDBOX_PACKAGES_NETWORK: network, SANDBOX_PACKAGES_VOLUME: volume, SANDBOX_JAVASCRIPT_REGISTRY: 'http://npm-local:8080/',
  };
  const s = await st.start(env);
  const [e] = await waitFor(async () => {
    const list = await inspectEngines(s);
    return list[0].health === 'up' ? list : null;
  }, { timeoutMs: 30_000, what: 'the Podman engine up' });
  assert.equal(e.info.dataRoot, `${pod.dir}/storage`, 'the description is Podman\'s');

  // What the user code sees: the sandbox user, its own /work, no
  // capability, the seccomp filter, the limits; the agent (PID 1) holds
  // its four capabilities and not the CAP_CHOWN it used to hand /work over.
  const r = await s.execute('bash', [
    'id -u', 'stat -c "%u %a" /work', 'grep -E "^(CapEff|NoNewPrivs|Seccomp):" /proc/self/status',
    'grep -E "^Cap(Prm|Bnd):" /proc/1/status', 'cat /sys/fs/cgroup/pids/pids.max', 'ulimit -n',
    'echo x > /work/f && ls -n /work/f | cut -d" " -f3',
  ].join('; '));
  assert.equal(r.exitCode, 0, r.stderr);
  assert.deepEqual(r.stdout.trim().split('\n').map((l) => l.replace(/\s+/g, ' ')), [
    '1000', '1000 700', 'CapEff: 0000000000000000', 'NoNewPrivs: 1', 'Seccomp: 2',
    'CapPrm: 00000000000001e0', 'CapBnd: 00000000000001e0', '128', '1024', '1000',
  ]);
  // The floor holds: a syscall it denies fails.
  const denied = await s.execute('bash', 'unshare -U true 2>&1; echo $?');
  assert.notEqual(denied.stdout.trim().split('\n').at(-1), '0', denied.stdout);

  const c = await session(s, 'create', { language: 'bash', name: 'pod' });
  assert.equal(c.isError ?? false, false, c.content?.[0]?.text);
  assert.equal(runResult(await s.call({ language: 'bash', session: 'pod', code: 'X=1; echo v > /work/v.txt' })).exitCode, 0);
  assert.equal((await session(s, 'pause', { name: 'pod' })).isError ?? false, false);
  assert.equal((await session(s, 'resume', { name: 'pod' })).isError ?? false, false);
  assert.equal(runResult(await s.call({ language: 'bash', session: 'pod', code: 'echo $X' })).stdout, '1\n');
  const read = await s.client.callTool({ name: 'sandbox_file_ops', arguments: { action: 'read', session: 'pod', path: 'v.txt' } });
  assert.equal(JSON.parse(read.content[0].text).content, 'v\n');
  assert.equal((await session(s, 'destroy', { name: 'pod' })).isError ?? false, false);

  // An install: through the forwarder in the install container's
  // loopback (NetworkMode container:<id>) and the unix socket on a tmpfs
  // volume to the proxy, which alone reaches the registry.
  const install = async (spec) => {
    const r = await s.client.callTool({ name: 'sandbox_install', arguments: { language: 'javascript', packages: [spec] } }, undefined, { timeout: 240_000 });
    assert.equal(r.isError ?? false, false, r.content?.[0]?.text);
    return JSON.parse(r.content[0].text);
  };
  const got = await install('sbx-pod@1.0.0');
  assert.ok(got.connections.length > 0 && got.connections.every((c) => c.host === 'npm-local' && c.allowed), JSON.stringify(got.connections));
  const use = runResult(await s.call({ language: 'javascript', packages: ['sbx-pod@1.0.0'], code: "console.log(require('sbx-pod'))" }, { requestTimeoutMs: 120_000 }));
  assert.equal(use.stdout, 'installed on Podman\n', use.stderr);

  // No route but the proxy: a postinstall that ignores it tries every
  // address of the engine's namespace (the install network's gateway,
  // loopback, and the gateway of Podman's default network, the proxy's,
  // whose bridge exists while a container is on it), where a listener
  // logs what reaches it, and the registry by name and by address.
  // Nothing connects.
  const lines = [];
  const listener = spawn('nsenter', [`--net=/var/run/netns/${pod.netns}`, process.execPath, '-e',
    "const s = require('net').createServer((c) => { console.log('connection', c.remoteAddress, '->', c.localAddress + ':' + c.localPort); c.destroy(); }); s.listen(0, '0.0.0.0', () => console.log('listening', s.address().port));"],
  { stdio: ['ignore', 'pipe', 'inherit'] });
  h.t.after(() => listener.kill());
  listener.stdout.setEncoding('utf8').on('data', (d) => lines.push(...d.split('\n').filter(Boolean)));
  const port = Number((await waitFor(() => lines.find((l) => l.startsWith('listening')), { what: 'the listener in the engine\'s namespace' })).split(' ')[1]);
  const ipAddr = execFileSync('nsenter', [`--net=/var/run/netns/${pod.netns}`, 'ip', '-4', '-o', 'addr', 'show'], { encoding: 'utf8' });
  const addrs = [...ipAddr.matchAll(/inet ([0-9.]+)\//g)].map((m) => m[1]);
  const gateway = JSON.parse(podman('network', 'inspect', network))[0].IPAM.Config[0].Gateway;
  assert.ok(addrs.includes(gateway) && addrs.includes('127.0.0.1'), `${gateway} among ${addrs}`);
  const bridge = JSON.parse(podman('network', 'inspect', 'bridge'))[0].IPAM.Config[0].Gateway;
  const registryIp = JSON.parse(podman('inspect', registry))[0].NetworkSettings.Networks[network].IPAddress;
  const targets = [...new Set([...addrs, bridge])].map((a) => [a, port]);
  targets.push(['host.containers.internal', port], ['npm-local', 8080], [registryIp, 8080]);
  addProbePackages(reg, targets, { tarballBase: 'http://npm-local:8080/tarballs/' });
  await install('sbx-probe@1.0.0');
  const report = runResult(await s.call({ language: 'javascript', packages: ['sbx-probe@1.0.0'], code: "console.log(JSON.stringify(require('sbx-probe/report.json')))" }, { requestTimeoutMs: 120_000 }));
  const outcomes = JSON.parse(report.stdout || '[]');
  assert.equal(outcomes.length, targets.length, `${report.stdout} ${report.stderr}`);
  assert.deepEqual(outcomes.filter((o) => / connected$/.test(o)), [], `the postinstall reached: ${report.stdout}`);
  assert.deepEqual(lines.filter((l) => l.startsWith('connection')), [], 'the listener saw no connection');
  // An install is answered once its containers and volumes are gone.
  const left = async () => (await dockerGet('/containers/json?all=1', { socket: pod.sock })).body.filter((c) => c.Id !== registry);
  const volumes = async () => ((await dockerGet('/volumes', { socket: pod.sock })).body.Volumes ?? []).map((v) => v.Name);
  const what = async () => JSON.stringify({ containers: (await left()).map((c) => [c.Names, c.State, c.Labels['org.mcp-sandbox.role']]), volumes: await volumes() });
  assert.deepEqual([(await left()).filter((c) => c.Labels['org.mcp-sandbox.role']).length, await volumes()], [0, [volume]], await what());

  // A server killed mid-install (its postinstall hangs) leaves the
  // install box, the forwarder in its network namespace, the proxy and
  // their volumes; the next server removes them, the forwarder before the
  // box (Podman refuses the other order), and a server that closes
  // leaves nothing: the engine holds the test's registry and the cache
  // volume only.
  addNpmPackage(reg, 'sbx-hang', '1.0.0', { 'index.js': '' }, 'http://npm-local:8080/tarballs/', { postinstall: 'node -e "setInterval(() => {}, 1000)"' });
  const hung = s.client.callTool({ name: 'sandbox_install', arguments: { language: 'javascript', packages: ['sbx-hang@1.0.0'] } }, undefined, { timeout: 240_000 }).catch(() => null);
  await waitFor(async () => {
    const roles = (await left()).map((c) => c.Labels['org.mcp-sandbox.role']);
    return ['install', 'forwarder', 'proxy'].every((r) => roles.includes(r));
  }, { timeoutMs: 60_000, what: 'an install in flight' });
  process.kill(s.pid, 'SIGKILL');
  await s.exited;
  await hung;
  const next = await st.start({ ...env, SANDBOX_POOL_WARM_AT_START: '' });
  const clean = async () => (await left()).length === 0 && JSON.stringify(await volumes()) === JSON.stringify([volume]);
  await waitFor(clean, { timeoutMs: 30_000, what: 'the killed server\'s install removed' }).catch(async (e) => { throw new Error(`${e.message}: ${await what()}\n${next.stderr.slice(-4000)}`); });
  await next.close();
  assert.ok(await clean(), await what());
});

e2e('a rootless Podman on cgroup v1 cannot enforce the limits and is refused: calls fail at once, saying why', { timeoutMs: 180_000 }, async (h) => {
  if (!needRoot(h)) return;
  const pod = await startPodman(h, { rootless: true });
  // Its Docker-compatible /info claims every limit; its own says what is so.
  const info = (await dockerGet('/info', { socket: pod.sock })).body;
  assert.equal(info.MemoryLimit, true);
  const host = (await dockerGet('/v4.0.0/libpod/info', { socket: pod.sock })).body.host;
  assert.equal(host.security.rootless, true);
  assert.equal(info.CgroupVersion, '1', 'this test is about cgroup v1 machines');
  const s = await withStateDir(h).start({ DOCKER_HOST: pod.url, SANDBOX_POOL_SIZE: '0', SANDBOX_BASH_POOL_SIZE: '1', SANDBOX_POOL_WARM_AT_START: 'bash' });
  const [e] = await waitFor(async () => {
    const list = await inspectEngines(s);
    return list[0].health === 'refused' ? list : null;
  }, { timeoutMs: 30_000, what: 'the rootless engine refused' });
  assert.match(e.lastError, /rootless on cgroup v1, where it cannot enforce memory and pids limits/);
  assert.equal(e.containers, 0, 'nothing was started there');
  const r = await s.call({ language: 'bash', code: 'echo never' }, { requestTimeoutMs: 5000 });
  const err = toolError(r);
  assert.equal(err.code, 'docker_unavailable');
  assert.match(err.message, /refused: it runs rootless on cgroup v1/);
  assert.match(s.stderr, /engine default \(unix:\/\/.*podman\.sock\) is refused: it runs rootless on cgroup v1/);
});

e2e('each engine installs packages with its own egress proxy, network and cache: a session on the second engine gets a set from a registry only that engine\'s install network has', { timeoutMs: 300_000 }, async (h) => {
  if (!needRoot(h)) return;
  // In a network namespace of its own: its install network's DNS needs
  // the engine's iptables rules, which the other test engines go without.
  const eng = await startEngine(h, { netns: true, images: ['mcp-sandbox/node:latest', 'mcp-sandbox/proxy:latest'] });
  const dockerThere = (...a) => execFileSync('docker', ['-H', eng.url, ...a], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  const id = crypto.randomBytes(4).toString('hex');
  const network = `sbx-test-pkgnet-${id}`;
  const volume = `sbx-test-pkgs-${id}`;
  const reg = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-reg-'));
  h.t.after(() => {
    for (const d of [(...a) => execFileSync('docker', a, { stdio: 'pipe' }), (...a) => execFileSync('docker', ['-H', eng.url, ...a], { stdio: 'pipe' })]) {
      try { d('rm', '-f', ...d('ps', '-aq', '--filter', `network=${network}`).toString().split('\n').filter(Boolean)); } catch { /* none */ }
      try { d('network', 'rm', network); } catch { /* never made */ }
      try { d('volume', 'rm', '-f', volume); } catch { /* never made */ }
    }
    fs.rmSync(reg, { recursive: true, force: true });
  });
  addNpmPackage(reg, 'sbx-there', '1.0.0', { 'index.js': 'module.exports = "from the second engine";\n' }, 'http://npm-local:8080/tarballs/');
  fs.chmodSync(reg, 0o755);
  // The registry lives on the second engine's install network only.
  dockerThere('network', 'create', '--internal', network);
  const registry = dockerThere('run', '-d', '--rm', '--network', network, '--network-alias', 'npm-local', '--read-only', '--user', '1000',
    '-v', `${reg}:/srv:ro`, '--entrypoint', 'node', 'mcp-sandbox/node:latest', '-e',
    "require('http').createServer((q, r) => require('fs').readFile('/srv' + decodeURIComponent(new URL(q.url, 'http://x').pathname), (e, d) => { r.statusCode = e ? 404 : 200; r.end(e ? '' : d); })).listen(8080, () => console.log('listening'))");
  waitLogged(registry, /^listening$/m, { host: eng.url });
  const ini = engineConfig(h, { local: { host: 'unix:///var/run/docker.sock' }, second: { host: eng.url } });
  const st = withStateDir(h);
  const s = await st.start({
    SANDBOX_CONFIG: ini, SANDBOX_POOL_SIZE: '0', SANDBOX_POOL_WARM_AT_START: '',
    SANDBOX_PACKAGES_NETWORK: network, SANDBOX_PACKAGES_VOLUME: volume, SANDBOX_JAVASCRIPT_REGISTRY: 'http://npm-local:8080/',
  });
  // Sessions spread: the second lands on the second engine (once both
  // answer: an engine slow to answer first is no candidate yet).
  await waitFor(async () => (await inspectEngines(s)).every((x) => x.health === 'up'), { what: 'both engines up' });
  const engines = {};
  for (const name of ['one', 'two']) {
    const c = await session(s, 'create', { language: 'javascript', name });
    assert.equal(c.isError ?? false, false, c.content?.[0]?.text);
    engines[JSON.parse(c.content[0].text).session.engine] = name;
  }
  assert.deepEqual(Object.keys(engines).sort(), ['local', 'second'], JSON.stringify(engines));
  const there = engines.second;
  const r = await s.client.callTool({ name: 'sandbox_install', arguments: { session: there, packages: ['sbx-there@1.0.0'] } }, undefined, { timeout: 240_000 });
  assert.equal(r.isError ?? false, false, r.content?.[0]?.text);
  const got = JSON.parse(r.content[0].text);
  assert.equal(got.engine, 'second');
  assert.ok(got.connections.every((c) => c.host === 'npm-local' && c.allowed), JSON.stringify(got.connections));
  const use = runResult(await s.call({ language: 'javascript', session: there, code: "console.log(require('sbx-there'))" }, { requestTimeoutMs: 120_000 }));
  assert.equal(use.stdout, 'from the second engine\n', use.stderr);

  // No route but the proxy: an install script that ignores it tries every
  // address of this engine's namespace (all made by this test: the
  // engine's bridge, the install network's gateway, loopback), names, and
  // the registry directly. A listener on every address logs what reaches
  // it. Nothing may connect, and the install through the proxy works.
  const lines = [];
  const listener = spawn('nsenter', [`--net=/var/run/netns/${eng.netns}`, process.execPath, '-e',
    "const s = require('net').createServer((c) => { console.log('connection', c.remoteAddress, '->', c.localAddress + ':' + c.localPort); c.destroy(); }); s.listen(0, '0.0.0.0', () => console.log('listening', s.address().port));"],
  { stdio: ['ignore', 'pipe', 'inherit'] });
  h.t.after(() => listener.kill());
  listener.stdout.setEncoding('utf8').on('data', (d) => lines.push(...d.split('\n').filter(Boolean)));
  const port = Number((await waitFor(() => lines.find((l) => l.startsWith('listening')), { what: 'the listener in the engine\'s namespace' })).split(' ')[1]);
  const ipAddr = execFileSync('nsenter', [`--net=/var/run/netns/${eng.netns}`, 'ip', '-4', '-o', 'addr', 'show'], { encoding: 'utf8' });
  const addrs = [...ipAddr.matchAll(/inet ([0-9.]+)\//g)].map((m) => m[1]);
  const gateway = JSON.parse(dockerThere('network', 'inspect', network))[0].IPAM.Config[0].Gateway;
  assert.ok(addrs.includes(gateway) && /docker0\s+inet /.test(ipAddr), `the engine's bridge and ${gateway} among ${addrs}`);
  const registryIp = JSON.parse(dockerThere('inspect', registry))[0].NetworkSettings.Networks[network].IPAddress;
  const targets = [...addrs.map((a) => [a, port]), ['host.docker.internal', port], ['gateway.docker.internal', port],
    ['npm-local', 8080], [registryIp, 8080]];
  addProbePackages(reg, targets, { tarballBase: 'http://npm-local:8080/tarballs/' });
  const probe = await s.client.callTool({ name: 'sandbox_install', arguments: { session: there, packages: ['sbx-probe@1.0.0'] } }, undefined, { timeout: 240_000 });
  assert.equal(probe.isError ?? false, false, probe.content?.[0]?.text);
  const report = runResult(await s.call({ language: 'javascript', session: there, code: "console.log(JSON.stringify(require('sbx-probe/report.json')))" }, { requestTimeoutMs: 120_000 }));
  const outcomes = JSON.parse(report.stdout);
  assert.equal(outcomes.length, targets.length, report.stdout);
  assert.deepEqual(outcomes.filter((o) => / connected$/.test(o)), [], `the postinstall reached: ${report.stdout}`);
  assert.deepEqual(lines.filter((l) => l.startsWith('connection')), [], 'the listener saw no connection');
  // The set is the second engine's: in its cache volume and its index,
  // and not in this machine's engine's.
  const inVolume = (run) => run('run', '--rm', '--network', 'none', '-v', `${volume}:/v:ro`, '--entrypoint', 'ls', 'mcp-sandbox/node:latest', '/v');
  assert.match(inVolume(dockerThere), new RegExp(got.key));
  assert.doesNotMatch(inVolume((...a) => execFileSync('docker', a, { encoding: 'utf8' })), new RegExp(got.key));
  assert.match(fs.readFileSync(path.join(st.dir, 'packages-second.json'), 'utf8'), new RegExp(got.key));
  assert.ok(!fs.existsSync(path.join(st.dir, 'packages.json')) || !fs.readFileSync(path.join(st.dir, 'packages.json'), 'utf8').includes(got.key));
  await session(s, 'destroy', { name: 'one' });
  await session(s, 'destroy', { name: 'two' });
});
