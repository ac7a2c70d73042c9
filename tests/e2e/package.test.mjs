// The Debian package as a user gets it: cpack builds the .deb from the
// build tree (cmake/package.cmake), apt installs it in a clean Debian 12
// container, and the installed mcp-sandbox finds its plugins, its agent
// and /etc/mcp-sandbox/sandbox.ini, shows its man pages, and runs code
// in sandboxes of the host's engine: the engine's socket is bind-mounted
// into the container, and the server mounts no host path into the
// sandboxes it makes (only tmpfs and named volumes), so a sandbox created
// from inside the container works as one created on the host.
//
// Dependencies come from the Debian mirror that the container's own apt
// sources name (those of the host's bookworm, copied by mmdebstrap).
// Recommends (docker.io) are not installed: the container uses the host's
// engine through the socket. The container, and any sandbox its servers
// left, are removed at the end, pass or fail.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { dockerGet, dockerReachable, imageExists } from './lib/docker.mjs';
import { IN_CI, PLUGIN_ABI, ROOT } from './lib/server.mjs';
import { waitFor } from './lib/wait.mjs';

// The clean Debian 12 the package is installed in: a bookworm root file
// system with apt (mmdebstrap --variant=apt, from the host's Debian
// sources on a bookworm host), imported under this tag. Built here when
// missing, then reused by tag. Not the sandbox images' shared base
// (mcp-sandbox/base): that one carries the sandbox user and apt and dpkg
// options of its own (no Recommends, no manual pages), which a user's
// Debian does not have.
const DEBIAN12_IMAGE = 'mcp-sandbox/test-debian12:dev';

const BUILD = path.join(ROOT, 'build');
const NAME = `sbx-pkgtest-${process.pid}`;
const HOST_SOURCES = '/etc/apt/sources.list.d/debian.sources';

/**
 * Runs a command (an argv array, no shell); resolves with { code, stdout,
 * stderr }. Fails when it does not end within timeoutMs, or exits with a
 * status not in ok (default [0]).
 */
function run(cmd, args, { input, timeoutMs = 60_000, ok = [0], env } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'], env: env && { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${cmd} ${args.join(' ')}: no end after ${timeoutMs} ms\n${stderr.slice(-4000)}`));
    }, timeoutMs);
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (ok === null || ok.includes(code)) resolve({ code, stdout, stderr });
      else reject(new Error(`${cmd} ${args.join(' ')}: exit ${code ?? signal}\n--- stdout\n${stdout.slice(-4000)}\n--- stderr\n${stderr.slice(-4000)}`));
    });
    child.stdin.on('error', () => {}); // a command that exits before reading all of it
    child.stdin.end(input ?? '');
  });
}

const inBox = (args, opts) => run('docker', ['exec', '-i', NAME, ...args], opts);

async function have(cmd, args = ['--version']) {
  try {
    await run(cmd, args, { timeoutMs: 20_000 });
    return true;
  } catch {
    return false;
  }
}

/** The engine's unix socket on this machine, which the container gets. */
function engineSocket() {
  const host = process.env.DOCKER_HOST || 'unix:///var/run/docker.sock';
  return host.startsWith('unix://') ? host.slice('unix://'.length) : null;
}

/** What is missing to run these tests, or [] when nothing is. */
async function missing() {
  const m = [];
  const d = await dockerReachable();
  if (!d.ok) return [`a Docker engine (${d.reason})`];
  if (!engineSocket()) m.push(`a unix socket for the engine (DOCKER_HOST=${process.env.DOCKER_HOST}) to bind-mount`);
  for (const [cmd, args] of [['docker'], ['cpack'], ['dpkg-deb'], ['cc'], ['pkg-config']])
    if (!(await have(cmd, args))) m.push(`the ${cmd} command`);
  for (const img of ['mcp-sandbox/python:latest', 'mcp-sandbox/bash:latest'])
    if (!(await imageExists(img))) m.push(`the image ${img} (scripts/build-images.sh)`);
  if (!(await imageExists(DEBIAN12_IMAGE)) && !(await have('mmdebstrap')))
    m.push(`mmdebstrap, to build ${DEBIAN12_IMAGE}`);
  return m;
}

