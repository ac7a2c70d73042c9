// What the package tests share (docs/packages.md): a volume, an install
// network and a state directory of the test's own, removed at its end;
// sandbox_install calls; what a package volume holds.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { addWheel, docker, serveRegistry } from './registry.mjs';
import { runResult } from './server.mjs';

/** A volume and an internal network of the test's own, removed at the end. */
export function packageEnv(h, extra = {}) {
  const id = crypto.randomBytes(4).toString('hex');
  const volume = `sbx-test-pkgs-${id}`;
  const network = `sbx-test-pkgnet-${id}`;
  const state = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-pkg-state-'));
  h.t.after(() => {
    // The servers are closed by now and their pools' containers gone; a
    // session's container outlives its server on purpose (sessions.md),
    // so the test removes its own: named for a slot of its state
    // directory (sbx-s.<slot>.…), or using its volume.
    const slots = fs.readdirSync(state).filter((f) => /^[0-9a-f]{8}-\d+\.json$/.test(f)).map((f) => f.slice(0, -5));
    const ours = docker('ps', '-a', '--format', '{{.Names}}').split('\n')
      .filter((n) => slots.some((sl) => n.startsWith(`sbx-s.${sl}.`)));
    for (const c of [...ours, ...docker('ps', '-aq', '--filter', `network=${network}`).split('\n'),
      ...docker('ps', '-aq', '--filter', `volume=${volume}`).split('\n')].filter(Boolean)) {
      try { docker('rm', '-f', c); } catch { /* gone meanwhile */ }
    }
    try { docker('network', 'rm', network); } catch { /* never made */ }
    try { docker('volume', 'rm', '-f', volume); } catch { /* never made */ }
    fs.rmSync(state, { recursive: true, force: true });
  });
  return {
    volume,
    network,
    env: {
      SANDBOX_PACKAGES_VOLUME: volume,
      SANDBOX_PACKAGES_NETWORK: network,
      SANDBOX_SESSIONS_STATE_DIR: state,
      SANDBOX_POOL_WARM_AT_START: '',
      ...extra,
    },
  };
}

/**
 * packageEnv's volume and network, with a pip index of these wheels
 * ([name, version, body, payload?] each, addWheel's arguments) served on
 * that network as http://pypi-local:8080/simple/: the registry of each
 * language in `languages` (sandbox.ini's `registry`). extra: more of the
 * server's env.
 */
export function pipIndexEnv(h, wheels, { languages = ['python'], extra = {} } = {}) {
  const index = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-pypi-'));
  h.t.after(() => fs.rmSync(index, { recursive: true, force: true }));
  for (const w of wheels) addWheel(index, ...w);
  const registries = Object.fromEntries(languages.map((l) => [`SANDBOX_${l.toUpperCase().replace(/-/g, '_')}_REGISTRY`, 'http://pypi-local:8080/simple/']));
  const p = packageEnv(h, { ...registries, ...extra });
  // The network first (internal, as the server wants it), then the index.
  docker('network', 'create', '--internal', p.network);
  serveRegistry(p.network, ['pypi-local'], index);
  return p;
}

export async function install(s, args, { requestTimeoutMs = 240_000 } = {}) {
  return s.client.callTool({ name: 'sandbox_install', arguments: args }, undefined, { timeout: requestTimeoutMs });
}

export async function installOk(s, args, opts) {
  const r = await install(s, args, opts);
  assert.equal(r.isError ?? false, false, r.content?.[0]?.text);
  return JSON.parse(r.content[0].text);
}

/**
 * Run a bash script (with args as $1...) as root in a container of the
 * proxy image with the package volume at /v, as an operator (or another
 * server) might change it. Its stdout.
 */
export function onVolume(volume, script, ...args) {
  return docker('run', '--rm', '--network', 'none', '-u', '0', '-v', `${volume}:/v`,
    '--entrypoint', 'bash', 'mcp-sandbox/proxy:latest', '-c', script, 'on-volume', ...args);
}

/** What the package volume holds, as a sandbox sees it (sorted). */
export async function volumeKeys(s) {
  const r = runResult(await s.call({ language: 'python', code: "import os\nprint(' '.join(sorted(os.listdir('/opt/sbx/pkgs'))))" }));
  return r.stdout.trim().split(' ').filter(Boolean);
}
