// mcp-sandbox doctor (host/cli/doctor.c): every check against what this
// machine really has, the exit status saying whether a server can run,
// each failure with its fix; the installers' registries, checked through
// an egress proxy against registries of the test's own; and the same
// checks in a server's start-up log.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dockerGet } from './lib/docker.mjs';
import { packageEnv } from './lib/packages.mjs';
import { addWheel, docker, serveRegistry } from './lib/registry.mjs';
import { BIN, PLUGIN_ABI, ROOT, e2e } from './lib/server.mjs';
import { waitFor } from './lib/wait.mjs';

// The registries are left out but where a test is about them: they are
// this machine's own only when the test serves them.
function doctor(env = {}, args = ['--json', '--no-registries']) {
  const r = spawnSync(BIN, ['doctor', ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, report: args.includes('--json') && r.stdout ? JSON.parse(r.stdout) : null };
}

e2e('doctor on this machine: every check as the engine and the host say, the runtime judged by its version, exit 0', { timeoutMs: 120_000 }, async () => {
  const { status, report, stderr } = doctor();
  assert.equal(status, 0, stderr);
  const by = Object.fromEntries(report.map((c) => [c.check, c]));
  for (const k of ['config', 'plugins', 'state directory', 'engine', 'cgroups', 'seccomp', 'runtime', 'disk'])
    assert.ok(by[k], `check ${k}: ${JSON.stringify(report)}`);
  const version = (await dockerGet('/version')).body;
  const info = (await dockerGet('/info')).body;
  assert.equal(by.engine.status, 'ok');
  assert.match(by.engine.detail, new RegExp(`^Docker ${version.Version.replace(/[.+]/g, '\\$&')} at unix://`));
  assert.equal(by.cgroups.status, 'ok');
  assert.match(by.cgroups.detail, new RegExp(`^cgroup v${info.CgroupVersion ?? '1'} `));
  assert.equal(by.seccomp.status, 'ok');
  const runc = version.Components.find((c) => c.Name === 'runc');
  const runcVersion = /\./.test(runc.Details?.GitCommit ?? '') ? runc.Details.GitCommit : runc.Version;
  assert.ok(by.runtime.detail.includes(runcVersion), by.runtime.detail);
  // Debian 12's runc carries CVE-2024-21626's fix and none of November 2025's.
  if (/^1\.1\.5\+ds1-1\+deb12u1$/.test(runcVersion)) {
    assert.equal(by.runtime.status, 'warn');
    assert.match(by.runtime.detail, /CVE-2025-31133 CVE-2025-52565 CVE-2025-52881$/);
    assert.doesNotMatch(by.runtime.detail, /CVE-2024-21626/);
    assert.match(by.runtime.fix, /runc 1\.2\.8, 1\.3\.3, 1\.4\.0 or later/);
  }
  for (const lang of ['python', 'python-ml', 'javascript', 'typescript', 'go', 'rust', 'bash'])
    assert.notEqual(by[`image ${lang}`]?.status ?? 'fail', 'fail', JSON.stringify(by[`image ${lang}`]));
  assert.ok(report.every((c) => c.status === 'ok' || typeof c.fix === 'string'), 'every warning and failure says how to fix it');

  const text = doctor({}, ['--no-registries']);
  assert.equal(text.status, 0);
  assert.match(text.stdout, /^ok {4}engine {11}Docker /m);
  assert.match(text.stdout, /^the server can run here$/m);
});

e2e('doctor checks each installer\'s registries through an egress proxy: those that answer, and those that do not with how and what to set', { timeoutMs: 120_000 }, async (h) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-doc-reg-'));
  h.t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  addWheel(dir, 'x', '1.0', 'X = 1\n');
  const p = packageEnv(h, {
    SANDBOX_PYTHON_REGISTRY: 'http://pypi-local:8080/simple/',
    SANDBOX_PYTHON_ML_REGISTRY: 'http://pypi-local:8080/simple/',
    SANDBOX_GO_REGISTRY: 'http://pypi-local:8080/',
    // a host of the test's network where nothing listens on that port
    SANDBOX_JAVASCRIPT_REGISTRY: 'http://pypi-local:8081/',
    SANDBOX_TYPESCRIPT_REGISTRY: 'http://pypi-local:8081/',
    SANDBOX_RUST_REGISTRY: 'http://pypi-local:8082/index/',
  });
  docker('network', 'create', '--internal', p.network);
  serveRegistry(p.network, ['pypi-local'], dir);
  const r = doctor(p.env, ['--json']);
  assert.equal(r.status, 0, `registries that fail are warnings: ${r.stderr}`);
  const by = Object.fromEntries(r.report.filter((c) => c.check.startsWith('registries ')).map((c) => [c.check, c]));
  assert.deepEqual(Object.keys(by).sort(), ['registries go', 'registries javascript, typescript', 'registries python', 'registries python-ml', 'registries rust'], JSON.stringify(r.report));
  for (const k of ['registries python', 'registries python-ml', 'registries go'])
    assert.deepEqual([by[k].status, by[k].detail], ['ok', 'pypi-local:8080 answers through the egress proxy'], JSON.stringify(by[k]));
  const js = by['registries javascript, typescript'];
  assert.equal(js.status, 'warn');
  assert.equal(js.detail, 'registry unreachable: pypi-local:8081: refused the connection (TCP): installs of javascript, typescript will fail');
  assert.match(js.fix, /^check the mirror set as \[javascript\] registry = http:\/\/pypi-local:8081\/ \(SANDBOX_JAVASCRIPT_REGISTRY\), or change it; to reach it through a proxy, set \[packages\] upstream_proxy = host:port/);
  assert.equal(by['registries rust'].status, 'warn');
  assert.match(by['registries rust'].detail, /^registry unreachable: pypi-local:8082: refused the connection \(TCP\)/);
  // The check's proxies (on the test's network) are gone with it; the
  // suite's end finds any other container or volume left behind.
  assert.equal(docker('ps', '-aq', '--filter', `network=${p.network}`).split('\n').filter(Boolean).length, 1, 'only the registry is left');
});