/** Builds DEBIAN12_IMAGE: mmdebstrap's tarball on stdout into docker import. */
async function buildDebian12() {
  const bookworm = fs.existsSync('/etc/os-release') && /^VERSION_CODENAME=bookworm$/m.test(fs.readFileSync('/etc/os-release', 'utf8'));
  const mirror = bookworm && fs.existsSync(HOST_SOURCES) ? [HOST_SOURCES] : [];
  const mm = spawn('mmdebstrap', ['--variant=apt', 'bookworm', '-', ...mirror], { stdio: ['ignore', 'pipe', 'pipe'] });
  const imp = spawn('docker', ['import', '-', DEBIAN12_IMAGE], { stdio: ['pipe', 'pipe', 'pipe'] });
  let log = '';
  mm.stderr.on('data', (c) => (log = (log + c).slice(-8000)));
  imp.stderr.on('data', (c) => (log = (log + c).slice(-8000)));
  mm.stdout.pipe(imp.stdin);
  const ended = (p) => new Promise((resolve) => p.on('close', (code) => resolve(code)));
  const [a, b] = await Promise.all([ended(mm), ended(imp)]);
  if (a !== 0 || b !== 0) throw new Error(`building ${DEBIAN12_IMAGE}: mmdebstrap exit ${a}, docker import exit ${b}\n${log}`);
}

/** Files below dir, relative to it. */
/** The files under dir, but Python's byte code (a build output, not in the package). */
function walk(dir, rel = '') {
  return fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((e) => {
    if (e.name === '__pycache__' || e.name.endsWith('.pyc')) return [];
    return e.isDirectory() ? walk(dir, path.join(rel, e.name)) : [path.join(rel, e.name)];
  });
}

// What setup() made, for the cleanup at the end (pass or fail).
const made = { dir: null, container: false };
after(async () => {
  if (made.container) {
    // The sandboxes the container's servers made carry its pid namespace:
    // look them up while it still exists, then remove them and it.
    const ns = (await inBox(['readlink', '/proc/self/ns/pid'], { ok: null }).catch(() => null))?.stdout.trim();
    const ids = ns ? (await run('docker', ['ps', '-aq', '--filter', `label=org.mcp-sandbox.pidns=${ns}`], { ok: null })).stdout.split('\n').filter(Boolean) : [];
    await run('docker', ['rm', '-f', '-v', NAME, ...ids], { ok: null });
  }
  if (made.dir) fs.rmSync(made.dir, { recursive: true, force: true });
});

let ready;
/**
 * Everything the tests look at, made once: the .deb (in a temporary
 * directory, also extracted there), the container with the package
 * installed. Resolves with { skip } when something is missing (outside
 * CI; under CI=true that is a failure).
 */
