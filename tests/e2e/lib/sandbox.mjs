// Helpers for looking at what a server runs: its containers (through the
// Docker Engine API) and the container a call ran in.
import assert from 'node:assert/strict';
import { containersWithLabels } from './docker.mjs';

export const MANAGED = 'org.mcp-sandbox.managed=1';

/** Containers that the server with this pid labelled as its own. */
export function serverContainers(pid) {
  return containersWithLabels([MANAGED, `org.mcp-sandbox.owner-pid=${pid}`]);
}

/** Containers of one server instance (the id in org.mcp-sandbox.instance). */
export function instanceContainers(instance) {
  return containersWithLabels([MANAGED, `org.mcp-sandbox.instance=${instance}`]);
}

/**
 * The container a call ran in, from the hostname it printed: Docker names
 * a container's host after the first 12 hex digits of its id, so the
 * hostname both identifies the container and must be one of this server's.
 */
export async function containerOf(server, hostname) {
  assert.match(hostname, /^[0-9a-f]{12}$/, `hostname ${JSON.stringify(hostname)} should be a container id prefix`);
  const mine = await serverContainers(server.pid);
  const c = mine.find((x) => x.Id.startsWith(hostname));
  assert.ok(
    c,
    `host ${hostname} is none of this server's containers: ${mine.map((x) => x.Id.slice(0, 12)).join(', ') || 'none'}`,
  );
  return c.Id;
}

/** Splits "key: value" lines (as in /proc/self/status) into an object. */
export function parseStatus(text) {
  const o = {};
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z_]+):\s*(.*)$/.exec(line);
    if (m) o[m[1]] = m[2].trim();
  }
  return o;
}

/** The text between "--- name ---" and the next such line in a script's stdout. */
export function section(stdout, name) {
  const m = new RegExp(`^--- ${name} ---\\n([\\s\\S]*?)(?=^--- |(?![\\s\\S]))`, 'm').exec(stdout);
  assert.ok(m, `no "--- ${name} ---" section in stdout:\n${stdout}`);
  return m[1];
}
