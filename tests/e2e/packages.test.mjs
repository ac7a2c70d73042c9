// Packages (docs/packages.md): sandbox_install and sandbox_execute's
// `packages`, installed in a container of their own behind the egress
// proxy, kept in the cache volume under the set's key, mounted read-only
// into sandboxes that still have no network. npm goes to the real registry
// (the one the image's npm is configured with, reached through the proxy
// with the host's CA bundle); pip goes to an index of wheels this test
// builds and serves from a container on the install network, which only
// the egress proxy joins: the install container has no network, and
// install-time code that ignores the proxy reaches nothing.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { BIN, e2e, runResult, toolError } from './lib/server.mjs';
import { install, installOk, onVolume, packageEnv, pipIndexEnv, volumeKeys } from './lib/packages.mjs';
import { createSession, sessionExecCall, sessionResult } from './lib/sessions.mjs';
import { docker } from './lib/registry.mjs';

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
  // typescript has javascript's installer in the same image: the same set,
  // not a second download.
  const ts = await installOk(s, { language: 'typescript', packages: ['is-odd@3.0.1'] });
  assert.deepEqual([ts.language, ts.cached, ts.key, ts.connections], ['typescript', true, first.key, undefined]);

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
    code: "import os from 'node:os'; import fs from 'node:fs';\nconsole.log(fs.readdirSync('/sys/class/net').join(','));\ntry { fs.writeFileSync(require.resolve('is-odd'), 'x'); console.log('written'); } catch (e) { console.log(e.code); }",
  }, { requestTimeoutMs: 120_000 }));
  assert.equal(net.stdout, 'lo\nEROFS\n', net.stderr);
  // Without packages the set is not there.
  const none = runResult(await s.call({ language: 'javascript', code: "import('is-odd').then(() => console.log('found'), (e) => console.log(e.code));" }));
  assert.equal(none.stdout, 'ERR_MODULE_NOT_FOUND\n');

  // typecheck sees the installed set: a package's own declarations
  // (dayjs) and an @types package (lodash's), right and wrong.
  const typedSet = ['dayjs@1.11.13', 'lodash@4.17.21', '@types/lodash@4.17.13'];
  const checked = async (code) => runResult(await s.call({ language: 'typescript', typecheck: true, packages: typedSet, code }, { requestTimeoutMs: 240_000 }));
  const typed = await checked("import dayjs from 'dayjs';\nimport _ from 'lodash';\nconst n: number = _.sum([1, 2]);\nconsole.log(n, dayjs('2024-01-02').format('YYYY'));");
  assert.deepEqual([typed.phase, typed.exitCode, typed.stdout], ['run', 0, '3 2024\n'], typed.stderr);
  const wrong = await checked("import dayjs from 'dayjs';\nimport _ from 'lodash';\nconst s: string = _.sum([1, 2]);\nconst d: number = dayjs();\nconsole.log(s, d);");
  assert.equal(wrong.phase, 'build');
  assert.match(wrong.stderr, /main\.ts\(3,7\): error TS2322: Type 'number' is not assignable to type 'string'/);
  assert.match(wrong.stderr, /main\.ts\(4,7\): error TS2322: Type 'Dayjs' is not assignable to type 'number'/);

  // A session created with the set: its interpreter imports it, by ES
  // import and require(), from the cache (nothing downloaded).
  const created = await s.client.callTool({ name: 'sandbox_session', arguments: { action: 'create', language: 'javascript', name: 'jspkgs', packages: ['is-odd@3.0.1'] } }, undefined, { timeout: 240_000 });
  assert.equal(created.isError ?? false, false, created.content?.[0]?.text);
  assert.equal(created.structuredContent.installed.cached, true);
  assert.deepEqual(created.structuredContent.session.packages, [first.key]);
  const cell = sessionResult(await sessionExecCall(s, 'jspkgs', "import isOdd from 'is-odd';\nconst n = require('is-number');\nconsole.log(isOdd(5), n(1));"), 'jspkgs');
  assert.equal(cell.stdout, 'true true\n', cell.stderr);
});

