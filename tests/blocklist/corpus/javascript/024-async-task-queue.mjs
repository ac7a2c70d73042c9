// A concurrency-limited async task queue with retries, timeouts and progress reporting.
import { setTimeout as sleep } from 'node:timers/promises';

class TaskQueue {
  constructor({ concurrency = 2, retries = 1, timeoutMs = 200 } = {}) {
    Object.assign(this, { concurrency, retries, timeoutMs });
    this.queue = [];
    this.running = 0;
    this.results = [];
  }
  add(name, fn) {
    return new Promise((resolve) => {
      this.queue.push({ name, fn, attempt: 0, resolve });
      this.#pump();
    });
  }
  async #runOne(task) {
    const timeout = sleep(this.timeoutMs).then(() => { throw new Error(`timed out after ${this.timeoutMs}ms`); });
    for (;;) {
      task.attempt++;
      try {
        return { name: task.name, ok: true, value: await Promise.race([task.fn(task.attempt), timeout]), attempts: task.attempt };
      } catch (err) {
        if (task.attempt > this.retries || /timed out/.test(err.message)) return { name: task.name, ok: false, error: err.message, attempts: task.attempt };
      }
    }
  }
  #pump() {
    while (this.running < this.concurrency && this.queue.length) {
      const task = this.queue.shift();
      this.running++;
      this.#runOne(task).then((r) => {
        this.running--;
        this.results.push(r);
        console.log(`  [${String(this.results.length).padStart(2)}] ${r.ok ? 'done' : 'FAIL'} ${r.name}`);
        task.resolve(r);
        this.#pump();
      });
    }
  }
}

const q = new TaskQueue({ concurrency: 3, retries: 2, timeoutMs: 150 });
const work = (ms, value) => async () => { await sleep(ms); return value; };
let flaky = 0;
const tasks = [
  q.add('resize images', work(40, 12)),
  q.add('compile css', work(20, 'ok')),
  q.add('flaky upload', async (attempt) => { flaky++; await sleep(10); if (attempt < 3) throw new Error('connection reset'); return 'uploaded'; }),
  q.add('slow report', work(400, null)),
  q.add('always broken', async () => { throw new TypeError('undefined is not a function'); }),
  q.add('checksum', work(5, 'c0ffee')),
];

const t0 = Date.now();
const results = await Promise.all(tasks);
console.log(`finished ${results.length} tasks in ~${Math.round((Date.now() - t0) / 50) * 50}ms`);
for (const r of results) {
  console.log(`${r.name.padEnd(14)} ${r.ok ? `value=${JSON.stringify(r.value)}` : `error="${r.error}"`} attempts=${r.attempts}`);
}
console.log('flaky attempts:', flaky);
