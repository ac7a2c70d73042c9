// A server killed in the middle of an install (docs/packages.md): what it
// leaves (the install container, its proxy and forwarder, their volumes)
// stays until the next server starts, which removes it; and a cancelled
// install, which leaves nothing. Alone (tests/e2e/README.md): any server
// that starts on this engine removes a dead server's leftovers, so one of
// another file's would take them before this test has seen them.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { e2e, runResult } from './lib/server.mjs';
import { install, packageEnv } from './lib/packages.mjs';
import { addWheel, docker, serveRegistry } from './lib/registry.mjs';
import { killServer } from './lib/sessions.mjs';
import { waitFor } from './lib/wait.mjs';

e2e('packages: a cancelled install stops and leaves nothing; a server killed mid-install leaves nothing the next start does not remove', { timeoutMs: 300_000 }, async (h) => {
  const index = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-pypi-'));
  h.t.after(() => fs.rmSync(index, { recursive: true, force: true }));
  addWheel(index, 'hangs', '1.0', 'H = 1\n');
  // An index that does not answer: the install waits in pip.
  const p = packageEnv(h, { SANDBOX_PYTHON_REGISTRY: 'http://pypi-local:8080/slow/simple/' });
  docker('network', 'create', '--internal', p.network);
  serveRegistry(p.network, ['pypi-local'], index);
  const s = await h.start({ env: p.env });
  const mine = (what) => docker(...what, '--filter', `label=org.mcp-sandbox.owner-pid=${s.pid}`).split('\n').filter(Boolean);
  const underWay = () => mine(['ps', '-q', '--filter', 'label=org.mcp-sandbox.role=install']).length === 1;

  // The client cancels: the install stops at once (its container,
  // proxy and hand-over volume go) and the server keeps serving.
  const ac = new AbortController();
  const withdrawn = s.client.callTool({ name: 'sandbox_install', arguments: { language: 'python', packages: ['hangs==1.0'] } }, undefined,
    { timeout: 240_000, signal: ac.signal, onprogress: () => {} }).then(() => 'answered', () => 'aborted');
  await waitFor(underWay, { timeoutMs: 60_000, what: 'the install under way' });
  ac.abort();
  assert.equal(await withdrawn, 'aborted');
  await waitFor(() => ['install', 'proxy', 'forwarder'].every((r) => mine(['ps', '-aq', '--filter', `label=org.mcp-sandbox.role=${r}`]).length === 0) &&
    ['handover', 'proxysocket'].every((r) => mine(['volume', 'ls', '-q', '--filter', `label=org.mcp-sandbox.role=${r}`]).length === 0),
  { timeoutMs: 20_000, what: 'the cancelled install cleaned up' });
  assert.match(s.stderr, /install of [0-9a-f]{12} cancelled/);
  assert.equal(runResult(await s.call({ language: 'python', code: 'print(7)' })).stdout, '7\n');

  const pending = install(s, { language: 'python', packages: ['hangs==1.0'] }).catch(() => null);
  // The install container, its proxy and forwarder, the hand-over and
  // socket volumes exist.
  await waitFor(() => ['install', 'proxy', 'forwarder'].every((r) => mine(['ps', '-q', '--filter', `label=org.mcp-sandbox.role=${r}`]).length === 1) &&
    ['handover', 'proxysocket'].every((r) => mine(['volume', 'ls', '-q', '--filter', `label=org.mcp-sandbox.role=${r}`]).length === 1),
  { timeoutMs: 60_000, what: 'the install under way' });
  const volumes = mine(['volume', 'ls', '-q', '--filter', 'label=org.mcp-sandbox.role']);
  assert.equal(volumes.length, 2, volumes.join(' '));
  const pid = s.pid;
  await killServer(s);
  await pending;
  const left = (role) => docker('ps', '-aq', '--filter', `label=org.mcp-sandbox.owner-pid=${pid}`, '--filter', `label=org.mcp-sandbox.role=${role}`).split('\n').filter(Boolean).length;
  // The install container's agent sees its connection end and exits, and
  // the engine removes it (AutoRemove): it may be gone already. The proxy
  // and the forwarder, services, stay for the next server.
  assert.ok(left('install') <= 1);
  assert.deepEqual([left('proxy'), left('forwarder')], [1, 1], 'the dead server left its proxy and forwarder');

  await h.start({ env: p.env });
  await waitFor(() => docker('ps', '-aq', '--filter', `label=org.mcp-sandbox.owner-pid=${pid}`) === '' &&
    !docker('volume', 'ls', '-q').split('\n').some((v) => volumes.includes(v)), { timeoutMs: 60_000, what: 'the orphans removed' });
});