e2e('packages: pip from a local index on the install network; bad specs refused before anything runs', { timeoutMs: 600_000 }, async (h) => {
  const p = pipIndexEnv(h, [['sbxdemo', '1.0', "def hello():\n    return 'hello from sbxdemo'\n"]]);
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

e2e('packages: pip into python-ml from a local index: a one-off run, a new session and a running one import the set', { timeoutMs: 600_000 }, async (h) => {
  const p = pipIndexEnv(h, [['sbxmldemo', '1.0', "def hello():\n    return 'hello from sbxmldemo'\n"]], { languages: ['python-ml'], extra: { SANDBOX_POOL_SIZE: '0' } });
  const s = await h.start({ env: p.env });

  // python with ml: true names python-ml's installer (as sandbox_execute
  // does): pip, in a container of the python-ml image, through the proxy.
  const first = await installOk(s, { language: 'python', ml: true, packages: ['SBXMLDemo==1.0'] });
  assert.deepEqual([first.language, first.cached, first.specs], ['python-ml', false, ['sbxmldemo==1.0']]);
  assert.deepEqual(first.packages.map((x) => [x.name, x.version, x.requested]), [['sbxmldemo', '1.0', true]]);
  assert.match(first.installer, /^pip \d+\./);
  assert.ok(first.connections.some((c) => c.host === 'pypi-local' && c.port === 8080 && c.allowed), JSON.stringify(first.connections));

  // A one-off run through the fork server: the set on sys.path beside the
  // preloaded libraries, read-only.
  const code = 'import sbxmldemo, torch\nprint(sbxmldemo.hello(), sbxmldemo.__file__.startswith("/opt/sbx/pkgs/"), torch.tensor([2]).item())';
  const run = runResult(await s.call({ language: 'python-ml', packages: ['sbxmldemo==1.0'], code }, { requestTimeoutMs: 180_000 }));
  assert.equal(run.stdout, 'hello from sbxmldemo True 2\n', run.stderr);
  assert.deepEqual([run.language, run.packages.cached, run.packages.key], ['python-ml', true, first.key]);

  // A session created with the set, and one given it while it runs: its
  // interpreter keeps its variables.
  const created = await s.client.callTool({ name: 'sandbox_session', arguments: { action: 'create', language: 'python', ml: true, name: 'mlnew', packages: ['sbxmldemo==1.0'] } }, undefined, { timeout: 240_000 });
  assert.equal(created.isError ?? false, false, created.content?.[0]?.text);
  assert.deepEqual([created.structuredContent.installed.cached, created.structuredContent.session.packages], [true, [first.key]]);
  assert.equal(sessionResult(await sessionExecCall(s, 'mlnew', 'import sbxmldemo\nprint(sbxmldemo.hello())', { requestTimeoutMs: 180_000 }), 'mlnew').stdout, 'hello from sbxmldemo\n');
  await createSession(s, 'python', { name: 'mlpkgs', ml: true });
  const before = sessionResult(await sessionExecCall(s, 'mlpkgs', 'x = 41\ntry:\n    import sbxmldemo\nexcept ImportError:\n    print("not yet")', { requestTimeoutMs: 180_000 }), 'mlpkgs');
  assert.equal(before.stdout, 'not yet\n', before.stderr);
  const into = await installOk(s, { session: 'mlpkgs', language: 'python', packages: ['sbxmldemo==1.0'] });
  assert.deepEqual([into.session, into.language, into.cached, into.key], ['mlpkgs', 'python-ml', true, first.key]);
  const after = sessionResult(await sessionExecCall(s, 'mlpkgs', 'import sbxmldemo\nprint(x + 1, sbxmldemo.hello())'), 'mlpkgs');
  assert.equal(after.stdout, '42 hello from sbxmldemo\n', after.stderr);
  assert.equal(after.stateKept, true);
});

e2e('packages: [packages] network = none turns installs off with a clear error', { timeoutMs: 60_000 }, async (h) => {
  const s = await h.start({ env: { SANDBOX_PACKAGES_NETWORK: 'none', SANDBOX_POOL_WARM_AT_START: '' } });
  const e = toolError(await install(s, { language: 'python', packages: ['requests'] }));
  assert.equal(e.code, 'installs_disabled');
  const x = toolError(await s.call({ language: 'python', packages: ['requests'], code: 'print(1)' }));
  assert.equal(x.code, 'installs_disabled');
});

e2e('packages: the cache tells the truth: one install for concurrent requests, any order of specs, LRU past the cap, a volume removed under the server', { timeoutMs: 600_000 }, async (h) => {
  // 1.5 MB each (files over 1 MB, as real packages have): two of them
  // are over a 2 MB cache. A pool floor of 0: the containers removed
  // below are not replaced.
  const p = pipIndexEnv(h, [['pa', '1.0', 'A = 1\n', 1_500_000], ['pb', '1.0', 'B = 2\n', 1_500_000]],
    { extra: { SANDBOX_PACKAGES_CACHE_MAX_MB: '2', SANDBOX_POOL_SIZE: '0' } });
  const s = await h.start({ env: p.env });

  // Two requests for one set at once: one install, both answered by it.
  const [x, y] = await Promise.all([installOk(s, { language: 'python', packages: ['pa==1.0'] }), installOk(s, { language: 'python', packages: ['pa==1.0'] })]);
  assert.equal(x.key, y.key);
  assert.deepEqual([x.cached, y.cached], [false, false]);
  assert.deepEqual(x.connections, y.connections, 'the same install answered both');
  assert.equal(s.stderr.split(`as ${x.key.slice(0, 12)} `).length - 1, 1, 'one install ran');
  assert.deepEqual(await volumeKeys(s), [x.key]);

  // The second set takes the cache over its cap: the first goes.
  const b = await installOk(s, { language: 'python', packages: ['pb==1.0'] });
  assert.equal(b.cached, false);
  assert.deepEqual(await volumeKeys(s), [b.key], 'the least recently used set was removed from the volume');
  const again = await installOk(s, { language: 'python', packages: ['pa==1.0'] });
  assert.deepEqual([again.key, again.cached], [x.key, false], 'an evicted set is installed again, not reported cached');

  // A set is the same whatever the order of its specs.
  const ab = await installOk(s, { language: 'python', packages: ['pb==1.0', 'PA==1.0'] });
  const ba = await installOk(s, { language: 'python', packages: ['pa==1.0', 'pb==1.0', 'pa==1.0'] });
  assert.deepEqual([ab.key, ab.cached, ba.key, ba.cached], [ab.key, false, ab.key, true]);
  assert.deepEqual(ab.specs, ['pa==1.0', 'pb==1.0']);

  // The volume removed under the running server (its containers first,
  // as Docker keeps a volume in use): the next request finds it new and
  // installs again; the run after it imports the set.
  for (const c of docker('ps', '-aq', '--filter', `volume=${p.volume}`).split('\n').filter(Boolean)) docker('rm', '-f', c);
  docker('volume', 'rm', p.volume);
  const fresh = await installOk(s, { language: 'python', packages: ['pa==1.0'] });
  assert.deepEqual([fresh.key, fresh.cached], [x.key, false]);
  const run = runResult(await s.call({ language: 'python', packages: ['pa==1.0'], code: 'import pa\nprint(pa.A)' }, { requestTimeoutMs: 120_000 }));
  assert.equal(run.stdout, '1\n', run.stderr);
});

e2e('packages: the CLI installs into the cache, lists it and prunes it; any state directory lists what the volume holds', { timeoutMs: 300_000 }, async (h) => {
  const p = pipIndexEnv(h, [['clidemo', '2.0', 'V = 2\n']]);
  const cliIn = (env, ...args) => spawnSync(BIN, args, { env: { ...process.env, ...p.env, ...env }, encoding: 'utf8', timeout: 240_000 });
  const cli = (...args) => cliIn({}, ...args);

  const first = cli('install', 'python', 'CliDemo==2.0', '--json');
  assert.equal(first.status, 0, first.stderr);
  const out = JSON.parse(first.stdout);
  assert.deepEqual([out.cached, out.specs, out.packages.map((x) => [x.name, x.version])], [false, ['clidemo==2.0'], [['clidemo', '2.0']]]);
  const again = JSON.parse(cli('install', 'python', 'clidemo==2.0', '--json').stdout);
  assert.deepEqual([again.cached, again.key], [true, out.key]);
  const listed = JSON.parse(cli('cache', 'list', '--json').stdout);
  assert.deepEqual(listed.sets.map((x) => x.key), [out.key]);
  assert.equal(listed.volume, p.volume);
  const [set] = listed.sets;
  assert.deepEqual([set.language, set.specs, set.installer.split(' ')[0], set.packages.map((x) => x.name)],
    ['python', ['clidemo==2.0'], 'pip', ['clidemo']]);
  assert.ok(set.bytes > 0 && listed.bytes === set.bytes, 'its size is counted');
  assert.equal(typeof set.lastUsed, 'number', 'this state directory used it');

  // A server started now finds the set in the cache.
  const s = await h.start({ env: p.env });
  const run = runResult(await s.call({ language: 'python', packages: ['clidemo==2.0'], code: 'import clidemo\nprint(clidemo.V)' }, { requestTimeoutMs: 120_000 }));
  assert.deepEqual([run.stdout, run.packages.cached], ['2\n', true]);
  await s.close();

  // A server with an index of its own (another state directory) finds the
  // set in the volume: nothing is downloaded, so it is cached.
  const other = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-pkg-state-'));
  h.t.after(() => fs.rmSync(other, { recursive: true, force: true }));
  const s2 = await h.start({ env: { ...p.env, SANDBOX_SESSIONS_STATE_DIR: other } });
  const found = await installOk(s2, { language: 'python', packages: ['clidemo==2.0'] });
  assert.deepEqual([found.key, found.cached, found.packages.map((x) => x.name)], [out.key, true, ['clidemo']]);
  assert.equal((found.connections ?? []).length, 0, 'nothing went through the proxy');
  await s2.close();

  // Pruned from a state directory that never saw the set: the count is
  // the volume's.
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-pkg-state-'));
  h.t.after(() => fs.rmSync(empty, { recursive: true, force: true }));
  const pruned = cliIn({ SANDBOX_SESSIONS_STATE_DIR: empty }, 'cache', 'prune');
  assert.equal(pruned.status, 0, pruned.stderr);
  assert.match(pruned.stdout, /^removed 1 package set\(s\), [1-9]\d* bytes$/m, pruned.stdout);
  // This state directory's prune finds nothing left in the volume, and
  // its index forgets the set.
  assert.match(cli('cache', 'prune').stdout, /^removed 0 package set\(s\), 0 bytes$/m);
  assert.deepEqual(JSON.parse(cli('cache', 'list', '--json').stdout).sets, []);
  const bad = cli('install', 'python', 'x;y');
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /invalid_package/);

  // `cache list` reads the volume, not the state directory: a state
  // directory that installed nothing lists what another one installed,
  // and a set an older server stored (its manifest only, here a long one:
  // more than a line of the engine's log) is listed by both.
  const mine = JSON.parse(cli('install', 'python', 'clidemo==2.0', '--json').stdout);
  assert.equal(mine.cached, false, 'the prune removed it');
  const old = 'e'.repeat(64);
  const oldPackages = Array.from({ length: 400 }, (_, i) => ({ name: `old-dependency-${i}`, version: '1.0.0', requested: i === 0, bytes: 100 }));
  onVolume(p.volume, 'mkdir "/v/$1" && printf %s "$2" > "/v/$1/manifest.json"', old,
    JSON.stringify({ installer: 'pip 23.0', packages: oldPackages }));
  const listIn = (env) => {
    const r = cliIn(env, 'cache', 'list', '--json');
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout);
  };
  const fresh = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-pkg-state-'));
  h.t.after(() => fs.rmSync(fresh, { recursive: true, force: true }));
  const here = listIn({});
  const there = listIn({ SANDBOX_SESSIONS_STATE_DIR: fresh });
  const keys = [mine.key, old].sort();
  assert.deepEqual(here.sets.map((x) => x.key).sort(), keys);
  assert.deepEqual(there.sets.map((x) => x.key).sort(), keys, 'a state directory that installed nothing lists the same sets');
  // What the volume knows is the same from every state directory; the
  // last use is each one's own.
  const strip = (l) => l.sets.map(({ lastUsed, ...rest }) => rest);
  assert.deepEqual(strip(there), strip(here));
  assert.deepEqual(strip(listIn({ SANDBOX_SESSIONS_STATE_DIR: other })), strip(here));
  assert.equal(there.bytes, here.bytes);
  const by = (l, k) => l.sets.find((x) => x.key === k);
  assert.deepEqual([by(there, mine.key).language, by(there, mine.key).specs, by(there, mine.key).lastUsed], ['python', ['clidemo==2.0'], null]);
  assert.equal(typeof by(here, mine.key).lastUsed, 'number');
  const o = by(there, old);
  assert.deepEqual([o.language, o.specs, o.installer, o.packages.length, o.bytes], [null, null, 'pip 23.0', 400, 40_000]);
  assert.ok(o.created > 0, 'its directory dates it');
  const text = cliIn({ SANDBOX_SESSIONS_STATE_DIR: fresh }, 'cache', 'list');
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, new RegExp(`^${mine.key.slice(0, 12)}  python +\\d+  \\["clidemo==2.0"\\]$`, 'm'));
  assert.match(text.stdout, new RegExp(`^${old.slice(0, 12)}  - +40000  -$`, 'm'));
  assert.match(text.stdout, new RegExp(`^2 set\\(s\\), ${here.bytes} of \\d+ bytes, volume ${p.volume}$`, 'm'));

  // A set removed from the volume (this state directory's index still
  // has it) leaves every listing.
  onVolume(p.volume, 'rm -rf "/v/$1"', mine.key);
  assert.deepEqual(listIn({}).sets.map((x) => x.key), [old]);
  assert.deepEqual(listIn({ SANDBOX_SESSIONS_STATE_DIR: fresh }).sets.map((x) => x.key), [old]);
  // The listing's helper is gone, and it wrote nothing.
  assert.equal(docker('ps', '-aq', '--filter', `volume=${p.volume}`), '');
  assert.deepEqual(onVolume(p.volume, 'cd /v && ls -A').split('\n'), [old]);

  // No engine: said so, and no list from the index instead.
  const down = cliIn({ DOCKER_HOST: 'unix:///nonexistent/docker.sock' }, 'cache', 'list', '--json');
  assert.equal(down.status, 1);
  assert.equal(down.stdout, '');
  assert.match(down.stderr, /docker_unavailable: listing the package volume .* failed: cannot connect/);
});