function setup() {
  ready ??= (async () => {
    const m = await missing();
    if (m.length) {
      if (IN_CI) throw new Error(`CI=true and the package test lacks: ${m.join('; ')}`);
      return { skip: `missing: ${m.join('; ')}` };
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-deb-'));
    made.dir = dir;
    const config = path.join(BUILD, 'CPackConfig.cmake');
    assert.ok(fs.existsSync(config), `${config} is missing: configure the tree again (cmake -S . -B build)`);
    // cpack builds what is out of date first (its preinstall step).
    await run('cpack', ['--config', config, '-B', dir], { timeoutMs: 900_000 });
    const debs = fs.readdirSync(dir).filter((f) => f.endsWith('.deb'));
    assert.equal(debs.length, 1, `one .deb in ${dir}: ${debs}`);
    const deb = path.join(dir, debs[0]);
    const tree = path.join(dir, 'tree');
    await run('dpkg-deb', ['-x', deb, tree]);

    if (!(await imageExists(DEBIAN12_IMAGE))) await buildDebian12();
    made.container = true;
    await run('docker', ['run', '-d', '--name', NAME, '--label', 'org.mcp-sandbox.test=package',
      '-v', `${engineSocket()}:/var/run/docker.sock`, DEBIAN12_IMAGE, 'sleep', 'infinity']);
    await run('docker', ['cp', deb, `${NAME}:/tmp/${debs[0]}`]);
    const apt = ['env', 'DEBIAN_FRONTEND=noninteractive'];
    await inBox([...apt, 'apt-get', 'update', '-q'], { timeoutMs: 300_000 });
    // man-db, to read the pages as a user would.
    await inBox([...apt, 'apt-get', 'install', '-y', '-q', '--no-install-recommends', `/tmp/${debs[0]}`, 'man-db'], { timeoutMs: 600_000 });
    const pidns = (await inBox(['readlink', '/proc/self/ns/pid'])).stdout.trim();
    return { dir, deb, debName: debs[0], tree, pidns };
  })();
  return ready;
}

/** test() with the package set up, skipped (outside CI) when it cannot be. */
function ptest(name, fn) {
  test(name, { timeout: 1_200_000 }, async (t) => {
    const s = await setup();
    if (s.skip) return t.skip(s.skip);
    return fn(s, t);
  });
}

const field = async (deb, name) => (await run('dpkg-deb', ['-f', deb, name])).stdout.trim();

ptest('cpack builds a .deb: /usr and /etc only, gzipped man pages, Depends by dpkg-shlibdeps, an engine recommended', async (s) => {
  const files = (await run('dpkg-deb', ['-c', s.deb])).stdout
    .split('\n').filter(Boolean).map((l) => l.split(/\s+/).slice(5).join(' ').replace(/^\./, ''));
  for (const f of files) assert.match(f, /^\/(usr|etc)\//, `${f}: only /usr and /etc`);
  // No build output: Python's byte code once came along with a recipe.
  assert.deepEqual(files.filter((f) => /__pycache__|\.pyc$/.test(f)), [], 'no byte code in the package');
  assert.ok(!files.some((f) => f.startsWith('/usr/local')), 'nothing in /usr/local');
  for (const f of [
    '/usr/bin/mcp-sandbox',
    '/usr/libexec/mcp-sandbox/sbx-agent',
    '/usr/lib/mcp-sandbox/plugins/python.so',
    '/usr/lib/mcp-sandbox/plugins/bash.so',
    '/etc/mcp-sandbox/sandbox.ini',
    '/usr/include/mcp-sandbox/plugin.h',
    '/usr/include/mcp-sandbox/lex.h',
    '/usr/lib/libmcp-sandbox-lex.a',
    '/usr/share/pkgconfig/mcp-sandbox-lex.pc',
    '/usr/lib/cmake/McpSandboxPlugin/McpSandboxPluginConfig.cmake',
    '/usr/lib/cmake/McpSandboxPlugin/McpSandboxPluginConfigVersion.cmake',
    '/usr/share/mcp-sandbox/docs/plugin-abi.md',
    '/usr/share/pkgconfig/mcp-sandbox-plugin.pc',
    '/usr/share/mcp-sandbox/sdk/README.md',
    '/usr/share/mcp-sandbox/sdk/example/perl.c',
    '/usr/share/mcp-sandbox/docs/plugin-sdk.md',
    '/usr/share/mcp-sandbox/scripts/build-images.sh',
    '/usr/share/mcp-sandbox/scripts/lib.sh',
    '/usr/share/mcp-sandbox/images/python/Dockerfile',
    '/usr/share/mcp-sandbox/images/bash/packages',
    '/usr/share/man/man1/mcp-sandbox.1.gz',
    '/usr/share/man/man5/sandbox.ini.5.gz',
    '/usr/share/doc/mcp-sandbox/copyright',
  ])
    assert.ok(files.includes(f), `${f} in the package`);
  // The SDK's guide and every document it and those name (docs/NAME.md)
  // are installed: a contributor with the package only finds no dead
  // reference.
  const docsDir = path.join(s.tree, 'usr/share/mcp-sandbox/docs');
  const docs = fs.readdirSync(docsDir);
  for (const d of ['plugin-sdk.md', 'session-interpreters.md', 'prestart.md', 'security.md', 'sessions.md', 'packages.md'])
    assert.ok(docs.includes(d), `docs/${d} in the package`);
  const sdkReadme = path.join(s.tree, 'usr/share/mcp-sandbox/sdk/README.md');
  for (const f of [...docs.map((d) => path.join(docsDir, d)), sdkReadme])
    for (const m of fs.readFileSync(f, 'utf8').matchAll(/\bdocs\/([A-Za-z0-9_-]+\.md)\b/g))
      assert.ok(docs.includes(m[1]), `${path.basename(f)} names docs/${m[1]}, which the package does not have`);
  // Every recipe of the tree is in the package, byte for byte (the image
  // builder hashes them).
  for (const f of walk(path.join(ROOT, 'images')))
    assert.ok(fs.readFileSync(path.join(ROOT, 'images', f)).equals(fs.readFileSync(path.join(s.tree, 'usr/share/mcp-sandbox/images', f))), `images/${f}`);
  const gz = files.filter((f) => f.startsWith('/usr/share/man/'));
  assert.ok(gz.length >= 2 && gz.every((f) => f.endsWith('/') || f.endsWith('.gz')), `man pages gzipped: ${gz}`);

  assert.equal(await field(s.deb, 'Package'), 'mcp-sandbox');
  const cmake = fs.readFileSync(path.join(ROOT, 'CMakeLists.txt'), 'utf8');
  assert.equal(await field(s.deb, 'Version'), cmake.match(/project\(mcp-sandbox VERSION ([0-9.]+)/)[1]);
  const depends = (await field(s.deb, 'Depends')).split(/,\s*/).map((d) => d.split(' ')[0]);
  for (const lib of ['libc6', 'libuv1', 'libcjson1', 'libcurl4', 'libinih1', 'libseccomp2', 'libssl3'])
    assert.ok(depends.includes(lib), `Depends names ${lib}: ${depends}`);
  assert.equal(await field(s.deb, 'Recommends'), 'docker.io | docker-ce');
  assert.match(await field(s.deb, 'Maintainer'), /^[^<>]+ <[^<>@\s]+@[^<>\s]+>$/);
});

ptest('apt installs it in a clean Debian 12; --version names the version, the git revision and the plugin ABI', async (s) => {
  const st = (await inBox(['dpkg-query', '-W', '-f=${Status} ${Version}', 'mcp-sandbox'])).stdout;
  assert.equal(st, `install ok installed ${await field(s.deb, 'Version')}`);
  assert.equal((await inBox(['sh', '-c', 'command -v mcp-sandbox'])).stdout.trim(), '/usr/bin/mcp-sandbox');
  const v = (await inBox(['mcp-sandbox', '--version'])).stdout;
  const m = v.match(/^mcp-sandbox (\S+) \(revision (\S+), plugin ABI (\d+)\.(\d+)\)\n$/);
  assert.ok(m, `--version: ${JSON.stringify(v)}`);
  assert.equal(m[1], await field(s.deb, 'Version'));
  // What cmake/revision.cmake asks git, with or without -dirty (the tree
  // may change while the test runs).
  const rev = (await run('git', ['-C', ROOT, 'describe', '--always', '--abbrev=12'])).stdout.trim();
  assert.equal(m[2].replace(/-dirty$/, ''), rev, 'the revision the package was built from');
  const h = fs.readFileSync(path.join(ROOT, 'sdk/include/mcp-sandbox/plugin.h'), 'utf8');
  assert.equal(m[3], h.match(/#define SBX_PLUGIN_ABI_MAJOR (\d+)/)[1]);
  assert.equal(m[4], h.match(/#define SBX_PLUGIN_ABI_MINOR (\d+)/)[1]);
});

ptest('man mcp-sandbox and man 5 sandbox.ini show the pages', async () => {
  // Plain text: no overstrike (man-db keeps it when its output is no
  // terminal only on request, but a pager setting could ask).
  const man = async (...a) => (await inBox(['env', 'MANWIDTH=80', 'man', ...a])).stdout.replace(/.\x08/g, '');
  const one = await man('mcp-sandbox');
  assert.match(one, /^NAME\n\s+mcp-sandbox - run code for AI assistants/m);
  for (const cmd of ['run', 'install', 'cache list', 'audit verify', 'blocklist', 'doctor', 'check-config'])
    assert.match(one, new RegExp(`^\\s+mcp-sandbox .*${cmd}`, 'm'), `SYNOPSIS names ${cmd}`);
  const five = await man('5', 'sandbox.ini');
  assert.match(five, /^NAME\n\s+sandbox.ini - configuration of mcp-sandbox/m);
  assert.match(five, /^\[limits\]$/m);
});

ptest('/etc/mcp-sandbox/sandbox.ini is a conffile: an edit survives reinstalling the package', async (s) => {
  const conf = (await inBox(['dpkg-query', '-W', '-f=${Conffiles}', 'mcp-sandbox'])).stdout.trim();
  const md5 = createHash('md5').update(fs.readFileSync(path.join(ROOT, 'sandbox.ini'))).digest('hex');
  assert.equal(conf, `/etc/mcp-sandbox/sandbox.ini ${md5}`);
  await inBox(['sh', '-c', 'printf "[limits]\\ntimeout_ms = 45000\\n" >>/etc/mcp-sandbox/sandbox.ini']);
  await inBox(['dpkg', '-i', `/tmp/${s.debName}`], { timeoutMs: 120_000 });
  const ini = (await inBox(['cat', '/etc/mcp-sandbox/sandbox.ini'])).stdout;
  assert.match(ini, /\ntimeout_ms = 45000\n$/, 'the edit is kept');
  const cc = await inBox(['mcp-sandbox', 'check-config']);
  assert.match(cc.stderr, /^\/etc\/mcp-sandbox\/sandbox.ini: 0 problem\(s\)/m);
});

ptest('doctor --json: the plugins, the engine through the socket, the images and the agent they carry', async (s) => {
  const d = await inBox(['mcp-sandbox', 'doctor', '--json', '--no-registries'], { ok: [0, 1] });
  const report = JSON.parse(d.stdout);
  const check = (name) => report.find((r) => r.check === name) ?? assert.fail(`no check "${name}" in ${d.stdout}`);
  assert.deepEqual(check('config'), { check: 'config', status: 'ok', detail: '/etc/mcp-sandbox/sandbox.ini' });
  const nplugins = fs.readdirSync(path.join(s.tree, 'usr/lib/mcp-sandbox/plugins')).filter((f) => f.endsWith('.so')).length;
  assert.deepEqual(check('plugins'), { check: 'plugins', status: 'ok', detail: `${nplugins} loaded` });
  assert.equal(check('state directory').status, 'ok');
  assert.equal(check('engine').status, 'ok');
  assert.match(check('engine').detail, /^Docker \S+ at unix:\/\/\/var\/run\/docker\.sock, API /);
  // The agent the installed binary found (/usr/libexec/mcp-sandbox)
  // against the one each image is labelled with.
  const agent = createHash('sha256').update(fs.readFileSync(path.join(s.tree, 'usr/libexec/mcp-sandbox/sbx-agent'))).digest('hex');
  for (const lang of ['python', 'bash']) {
    const image = `mcp-sandbox/${lang}:latest`;
    const label = (await dockerGet(`/images/${encodeURIComponent(image)}/json`)).body.Config.Labels['org.mcp-sandbox.agent-sha256'];
    assert.deepEqual(check(`image ${lang}`), label === agent
      ? { check: `image ${lang}`, status: 'ok', detail: `${image}, with this server's agent` }
      : { check: `image ${lang}`, status: 'warn', detail: `${image} carries another agent build than this server's`, fix: `/usr/share/mcp-sandbox/scripts/build-images.sh ${lang}` });
  }
  assert.equal(d.code, report.some((r) => r.status === 'fail') ? 1 : 0);
});

ptest('mcp-sandbox run: bash and python code run in sandboxes of the host engine, which are removed after', async (s) => {
  const b = await inBox(['mcp-sandbox', 'run', 'bash', '-c', 'echo "hello from $(id -un) in the package"; exit 3'], { ok: [3], timeoutMs: 120_000 });
  assert.equal(b.stdout, 'hello from sandbox in the package\n');
  const p = await inBox(['mcp-sandbox', 'run', 'python', '-c', 'print(sum(range(10)))'], { timeoutMs: 120_000 });
  assert.equal(p.stdout, '45\n');
  const j = await inBox(['mcp-sandbox', 'run', 'python', '--json', '-'], { input: 'import sys\nprint(sys.version_info.major, 6 * 7)\n', timeoutMs: 120_000 });
  const r = JSON.parse(j.stdout);
  assert.equal(r.exitCode, 0, j.stdout);
  assert.equal(r.stdout, '3 42\n');
  const left = (await run('docker', ['ps', '-aq', '--filter', `label=org.mcp-sandbox.pidns=${s.pidns}`])).stdout.trim();
  assert.equal(left, '', 'a one-off run removes its sandbox');
});

ptest('the installed server serves MCP on stdio and runs a tool call', async () => {
  const server = spawn('docker', ['exec', '-i', '-e', 'SANDBOX_POOL_SIZE=0', NAME, 'mcp-sandbox'], { stdio: ['pipe', 'pipe', 'pipe'] });
  const msgs = [];
  let buf = '';
  let stderr = '';
  let exited = null;
  server.stdout.on('data', (c) => {
    buf += c;
    for (let i; (i = buf.indexOf('\n')) >= 0; buf = buf.slice(i + 1)) msgs.push(JSON.parse(buf.slice(0, i)));
  });
  server.stderr.on('data', (c) => (stderr += c));
  server.on('close', (code) => (exited = code));
  const send = (m) => server.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
  const answer = (id, what) => waitFor(() => msgs.find((m) => m.id === id), { timeoutMs: 60_000, what });
  try {
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'package.test', version: '0' } } });
    const init = await answer(1, 'the answer to initialize');
    assert.equal(init.result.serverInfo.name, 'mcp-sandbox');
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/list' });
    const tools = (await answer(2, 'the tool list')).result.tools.map((t) => t.name);
    assert.ok(tools.includes('sandbox_execute'), tools.join(' '));
    send({ id: 3, method: 'tools/call', params: { name: 'sandbox_execute', arguments: { language: 'python', code: 'print(7 * 6)' } } });
    const call = (await answer(3, 'the sandbox_execute result')).result;
    assert.equal(call.isError, false, JSON.stringify(call));
    assert.equal(JSON.parse(call.content[0].text).stdout, '42\n');
    server.stdin.end();
    await waitFor(() => exited !== null, { timeoutMs: 60_000, what: 'the server to exit after stdin closed' });
    assert.equal(exited, 0);
    assert.match(stderr, /shutdown: \d+ containers removed/);
  } catch (e) {
    server.kill();
    e.message += `\n--- server stderr\n${stderr.slice(-6000)}`;
    throw e;
  }
});

ptest('a plugin built with the packaged SDK (pkg-config, sdk/example) loads into the installed server', async (s) => {
  // The SDK as the package installs it, used from the extracted tree:
  // pkg-config finds the header there and prints the plugin directory.
  const pc = { PKG_CONFIG_PATH: path.join(s.tree, 'usr/share/pkgconfig'), PKG_CONFIG_SYSROOT_DIR: s.tree, PKG_CONFIG_ALLOW_SYSTEM_CFLAGS: '1' };
  const cflags = (await run('pkg-config', ['--cflags', 'mcp-sandbox-plugin'], { env: pc })).stdout.trim().split(/\s+/);
  assert.deepEqual(cflags, [`-I${s.tree}/usr/include`]);
  const plugindir = (await run('pkg-config', ['--variable=plugindir', 'mcp-sandbox-plugin'], { env: { PKG_CONFIG_PATH: pc.PKG_CONFIG_PATH } })).stdout.trim();
  assert.equal(plugindir, '/usr/lib/mcp-sandbox/plugins');
  const abi = (await run('pkg-config', ['--variable=abi', 'mcp-sandbox-plugin'], { env: { PKG_CONFIG_PATH: pc.PKG_CONFIG_PATH } })).stdout.trim();
  assert.equal(abi, PLUGIN_ABI);
  const so = path.join(s.dir, 'perl.so');
  await run('cc', ['-shared', '-fPIC', '-fvisibility=hidden', '-Wl,-z,defs', '-Wall', '-Werror', ...cflags,
    '-o', so, path.join(s.tree, 'usr/share/mcp-sandbox/sdk/example/perl.c')]);
  await run('docker', ['cp', so, `${NAME}:${plugindir}/perl.so`]);
  try {
    const cc = await inBox(['mcp-sandbox', 'check-config']);
    const n = fs.readdirSync(path.join(s.tree, 'usr/lib/mcp-sandbox/plugins')).filter((f) => f.endsWith('.so')).length;
    assert.match(cc.stderr, new RegExp(`${n + 1} plugin\\(s\\) loaded, 0 rejected`), cc.stderr);
    const b = await inBox(['mcp-sandbox', 'blocklist', 'perl', '-'], { input: 'use IO::Socket;\n', ok: [1] });
    assert.match(b.stdout, /^-:1:1: network modules are not available \(`use IO::Socket`\)$/m, b.stdout);
  } finally {
    await inBox(['rm', '-f', `${plugindir}/perl.so`]);
  }
});
