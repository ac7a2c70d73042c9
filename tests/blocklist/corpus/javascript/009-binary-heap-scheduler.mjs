// Simulate a job scheduler that always runs the highest-priority job next (max-heap).
class MaxHeap {
  constructor(compare) {
    this.data = [];
    this.compare = compare;
  }
  get length() { return this.data.length; }
  push(x) {
    this.data.push(x);
    this.#up(this.data.length - 1);
  }
  pop() {
    const top = this.data[0];
    const end = this.data.pop();
    if (this.data.length > 0) {
      this.data[0] = end;
      this.#down(0);
    }
    return top;
  }
  #up(i) {
    while (i > 0) {
      const parent = Math.floor((i - 1) / 2);
      if (this.compare(this.data[i], this.data[parent]) <= 0) return;
      [this.data[i], this.data[parent]] = [this.data[parent], this.data[i]];
      i = parent;
    }
  }
  #down(i) {
    const n = this.data.length;
    for (;;) {
      let best = i;
      for (const c of [2 * i + 1, 2 * i + 2]) {
        if (c < n && this.compare(this.data[c], this.data[best]) > 0) best = c;
      }
      if (best === i) return;
      [this.data[i], this.data[best]] = [this.data[best], this.data[i]];
      i = best;
    }
  }
}

const jobs = [
  { id: 'backup', priority: 2, duration: 30, arrives: 0 },
  { id: 'email', priority: 5, duration: 5, arrives: 0 },
  { id: 'report', priority: 3, duration: 20, arrives: 10 },
  { id: 'alert', priority: 9, duration: 2, arrives: 12 },
  { id: 'cleanup', priority: 1, duration: 10, arrives: 15 },
  { id: 'invoice', priority: 5, duration: 8, arrives: 40 },
];

const byPriority = (a, b) => a.priority - b.priority || b.arrives - a.arrives;
const heap = new MaxHeap(byPriority);
let clock = 0;
let pending = [...jobs].sort((a, b) => a.arrives - b.arrives);
const log = [];

while (pending.length || heap.length) {
  while (pending.length && pending[0].arrives <= clock) heap.push(pending.shift());
  if (!heap.length) { clock = pending[0].arrives; continue; }
  const job = heap.pop();
  const wait = clock - job.arrives;
  log.push({ ...job, start: clock, wait });
  clock += job.duration;
}

console.log('job       prio  start  wait');
for (const j of log) {
  console.log(`${j.id.padEnd(9)} ${String(j.priority).padStart(4)} ${String(j.start).padStart(6)} ${String(j.wait).padStart(5)}`);
}
const meanWait = log.reduce((s, j) => s + j.wait, 0) / log.length;
console.log(`makespan=${clock} mean wait=${meanWait.toFixed(2)}`);
