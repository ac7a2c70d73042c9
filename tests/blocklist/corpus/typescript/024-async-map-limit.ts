// Concurrency-limited async map with ordered results, cancellation via AbortController and timing.
import { setTimeout as delay } from 'node:timers/promises';

interface MapOptions {
  concurrency: number;
  signal?: AbortSignal;
}

type Settled<R> = { status: 'fulfilled'; value: R } | { status: 'rejected'; reason: string };

async function mapLimit<T, R>(items: readonly T[], fn: (item: T, index: number, signal?: AbortSignal) => Promise<R>, { concurrency, signal }: MapOptions): Promise<Settled<R>[]> {
  const results: Settled<R>[] = new Array(items.length);
  let next = 0;
  let active = 0;
  let peak = 0;
  async function worker(): Promise<void> {
    while (next < items.length) {
      const i = next++;
      if (signal?.aborted) {
        results[i] = { status: 'rejected', reason: 'aborted before start' };
        continue;
      }
      active++;
      peak = Math.max(peak, active);
      try {
        results[i] = { status: 'fulfilled', value: await fn(items[i], i, signal) };
      } catch (e) {
        results[i] = { status: 'rejected', reason: e instanceof Error ? e.message : String(e) };
      } finally {
        active--;
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  console.log(`  (peak concurrency ${peak})`);
  return results;
}

const urls = Array.from({ length: 10 }, (_, i) => `https://cdn.example.com/img/${i + 1}.png`);

// Simulated download: no network, just a delay proportional to the "size".
async function fakeDownload(url: string, i: number, signal?: AbortSignal): Promise<number> {
  const size = ((i * 7919) % 13) + 1;
  await delay(size * 3, undefined, { signal });
  if (url.endsWith('/7.png')) throw new Error('HTTP 404');
  return size * 1024;
}

console.log('run 1: all items, concurrency 3');
let t0 = performance.now();
const r1 = await mapLimit(urls, fakeDownload, { concurrency: 3 });
const ok = r1.filter((r): r is Extract<Settled<number>, { status: 'fulfilled' }> => r.status === 'fulfilled');
console.log(`  ${ok.length}/${r1.length} ok, ${ok.reduce((s, r) => s + r.value, 0) / 1024} KiB in ~${Math.round((performance.now() - t0) / 10) * 10}ms`);
r1.forEach((r, i) => r.status === 'rejected' && console.log(`  item ${i}: ${r.reason}`));

console.log('run 2: abort after 25ms');
const controller = new AbortController();
setTimeout(() => controller.abort(), 25);
t0 = performance.now();
const r2 = await mapLimit(urls, fakeDownload, { concurrency: 2, signal: controller.signal });
const summary = r2.reduce<Record<string, number>>((acc, r) => {
  const k = r.status === 'fulfilled' ? 'done' : r.reason;
  acc[k] = (acc[k] ?? 0) + 1;
  return acc;
}, {});
console.log('  outcome:', summary);
