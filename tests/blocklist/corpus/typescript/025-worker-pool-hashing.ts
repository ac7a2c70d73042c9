// A small worker_threads pool that hashes buffers with PBKDF2; one file is both main and worker.
import { Worker, isMainThread, parentPort } from 'node:worker_threads';
import { pbkdf2Sync, randomBytes } from 'node:crypto';

interface Job { id: number; password: string; salt: string; iterations: number }
interface Done { id: number; hash: string; ms: number; worker: number }
type FromWorker = { type: 'ready'; worker: number } | ({ type: 'done' } & Done);

if (!isMainThread) {
  const port = parentPort!;
  const workerId = Number(process.env.POOL_WORKER_ID ?? 0);
  port.on('message', (job: Job | 'stop') => {
    if (job === 'stop') { port.close(); return; }
    const t = performance.now();
    const hash = pbkdf2Sync(job.password, job.salt, job.iterations, 32, 'sha256').toString('hex');
    port.postMessage({ type: 'done', id: job.id, hash, ms: performance.now() - t, worker: workerId } satisfies FromWorker);
  });
  port.postMessage({ type: 'ready', worker: workerId } satisfies FromWorker);
} else {
  class Pool {
    private readonly workers: Worker[] = [];
    private readonly idle: Worker[] = [];
    private readonly queue: Job[] = [];
    private readonly pending = new Map<number, (d: Done) => void>();
    private readonly busy = new Map<Worker, number>();

    constructor(size: number) {
      for (let i = 0; i < size; i++) {
        const w = new Worker(new URL(import.meta.url), { env: { ...process.env, POOL_WORKER_ID: String(i) } });
        w.on('message', (msg: FromWorker) => {
          if (msg.type === 'done') this.pending.get(msg.id)?.(msg);
          this.busy.delete(w);
          this.idle.push(w);
          this.dispatch();
        });
        this.workers.push(w);
      }
    }
    run(job: Job): Promise<Done> {
      return new Promise((resolve) => {
        this.pending.set(job.id, resolve);
        this.queue.push(job);
        this.dispatch();
      });
    }
    private dispatch(): void {
      while (this.idle.length && this.queue.length) {
        const w = this.idle.shift()!;
        const job = this.queue.shift()!;
        this.busy.set(w, job.id);
        w.postMessage(job);
      }
    }
    async close(): Promise<void> {
      for (const w of this.workers) w.postMessage('stop');
      await Promise.all(this.workers.map((w) => new Promise((r) => w.once('exit', r))));
    }
  }

  const pool = new Pool(2);
  const passwords = ['correct horse battery staple', 'hunter2', "p@ss'word\"", 'ünïcödé', 'letmein', '0000'];
  const jobs: Job[] = passwords.map((password, id) => ({ id, password, salt: randomBytes(8).toString('hex'), iterations: 150_000 }));
  const t0 = performance.now();
  const results = await Promise.all(jobs.map((j) => pool.run(j)));
  for (const r of results) console.log(`job ${r.id} on worker ${r.worker}: ${r.hash.slice(0, 16)}… (${r.ms.toFixed(1)} ms)`);
  const check = pbkdf2Sync(jobs[1].password, jobs[1].salt, jobs[1].iterations, 32, 'sha256').toString('hex');
  console.log(`verified job 1 on main thread: ${check === results[1].hash}`);
  console.log(`workers used: ${new Set(results.map((r) => r.worker)).size}, wall ${(performance.now() - t0).toFixed(0)} ms`);
  await pool.close();
}
