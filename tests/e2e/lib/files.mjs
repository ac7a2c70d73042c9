// Helpers of the file tests: sandbox_file_ops calls and a python
// session to run them in.
import assert from 'node:assert/strict';
import { toolError } from './server.mjs';
import { createSession, waitActive, withStateDir } from './sessions.mjs';

export const PYTHON = { SANDBOX_BASH_POOL_SIZE: '0' };

export function fop(s, args, { requestTimeoutMs = 120_000 } = {}) {
  return s.client.callTool({ name: 'sandbox_file_ops', arguments: args }, undefined, { timeout: requestTimeoutMs });
}

export async function fopOk(s, args, opts) {
  const r = await fop(s, args, opts);
  assert.equal(r.isError ?? false, false, `sandbox_file_ops ${JSON.stringify(args).slice(0, 300)} failed: ${r.content?.[0]?.text}`);
  // One text block with the JSON: a read's bytes go once, not twice.
  assert.equal(r.structuredContent, undefined, 'no structuredContent (no output schema)');
  assert.equal(r.content.length, 1);
  assert.equal(r.content[0].type, 'text');
  return JSON.parse(r.content[0].text);
}

export async function fopErr(s, args, code, opts) {
  const e = toolError(await fop(s, args, opts));
  assert.equal(e.code, code, `${JSON.stringify(args).slice(0, 300)}: ${e.code}: ${e.message}`);
  return e;
}

export async function pythonSession(h, name, env = {}, args = []) {
  const st = withStateDir(h);
  const s = await h.start({ env: st.env({ ...PYTHON, ...env }), args });
  await createSession(s, 'python', { name });
  await waitActive(s, name);
  s.stateDir = st.dir;
  return s;
}
