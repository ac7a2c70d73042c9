// A language added from outside the tree, as a contributor would, by
// following sdk/README.md's steps literally: the SDK installed into a fresh
// prefix (cmake --install), the Ruby plugin of sdk/examples/ruby copied out
// of the tree and built against that prefix only (its CMake package; and
// pkg-config for a plain cc), installed into the prefix's plugin
// directory, its image built from its own recipe by the installed image
// script on the shared base, the installed conformance kit passing it with
// --run; then the installed server runs Ruby through MCP, in a session too
// (its files persist between calls: Ruby has no session interpreter), with
// the host's protections (the seccomp floor, the output cap, the
// blocklist, the audit log) as for a built-in language.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT, e2e, IN_CI } from './lib/server.mjs';
import { createSession, sexecOk, withStateDir } from './lib/sessions.mjs';
import { eventually } from './lib/wait.mjs';

const run = promisify(execFile);
const EXAMPLE = path.join(ROOT, 'sdk/examples/ruby');

async function sh(cmd, args, opts = {}) {
  try {
    return await run(cmd, args, { timeout: 600_000, maxBuffer: 16 << 20, ...opts });
  } catch (e) {
    throw new Error(`${cmd} ${args.join(' ')}: exit ${e.code}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
  }
}

e2e('a Ruby plugin built outside the tree against the installed SDK passes check-plugin --run and runs code through MCP, sessions included', { timeoutMs: 900_000 }, async (h) => {
  for (const tool of ['cmake', 'pkg-config', 'cc']) {
    try {
      await run(tool, ['--version']);
    } catch {
      if (IN_CI) throw new Error(`CI=true and ${tool} is missing`);
      return h.t.skip(`${tool} is missing`);
    }
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-sdk-'));
  h.t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const prefix = path.join(tmp, 'prefix');

  // The example, out of the tree: nothing of the tree is reachable from it.
  const src = path.join(tmp, 'ruby');
  fs.cpSync(EXAMPLE, src, { recursive: true });
  for (const f of ['ruby.c', 'CMakeLists.txt'])
    assert.doesNotMatch(fs.readFileSync(path.join(src, f), 'utf8'), /\.\.\/|host\/|plugins\/common|sdk\/include/, `${f} reaches into the tree`);

  // sdk/README.md's steps, as written, but the claude line.
  const readme = fs.readFileSync(path.join(ROOT, 'sdk/README.md'), 'utf8');
  const block = readme.split('## A new language, from an empty directory')[1]?.match(/```sh\n([\s\S]*?)```/)?.[1];
  assert.ok(block, 'sdk/README.md has the steps in a sh block');
  const steps = block.split('\n').filter((l) => l.trim() && !l.startsWith('claude ')).join('\n');
  assert.ok(steps.split('\n').length >= 6, steps);
  await sh('bash', ['-euo', 'pipefail', '-c', steps], {
    cwd: tmp,
    env: { ...process.env, PREFIX: prefix, CHECKOUT: ROOT, SBX_IMAGE_WORK: path.join(tmp, 'images') },
  });
  const plugindir = path.join(prefix, 'lib/mcp-sandbox/plugins');
  assert.ok(fs.existsSync(path.join(plugindir, 'ruby.so')), 'installed into MCP_SANDBOX_PLUGIN_DIR');

  // pkg-config gives the same header and lexer library to a plain cc.
  const pc = { ...process.env, PKG_CONFIG_PATH: path.join(prefix, 'share/pkgconfig') };
  const flags = async (what) => (await sh('pkg-config', [what, 'mcp-sandbox-lex'], { env: pc })).stdout.trim().split(/\s+/).filter(Boolean);
  await sh('cc', ['-shared', '-fPIC', '-fvisibility=hidden', '-Wl,-z,defs', '-Wall', '-Werror', ...(await flags('--cflags')), '-o', path.join(tmp, 'ruby-pc.so'), path.join(src, 'ruby.c'), ...(await flags('--libs'))]);

  const bin = path.join(prefix, 'bin/mcp-sandbox');
  // The kit ran in the steps; again, to read its verdict.
  const kit = (await sh(bin, ['check-plugin', path.join(plugindir, 'ruby.so'), '--run'])).stdout;
  assert.match(kit, /^pass  run: hello /m, kit);
  // Its lexer (of the SDK's pieces) holds; no session interpreter (the
  // three session checks) and no pre-started one: four skips.
  assert.match(kit, /^pass  lex_mask /m, kit);
  for (const check of ['run: session', 'run: control fds', 'run: interrupts', 'run: prestart'])
    assert.match(kit, new RegExp(`^skip  ${check} `, 'm'), kit);
  assert.match(kit, /^\d+ passed, 0 failed, 4 skipped$/m, kit);

  // The installed server, through the official MCP client.
  const st = withStateDir(h);
  const audit = path.join(tmp, 'audit.log');
  const s = await h.start({ bin, env: st.env({ SANDBOX_POOL_SIZE: '0', SANDBOX_RUBY_POOL_SIZE: '1', SANDBOX_AUDIT_FILE: audit }) });
  const execute = s.tools.find((t) => t.name === 'sandbox_execute');
  assert.ok(JSON.stringify(execute.inputSchema).includes('"ruby"'), 'ruby is in the language enum');
  const r = await s.execute('ruby', 'puts 6 * 7');
  assert.equal(r.exitCode, 0, r.stderr);
  assert.equal(r.stdout, '42\n');
  const viaAlias = await s.execute('rb', 'warn "x"; exit 5');
  assert.deepEqual([viaAlias.exitCode, viaAlias.stderr], [5, 'x\n']);

  await createSession(s, 'ruby', { name: 'rb' });
  await sexecOk(s, 'rb', "File.write('/work/n', '41')");
  const again = await sexecOk(s, 'rb', "puts File.read('/work/n').to_i + 1");
  assert.equal(again.stdout, '42\n');

  // The host's protections hold for it as for a built-in language: the
  // seccomp floor (unshare of a user namespace, straight through Ruby's
  // syscall), the output cap, the blocklist's warning, the audit log.
  const probe = await s.execute('ruby', '# syscall( in a comment is not code\nbegin; syscall(272, 0x10000000); puts "allowed"; rescue SystemCallError => e; puts e.class; end');
  assert.match(probe.stdout, /^Errno::(ENOTSUP|EPERM)\n$/, probe.stdout);
  // One match, on line 2: the lexer hid the comment's.
  assert.deepEqual(probe.blocklist?.map((b) => [b.line, b.reason]), [[2, 'raw system calls are not available']]);
  const flood = await s.execute('ruby', 'print "x" * 300_000');
  assert.equal(flood.stdoutTruncated, true);
  assert.ok(flood.stdout.length <= 100 * 1024, `${flood.stdout.length} bytes came back`);
  // Six calls: two one-off, two in the session, the probe, the flood. A
  // call's event is written once its result is on its way: the last one
  // may come a moment after it.
  let events = [];
  const calls = await eventually(() => {
    events = fs.readFileSync(audit, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const c = events.filter((e) => e.tool === 'sandbox_execute');
    return c.length >= 6 && c;
  }, { timeoutMs: 10_000 });
  assert.equal(calls?.length, 6, JSON.stringify(events).slice(0, 3000));
  // By the plugin's name, whatever alias the call used.
  assert.ok(calls.every((e) => (e.language ? e.language === 'ruby' : e.session === 'rb')), JSON.stringify(calls).slice(0, 3000));
  assert.equal(calls.filter((e) => e.languageAsked === 'rb').length, 1);
  assert.ok(calls.some((e) => e.violation), 'the blocklist match is recorded');
});
