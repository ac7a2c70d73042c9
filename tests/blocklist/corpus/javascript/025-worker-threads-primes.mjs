// Count primes in ranges using worker_threads; the same file acts as main and worker.
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import os from 'node:os';

function countPrimes(from, to) {
  const sieve = new Uint8Array(to - from);
  const limit = Math.floor(Math.sqrt(to));
  for (let p = 2; p <= limit; p++) {
    let start = Math.max(p * p, Math.ceil(from / p) * p);
    for (let m = start; m < to; m += p) sieve[m - from] = 1;
  }
  let count = 0;
  for (let i = Math.max(from, 2); i < to; i++) if (!sieve[i - from]) count++;
  return count;
}

if (!isMainThread) {
  const { from, to } = workerData;
  parentPort.postMessage({ from, to, count: countPrimes(from, to) });
} else {
  const N = 2_000_000;
  const workers = Math.min(4, Math.max(2, os.availableParallelism?.() ?? 2));
  const chunk = Math.ceil(N / workers);
  const self = fileURLToPath(import.meta.url);
  const t0 = performance.now();
  const parts = await Promise.all(
    Array.from({ length: workers }, (_, i) => new Promise((resolve, reject) => {
      const w = new Worker(self, { workerData: { from: i * chunk, to: Math.min(N, (i + 1) * chunk) } });
      w.once('message', resolve);
      w.once('error', reject);
      w.once('exit', (code) => { if (code !== 0) reject(new Error(`worker exited with ${code}`)); });
    })),
  );
  for (const p of parts) console.log(`[${p.from.toLocaleString('en-US')}, ${p.to.toLocaleString('en-US')}) -> ${p.count} primes`);
  const total = parts.reduce((s, p) => s + p.count, 0);
  console.log(`π(${N.toLocaleString('en-US')}) = ${total} using ${workers} workers in ${(performance.now() - t0).toFixed(0)} ms`);
  console.log('single-thread check:', countPrimes(0, 10_000) === 1229 ? 'ok' : 'mismatch');
}
