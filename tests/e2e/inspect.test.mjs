// sandbox_inspect: the server's state read from where it lives. Each
// figure is checked against its source: the pool against the engine's own
// list of this server's containers, the engine against the engine's API,
// the limits against settings this test changes, the sessions against
// what the test created.
import assert from 'node:assert/strict';
import { dockerGet } from './lib/docker.mjs';
import { PLUGIN_ABI, e2e } from './lib/server.mjs';
import { serverContainers } from './lib/sandbox.mjs';
import { withStateDir } from './lib/sessions.mjs';
import { waitFor } from './lib/wait.mjs';

async function inspect(s, what) {
  const r = await s.client.callTool({ name: 'sandbox_inspect', arguments: what ? { what } : {} });
  assert.equal(r.isError ?? false, false, r.content?.[0]?.text);
  return JSON.parse(r.content[0].text);
}

e2e('sandbox_inspect limits and plugins show the effective settings: a changed setting is seen, the plugin default otherwise', { docker: false }, async (h) => {
  const changed = await h.start({ env: { SANDBOX_POOL_SIZE: '0', SANDBOX_PYTHON_MEMORY_MB: '768', SANDBOX_BASH_PIDS: '99', SANDBOX_PYTHON_BLOCKLIST: 'block', SANDBOX_LIMITS_TIMEOUT_MS: '4321', SANDBOX_LIMITS_RESULT_MAX_TOKENS: '5000', SANDBOX_BASH_STDOUT_CAP: '65536' } });
  const plain = await h.start({ env: { SANDBOX_POOL_SIZE: '0' } });
  const a = (await inspect(changed, 'limits')).limits;
  const b = (await inspect(plain, 'limits')).limits;
  assert.deepEqual([a.python.memoryMb, b.python.memoryMb], [768, 512]);
  assert.deepEqual([a.bash.pids, b.bash.pids], [99, 128]);
  assert.deepEqual([a.python.blocklist, b.python.blocklist, a.bash.blocklist], ['block', 'warn', 'warn']);
  assert.deepEqual([a.go.timeoutMs, b.go.timeoutMs], [4321, 30000]);
  assert.deepEqual([a.python.resultMaxTokens, b.python.resultMaxTokens], [5000, 10000]);
  assert.deepEqual([a.bash.stdoutCap, a.python.stdoutCap, b.bash.stderrCap], [65536, 4194304, 4194304]);
  assert.ok(a.python.blocklistRules > 0);
  assert.equal(a.python.network, 'none');
  const { plugins } = await inspect(plain, 'plugins');
  assert.deepEqual(plugins.map((p) => p.name).sort(), ['bash', 'go', 'javascript', 'python', 'python-ml', 'rust', 'typescript']);
  for (const p of plugins) {
    assert.equal(p.abi, PLUGIN_ABI, p.name);
    assert.equal(p.lexer, true, p.name);
    assert.match(p.file, new RegExp(`/${p.name}\\.so$`));
  }
  const by = Object.fromEntries(plugins.map((p) => [p.name, p]));
  assert.deepEqual([by.python.packages, by.python.sessionInterpreter, by.go.sessionInterpreter], ['pypi', true, false]);
  assert.deepEqual(by.rust.options, ['optimize']);
  assert.deepEqual(Object.keys(await inspect(plain, 'plugins')), ['plugins', 'rejectedPlugins'], 'one section asked, one given');
});

e2e('sandbox_inspect pool, engine and sessions agree with the engine and with what the test did', { timeoutMs: 120_000 }, async (h) => {
  const st = withStateDir(h);
  const s = await st.start({ SANDBOX_POOL_SIZE: '0', SANDBOX_PYTHON_POOL_SIZE: '2', SANDBOX_POOL_WARM_AT_START: 'python', SANDBOX_SESSIONS_MAX_SESSIONS: '5' });
  // The floor, warm, as the engine lists this server's containers.
  const pool = await waitFor(async () => {
    const p = (await inspect(s, 'pool')).pool.languages.python;
    return p.warm === 2 && p.starting === 0 ? p : null;
  }, { timeoutMs: 60_000, what: 'two warm python containers' });
  assert.equal(pool.floor, 2);
  assert.equal((await serverContainers(s.pid)).length, 2);
  assert.equal(pool.started, 2);
  await s.execute('python', 'print(1)');
  assert.ok((await inspect(s, 'pool')).pool.languages.python.started >= 2);

  const all = await inspect(s);
  assert.deepEqual(Object.keys(all).sort(), ['engine', 'engines', 'limits', 'plugins', 'pool', 'rejectedPlugins', 'sessions', 'tasks']);
  // One engine, the default: up, its load as the engine lists it, its
  // description the same as "engine".
  assert.equal(all.engines.length, 1);
  const [eng] = all.engines;
  assert.equal(eng.name, 'default');
  assert.equal(eng.health, 'up');
  assert.equal(eng.tls, false);
  // Same snapshot: every container of the pool's languages (those being
  // removed count until the engine confirms).
  const inPool = Object.values(all.pool.languages).reduce((n, l) => n + l.warm + l.inUse + l.starting + l.resetting, 0);
  assert.ok(eng.containers >= inPool && inPool >= 2, `${eng.containers} containers, ${inPool} in the pool`);
  assert.equal(eng.inUse, 0);
  assert.ok(eng.placed >= 1, JSON.stringify(eng));
  assert.deepEqual(eng.info, all.engine);
  const version = (await dockerGet('/version')).body;
  const info = (await dockerGet('/info')).body;
  assert.equal(all.engine.version, version.Version);
  assert.equal(all.engine.apiVersion, version.ApiVersion);
  assert.equal(all.engine.cgroupVersion, info.CgroupVersion ?? '1');
  assert.equal(all.engine.dataRoot, info.DockerRootDir);
  assert.equal(all.engine.enforces.pids, info.PidsLimit);
  assert.equal(all.engine.security.seccomp, true);
  assert.ok(all.engine.runtime.runc, JSON.stringify(all.engine.runtime));

  assert.deepEqual([all.sessions.open, all.sessions.max], [0, 5]);
  const created = await s.client.callTool({ name: 'sandbox_session', arguments: { action: 'create', language: 'bash', name: 'ins' } });
  assert.equal(created.isError ?? false, false, created.content?.[0]?.text);
  // Its memory as last measured: there about a second after create.
  const sessions = await waitFor(async () => {
    const x = (await inspect(s, 'sessions')).sessions;
    return x.list[0]?.memoryBytes !== undefined ? x : null;
  }, { timeoutMs: 30_000, what: 'the session\'s memory figure' });
  assert.equal(sessions.open, 1);
  assert.equal(sessions.list[0].name, 'ins');
  assert.ok(sessions.list[0].memoryBytes > 0, JSON.stringify(sessions.list[0]));
  assert.ok(Number.isInteger(sessions.list[0].memoryAgeMs), JSON.stringify(sessions.list[0]));
});