e2e('doctor fails, with the fix, on a missing image, an engine that does not answer and a refused sandbox.ini', { timeoutMs: 120_000 }, async () => {
  let r = doctor({ SANDBOX_PYTHON_IMAGE: 'mcp-sandbox/no-such-image:latest' });
  assert.equal(r.status, 1);
  const img = r.report.find((c) => c.check === 'image python');
  assert.deepEqual([img.status, img.fix], ['fail', `${ROOT}/scripts/build-images.sh python`]);
  assert.match(img.detail, /no-such-image:latest: not built/);

  // A plugin from outside, whose recipe is not among the script's: the
  // fix names the recipe's directory, not a language the script lacks.
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-doctor-plugins-'));
  try {
    fs.copyFileSync(path.join(ROOT, 'build/tests/fixture-plugins/perl.so'), path.join(outside, 'perl.so'));
    fs.chmodSync(outside, 0o755);
    r = doctor({ SANDBOX_SERVER_PLUGINS_DIR: outside, SANDBOX_PERL_IMAGE: 'mcp-sandbox/perl-nope:latest' });
    const perl = r.report.find((c) => c.check === 'image perl');
    assert.equal(perl?.status, 'fail', JSON.stringify(r.report));
    assert.equal(perl.fix, `${ROOT}/scripts/build-images.sh DIR, DIR being the perl plugin's own image recipe (the directory with its Dockerfile: the recipes beside the script have none for perl)`);
    // A language of the tree's recipes (javascript: images/node's
    // languages file) is still fixed by its name.
    r = doctor({ SANDBOX_JAVASCRIPT_IMAGE: 'mcp-sandbox/no-such-image:latest' });
    assert.equal(r.report.find((c) => c.check === 'image javascript')?.fix, `${ROOT}/scripts/build-images.sh javascript`);
  } finally {
    fs.rmSync(outside, { recursive: true, force: true });
  }

  // check-config says the same of the images, as a problem.
  const cc = spawnSync(BIN, ['check-config'], { encoding: 'utf8', env: { ...process.env, SANDBOX_PYTHON_IMAGE: 'mcp-sandbox/no-such-image:latest' }, timeout: 60_000 });
  assert.equal(cc.status, 1, cc.stderr);
  assert.match(cc.stderr, new RegExp(`^image python: mcp-sandbox/no-such-image:latest: not built \\(fix: ${ROOT}/scripts/build-images\\.sh python\\)$`, 'm'));
  assert.match(cc.stderr, /, 1 image\(s\) missing\n/);

  r = doctor({ DOCKER_HOST: 'unix:///nonexistent/docker.sock' });
  assert.equal(r.status, 1);
  const engine = r.report.find((c) => c.check === 'engine');
  assert.equal(engine.status, 'fail');
  assert.match(engine.fix, /systemctl start docker/);
  assert.equal(r.report.some((c) => c.check.startsWith('image ')), false, 'no image is judged without an engine');

  r = doctor({ SANDBOX_LIMITS_WORK_MB: '100000' });
  assert.equal(r.status, 1, 'tmpfs sizes over the memory limit: the server would not start');
  assert.match(r.stderr, /the server would not start/);
});

