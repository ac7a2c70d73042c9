// Soak: 1000 mixed calls (one-off runs in every language but python-ml,
// session calls, timeouts, cancels, errors) against the server built with
// AddressSanitizer and UBSan (build-asan, which scripts/test.sh builds
// before this suite): no leak or memory error reported at exit, and the
// server's descriptors, its containers and the engine's networks back to
// where they were, its resident size near where it started. It runs beside
// other files: the networks they make and remove while it runs (the
// package tests', sbx-test-pkgnet-*) are theirs, not its.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { IN_CI, ROOT, e2e, runResult } from './lib/server.mjs';
import { containersWithLabels, dockerGet } from './lib/docker.mjs';
import { waitFor } from './lib/wait.mjs';

const ASAN_BIN = path.join(ROOT, 'build-asan/bin/mcp-sandbox');
const CALLS = 1000;
const PARALLEL = 4;

const fdCount = (pid) => fs.readdirSync(`/proc/${pid}/fd`).length;
const rssKiB = (pid) => Number(fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+)/m)[1]);
// The engine's networks by name, but those the package tests beside this
// file make and remove (lib/packages.mjs).
const networks = async () => (await dockerGet('/networks')).body.map((n) => n.Name)
  .filter((n) => !n.startsWith('sbx-test-pkgnet-')).sort();
const mine = async (pid) => (await containersWithLabels([`org.mcp-sandbox.owner-pid=${pid}`])).length;

// The i-th call: what it sends and what it must answer.
function plan(i) {
  const k = i % 20;
  if (k < 6) return { args: { language: 'bash', code: `echo b${i}` }, want: `b${i}\n` };
  if (k < 9) return { args: { language: 'python', code: `print(${i} * 2)` }, want: `${i * 2}\n` };
  if (k < 11) return { args: { language: 'javascript', code: `console.log(${i})` }, want: `${i}\n` };
  if (k === 11) return { args: { language: 'typescript', code: `const n: number = ${i}; console.log(n)` }, want: `${i}\n` };
  if (k === 12) return { args: { language: 'go', code: `fmt.Println(${i})` }, want: `${i}\n` };
  if (k === 13) return { args: { language: 'rust', code: `println!("{}", ${i});` }, want: `${i}\n` };
  if (k < 16) return { args: { session: i % 2 ? 'soak-py' : 'soak-sh', code: i % 2 ? 'n += 1\nprint(n > 0)' : 'echo "${N:=0}"' }, session: true };
  if (k === 16) return { args: { language: 'bash', code: 'sleep 5', timeout: 100 }, timedOut: true };
  if (k === 17) return { args: { language: 'python', code: 'import time\nprint("up", flush=True)\ntime.sleep(5)' }, cancel: true };
  if (k === 18) return { args: { language: 'nope', code: 'x' }, error: 'unknown_language' };
  return { args: { language: 'bash', code: 'x'.repeat(100) + '; exit 3' }, exit: 3 };
}

