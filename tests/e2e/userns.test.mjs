// User-namespace remapping (docs/security.md, "The sandbox uid and the
// host's accounts"): the server against an engine of the test's own,
// started with --userns-remap=default, its own data root, exec root,
// socket and bridge (lib/engines.mjs: no iptables rules, no other network
// touched). The
// sandbox user is uid 1000 inside and a subordinate uid on the host; the
// agent (root inside) is no root on the host; the start-up checks say the
// engine remaps; runs, sessions and file operations work as on any engine.
//
// dockerd creates the system user "dockremap" and its /etc/subuid and
// /etc/subgid ranges the first time (what a user's own set-up does).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { dockerGet } from './lib/docker.mjs';
import { startEngine } from './lib/engines.mjs';
import { IN_CI, e2e, runResult } from './lib/server.mjs';
import { withStateDir } from './lib/sessions.mjs';
import { waitFor } from './lib/wait.mjs';

const IMAGE = 'mcp-sandbox/bash:latest';

/** The first subordinate uid of the user dockerd remaps to. */
function subuidStart() {
  const line = fs.readFileSync('/etc/subuid', 'utf8').split('\n').find((l) => l.startsWith('dockremap:'));
  assert.ok(line, '/etc/subuid has a range for dockremap');
  return Number(line.split(':')[1]);
}

e2e('with userns-remap the sandbox user and the agent are unprivileged subordinate uids on the host, and everything works', { timeoutMs: 240_000 }, async (h) => {
  if (process.getuid() !== 0) {
    if (IN_CI) throw new Error('this test starts a dockerd and needs root, and CI=true');
    h.t.skip('needs root to start a dockerd');
    return;
  }
  // The remapped root must reach its data root (startEngine's is 0711);
  // the image is remapped as it loads.
  const engine = await startEngine(h, { args: ['--userns-remap=default'], images: [IMAGE] });
  const info = (await dockerGet('/info', { socket: engine.sock })).body;
  assert.ok(info.SecurityOptions.includes('name=userns'), JSON.stringify(info.SecurityOptions));
  const start = subuidStart();

  const s = await withStateDir(h).start({
    DOCKER_HOST: `unix://${engine.sock}`,
    SANDBOX_POOL_SIZE: '0', SANDBOX_BASH_POOL_SIZE: '1', SANDBOX_POOL_WARM_AT_START: 'bash',
  });
  await waitFor(() => /the engine remaps user namespaces/.test(s.stderr), { timeoutMs: 20_000, what: 'the start-up check' });
  assert.doesNotMatch(s.stderr, /is the host account/);

  const r = await s.execute('bash', 'id -u; id -g; head -n1 /proc/self/uid_map; touch /work/x && ls -n /work/x | cut -d" " -f3');
  assert.equal(r.exitCode, 0, r.stderr);
  const [uid, gid, map, owner] = r.stdout.trim().split('\n');
  assert.deepEqual([uid, gid, owner], ['1000', '1000', '1000']);
  assert.deepEqual(map.trim().split(/\s+/).map(Number), [0, start, 65536], `uid_map: ${map}`);

  // Seen from the host: a session's processes, while a call runs.
  const created = await s.client.callTool({ name: 'sandbox_session', arguments: { action: 'create', language: 'bash', name: 'uns' } });
  assert.equal(created.isError ?? false, false, created.content?.[0]?.text);
  assert.equal(runResult(await s.call({ language: 'bash', session: 'uns', code: 'echo v > /work/v.txt' })).exitCode, 0);
  const read = await s.client.callTool({ name: 'sandbox_file_ops', arguments: { action: 'read', session: 'uns', path: 'v.txt' } });
  assert.equal(JSON.parse(read.content[0].text).content, 'v\n');
  const running = s.call({ language: 'bash', session: 'uns', code: 'sleep 60', timeout: 90_000 }, { requestTimeoutMs: 120_000 });
  let seen;
  const top = await waitFor(async () => {
    const list = (await dockerGet('/containers/json', { socket: engine.sock })).body;
    const c = list.find((x) => x.Names.some((n) => n.endsWith('.uns')));
    if (!c) return (seen = list.map((x) => x.Names), null);
    const t = (await dockerGet(`/containers/${c.Id}/top?ps_args=-eo%20pid,uid,args`, { socket: engine.sock })).body;
    seen = t;
    return t.Processes?.some((p) => /^sleep 60/.test(p.at(-1))) ? t.Processes : null;
  }, { timeoutMs: 30_000, what: 'the session call running sleep' }).catch((e) => {
    throw new Error(`${e.message}: ${JSON.stringify(seen)}`);
  });
  const byArgs = (re) => top.filter((p) => re.test(p.at(-1))).map((p) => Number(p[1]));
  assert.deepEqual([...new Set(byArgs(/^sleep 60/))], [start + 1000], JSON.stringify(top));
  assert.ok(byArgs(/agent/).length > 0 && byArgs(/agent/).every((u) => u === start), `the agent is root inside, uid ${start} outside: ${JSON.stringify(top)}`);
  assert.ok(top.every((p) => Number(p[1]) >= start), 'no process of the container is a host uid below the range');

  await s.client.callTool({ name: 'sandbox_session', arguments: { action: 'destroy', name: 'uns' } });
  const ended = await running;
  assert.ok(ended.isError || runResult(ended).exitCode !== 0, 'the running call ends with its session');
});