e2e('a server runs the same checks at start-up and logs them; a cpu_millis above the engine\'s CPUs is clamped with a warning (log, doctor, check-config, sandbox_inspect) and calls run', { timeoutMs: 90_000 }, async (h) => {
  // More than any engine here has: every container start used to fail
  // with "Range of CPUs is from 0.01 to N.00".
  const cpuEnv = { SANDBOX_BASH_CPU_MILLIS: '256000' };
  const ncpu = (await dockerGet('/info')).body.NCPU;
  assert.ok(ncpu * 1000 < 256000, `an engine with ${ncpu} CPUs`);
  const s = await h.start({ env: { SANDBOX_POOL_SIZE: '0', ...cpuEnv } });
  await waitFor(() => /doctor: engine: Docker .* API /.test(s.stderr) && /doctor: runtime/.test(s.stderr), { timeoutMs: 30_000, what: 'the doctor lines in the log' });
  assert.match(s.stderr, /doctor: cgroups: cgroup v\d/);
  const r = await s.execute('bash', 'echo ran; nproc');
  assert.equal(r.exitCode, 0, JSON.stringify(r));
  assert.match(r.stdout, /^ran\n/);
  assert.match(s.stderr, new RegExp(`\\[bash\\] cpu_millis 256000 is more than engine \\S+ has \\(${ncpu} CPUs\\): its containers there get ${ncpu * 1000}`));
  const inspect = JSON.parse((await s.client.callTool({ name: 'sandbox_inspect', arguments: { what: 'limits' } })).content[0].text);
  assert.equal(inspect.limits.bash.cpuMillis, 256000);
  assert.deepEqual(Object.values(inspect.limits.bash.cpuMillisClamped), [ncpu * 1000]);
  assert.equal(inspect.limits.python?.cpuMillisClamped, undefined);

  const d = doctor(cpuEnv);
  assert.equal(d.status, 0, 'a warning, not a failure: the server runs');
  const cpu = d.report.find((c) => c.check === 'cpu');
  assert.equal(cpu.status, 'warn', JSON.stringify(d.report));
  assert.match(cpu.detail, new RegExp(`^bash: cpu_millis 256000 is more than the engine's ${ncpu} CPUs: its containers get ${ncpu * 1000}$`));
  assert.equal(cpu.fix, `set cpu_millis to at most ${ncpu * 1000} in [bash] of sandbox.ini (or [limits])`);
  assert.equal(doctor().report.find((c) => c.check === 'cpu').status, 'ok');
  const cc = spawnSync(BIN, ['check-config'], { encoding: 'utf8', env: { ...process.env, ...cpuEnv }, timeout: 60_000 });
  assert.match(cc.stderr, new RegExp(`\\[bash\\] cpu_millis 256000 is more than this host's ${os.availableParallelism()} CPUs`));
});

e2e('--version names the version, the git revision it was built from and the plugin ABI', { docker: false }, async () => {
  const r = spawnSync(BIN, ['--version'], { encoding: 'utf8' });
  assert.equal(r.status, 0);
  const m = r.stdout.match(/^mcp-sandbox (\d+\.\d+\.\d+) \(revision ([0-9a-f]{12}(?:-dirty)?|unknown), plugin ABI (\d+\.\d+)\)\n$/);
  assert.ok(m, r.stdout);
  const head = spawnSync('git', ['-C', ROOT, 'rev-parse', '--short=12', 'HEAD'], { encoding: 'utf8' });
  if (head.status === 0) assert.equal(m[2].replace(/-dirty$/, ''), head.stdout.trim());
  assert.equal(m[3], PLUGIN_ABI);
});