e2e(`soak: ${CALLS} mixed calls under ASan leave no leak, descriptor, container or network behind`, { timeoutMs: 900_000 }, async (h) => {
  if (!fs.existsSync(ASAN_BIN)) {
    if (IN_CI) assert.fail(`${ASAN_BIN} is missing: scripts/test.sh builds it (build-asan)`);
    h.t.skip('build-asan is not built (scripts/test.sh builds it)');
    return;
  }
  const nets0 = await networks();
  const s = await h.startRaw({
    bin: ASAN_BIN,
    env: {
      SANDBOX_POOL_SIZE: '1',
      SANDBOX_POOL_IDLE_SHRINK_S: '1',
      // A small quarantine: freed memory is not held back for long.
      ASAN_OPTIONS: 'detect_leaks=1:abort_on_error=0:quarantine_size_mb=1',
      UBSAN_OPTIONS: 'print_stacktrace=1:halt_on_error=1',
      SANDBOX_AUDIT_FILE: 'none',
    },
  });
  await s.initialize();
  for (const [name, language] of [['soak-py', 'python'], ['soak-sh', 'bash']]) {
    const r = await s.request(`create-${name}`, 'tools/call', { name: 'sandbox_session', arguments: { action: 'create', language, name } }, { timeoutMs: 120_000 });
    assert.equal(r.result?.isError ?? false, false, JSON.stringify(r));
  }
  await s.request('n', 'tools/call', { name: 'sandbox_execute', arguments: { session: 'soak-py', code: 'n = 0' } }, { timeoutMs: 60_000 });
  // A first round of each kind warms every pool: the baseline is taken
  // after it.
  for (let i = 0; i < 20; i++) await one(s, i);
  const fd0 = fdCount(s.pid);
  const rss0 = rssKiB(s.pid);

  let next = 20;
  const failures = [];
  await Promise.all(Array.from({ length: PARALLEL }, async () => {
    while (next < CALLS) {
      const i = next++;
      try {
        await one(s, i);
      } catch (e) {
        failures.push(`call ${i} (${JSON.stringify(plan(i).args).slice(0, 80)}): ${e.message}`);
      }
    }
  }));
  assert.deepEqual(failures.slice(0, 5), [], `${failures.length} calls failed`);

  // Back to where it was once the pool has settled.
  await waitFor(() => fdCount(s.pid) <= fd0, { timeoutMs: 30_000, what: `the server's descriptors back to ${fd0} (now ${fdCount(s.pid)})` });
  const rss1 = rssKiB(s.pid);
  assert.ok(rss1 - rss0 <= 16 * 1024, `RSS ${rss0} kB after warm-up, ${rss1} kB after ${CALLS} calls`);
  for (const name of ['soak-py', 'soak-sh'])
    await s.request(`destroy-${name}`, 'tools/call', { name: 'sandbox_session', arguments: { action: 'destroy', name } }, { timeoutMs: 60_000 });
  const pid = s.pid;
  const exit = await s.close();
  assert.deepEqual(exit, { code: 0, signal: null }, `the server's exit\n${s.stderr.slice(-4000)}`);
  assert.doesNotMatch(s.stderr, /ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:/, s.stderr.slice(-6000));
  await waitFor(async () => (await mine(pid)) === 0, { timeoutMs: 30_000, what: 'the server\'s containers gone' });
  assert.deepEqual(await networks(), nets0, 'no Docker network left behind');
});

async function one(s, i) {
  const p = plan(i);
  const id = `c${i}`;
  if (p.cancel) {
    const from = s.messages.length;
    await s.sendLine({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'sandbox_execute', arguments: p.args, _meta: { progressToken: id } } });
    // Cancelled once its code runs (its output arrives as progress): no
    // answer comes (MCP), the server goes on.
    await s.waitFor((m) => m.method === 'notifications/progress' && m.params?.progressToken === id, { from, timeoutMs: 60_000, what: `call ${i} running` });
    await s.sendLine({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'soak' } });
    assert.equal(s.messages.slice(from).some((m) => m.id === id), false, 'a call cancelled while it runs is not answered');
    return;
  }
  const r = await s.request(id, 'tools/call', { name: 'sandbox_execute', arguments: p.args }, { timeoutMs: 120_000 });
  assert.ok(r.result, JSON.stringify(r));
  if (p.error) {
    assert.equal(r.result.isError, true);
    assert.equal(JSON.parse(r.result.content[0].text).error.code, p.error);
    return;
  }
  assert.equal(r.result.isError ?? false, false, r.result.content?.[0]?.text);
  const o = runResult(r.result);
  if (p.timedOut) assert.equal(o.timedOut, true);
  else if (p.exit !== undefined) assert.equal(o.exitCode, p.exit);
  else if (p.session) assert.equal(o.exitCode, 0, o.stderr);
  else assert.equal(o.stdout, p.want, o.stderr);
}
