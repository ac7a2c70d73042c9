// Waiting for an event, never for the clock: a test that needs something
// to have happened (a container to exist, a call to be running, a session
// to be busy) polls for exactly that, with a deadline, and fails naming
// what it waited for. No test sleeps and hopes.
import { setTimeout as delay } from 'node:timers/promises';

/**
 * Polls cond() (sync or async) until it returns a truthy value, which is
 * returned. After timeoutMs, throws "timed out after N ms waiting for
 * <what>" (with the last value, when it says something).
 */
export async function waitFor(cond, { timeoutMs = 10_000, intervalMs = 100, what = 'a condition' } = {}) {
  const end = Date.now() + timeoutMs;
  let v;
  for (;;) {
    v = await cond();
    if (v) return v;
    if (Date.now() >= end) {
      const last = v === undefined || v === false || v === null ? '' : ` (last: ${JSON.stringify(v)})`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last}`);
    }
    await delay(intervalMs);
  }
}

/**
 * Like waitFor, but returns the last (falsy) value at the deadline instead
 * of throwing: for callers that assert with a message of their own.
 */
export async function eventually(cond, { timeoutMs = 10_000, intervalMs = 200 } = {}) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await cond();
    if (v || Date.now() >= end) return v;
    await delay(intervalMs);
  }
}

/**
 * Collects the output a call streams as progress notifications (pass
 * `onprogress` to the call) so a test can wait until its code printed
 * something, i.e. until the code is really running:
 *   const p = progressText();
 *   const call = s.client.callTool(..., { onprogress: p.onprogress });
 *   await p.until(/^started$/m, 'the code printing "started"');
 */
export function progressText() {
  const o = {
    text: '',
    onprogress: (p) => {
      o.text += p.message ?? '';
    },
    until: (re, what, opts = {}) => waitFor(() => re.test(o.text), { intervalMs: 20, what, ...opts }),
  };
  return o;
}
