// Where a contributor puts a plugin, and what the host refuses to load:
// [server] plugins_dir adds directories after the built-in one (from
// sandbox.ini, relative to it, or from SANDBOX_SERVER_PLUGINS_DIR, which is
// read before the plugins load); builtin_plugins = no leaves the built-in
// ones out; a file others may write, one in a directory others may write,
// a symbolic link and a second provider of a language are each rejected,
// and sandbox_inspect and doctor name the file and the reason while the
// server serves the rest. The global options also work after a
// subcommand (mcp-sandbox run bash --config FILE ...).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, ROOT, e2e } from './lib/server.mjs';

const FIXTURES = path.join(ROOT, 'build/tests/fixture-plugins');
const BUILTIN = path.join(ROOT, 'build/lib/mcp-sandbox/plugins');

/** A directory of plugin files: { name: [source, mode] } or a symlink. */
function pluginDir(h, files, dirMode = 0o755) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-plugdir-'));
  h.t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  for (const [name, spec] of Object.entries(files)) {
    const p = path.join(dir, name);
    if (spec.link) fs.symlinkSync(spec.link, p);
    else {
      fs.copyFileSync(spec.from, p);
      fs.chmodSync(p, spec.mode ?? 0o755);
    }
  }
  fs.chmodSync(dir, dirMode);
  return dir;
}

async function inspectPlugins(s) {
  const r = await s.client.callTool({ name: 'sandbox_inspect', arguments: { what: 'plugins' } });
  assert.equal(r.isError ?? false, false, r.content?.[0]?.text);
  return JSON.parse(r.content[0].text);
}

const perl = path.join(FIXTURES, 'perl.so');

e2e('a plugins directory from the environment adds to the built-in plugins; unsafe files and a second provider are named with the reason', { docker: false }, async (h) => {
  const dir = pluginDir(h, {
    'perl.so': { from: perl },
    'writable.so': { from: perl, mode: 0o757 },
    'link.so': { link: perl },
    'bash.so': { from: path.join(BUILTIN, 'bash.so') },
  });
  const s = await h.start({ env: { SANDBOX_POOL_SIZE: '0', SANDBOX_SERVER_PLUGINS_DIR: dir } });
  const { plugins, rejectedPlugins } = await inspectPlugins(s);
  assert.deepEqual(plugins.map((p) => p.name).sort(), ['bash', 'go', 'javascript', 'perl', 'python', 'python-ml', 'rust', 'typescript']);
  assert.equal(plugins.find((p) => p.name === 'perl').file, path.join(dir, 'perl.so'));
  assert.match(plugins.find((p) => p.name === 'bash').file, /build\/bin\/\.\.\/lib\/mcp-sandbox\/plugins\/bash\.so$/, 'the built-in bash wins');
  const why = Object.fromEntries(rejectedPlugins.map((r) => [path.basename(r.file), r.reason]));
  assert.deepEqual(Object.keys(why).sort(), ['bash.so', 'link.so', 'writable.so']);
  assert.match(why['writable.so'], /every user may write it/);
  assert.match(why['link.so'], /symbolic link/);
  assert.match(why['bash.so'], /language name 'bash' is already provided by .*\/bash\.so/);

  // doctor says the same, one check per file, and the server can run.
  const d = spawnSync(BIN, ['doctor', '--json', '--no-registries'], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, SANDBOX_SERVER_PLUGINS_DIR: dir } });
  const report = JSON.parse(d.stdout);
  const check = (name) => report.find((c) => c.check === name);
  assert.equal(check('plugins').detail, '8 loaded, 3 rejected');
  assert.equal(check('plugin writable.so').status, 'warn');
  assert.match(check('plugin writable.so').detail, /writable\.so: not loaded: the file is not safe: every user may write it/);
  assert.ok(check('plugin link.so') && check('plugin bash.so'));
});

e2e('sandbox.ini names the directory (relative to itself) and leaves the built-in plugins out; a directory others may write is refused', { docker: false }, async (h) => {
  const dir = pluginDir(h, { 'perl.so': { from: perl } });
  const ini = path.join(path.dirname(dir), `${path.basename(dir)}.ini`);
  fs.writeFileSync(ini, `[server]\nplugins_dir = ${path.basename(dir)}\nbuiltin_plugins = no\n`);
  h.t.after(() => fs.rmSync(ini, { force: true }));
  const s = await h.start({ env: { SANDBOX_POOL_SIZE: '0' }, args: ['--config', ini] });
  const { plugins, rejectedPlugins } = await inspectPlugins(s);
  assert.deepEqual([plugins.map((p) => p.name), rejectedPlugins], [['perl'], []]);

  const open = pluginDir(h, { 'perl.so': { from: perl } }, 0o777);
  const t = await h.start({ env: { SANDBOX_POOL_SIZE: '0', SANDBOX_SERVER_PLUGINS_DIR: open, SANDBOX_SERVER_BUILTIN_PLUGINS: 'no' }, args: ['--config', ini] });
  const r = await inspectPlugins(t);
  assert.deepEqual(r.plugins, []);
  assert.equal(r.rejectedPlugins.length, 1);
  assert.match(r.rejectedPlugins[0].reason, /its directory .* is not safe: every user may write it/);
});

e2e('--config after the subcommand: mcp-sandbox run bash --config FILE', {}, async (h) => {
  const ini = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-ini-')), 'sandbox.ini');
  h.t.after(() => fs.rmSync(path.dirname(ini), { recursive: true, force: true }));
  fs.writeFileSync(ini, '[bash]\nenv_unused_marker_is_not_a_key = 1\n[pool]\nsize = 0\n');
  const r = spawnSync(BIN, ['run', 'bash', '--config', ini, '-v', '-c', 'echo from bash'], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.stdout, 'from bash\n', r.stderr);
  assert.match(r.stderr, new RegExp(`configuration: ${ini.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  assert.match(r.stderr, /env_unused_marker_is_not_a_key/, 'the file named after the subcommand was read');
});
