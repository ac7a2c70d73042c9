// Discrete-event simulation of a bank with several tellers; compares staffing levels.
class Rng {
  constructor(private state: number) {}
  next(): number {
    // xorshift32
    let x = this.state;
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    this.state = x >>> 0;
    return this.state / 2 ** 32;
  }
  exponential(mean: number): number {
    return -Math.log(1 - this.next()) * mean;
  }
}

interface Customer { id: number; arrival: number; service: number }
type Event = { time: number; kind: 'arrive'; customer: Customer } | { time: number; kind: 'depart'; teller: number };

class EventQueue {
  private events: Event[] = [];
  push(e: Event): void {
    const i = this.events.findIndex((x) => x.time > e.time);
    if (i === -1) this.events.push(e);
    else this.events.splice(i, 0, e);
  }
  pop(): Event | undefined { return this.events.shift(); }
  get size(): number { return this.events.length; }
}

interface Result { tellers: number; served: number; meanWait: number; maxWait: number; maxQueue: number; utilisation: number }

function simulate(tellers: number, customers: readonly Customer[], closeAt: number): Result {
  const q = new EventQueue();
  customers.forEach((c) => q.push({ time: c.arrival, kind: 'arrive', customer: c }));
  const busyUntil = new Array<number>(tellers).fill(0);
  const busyTime = new Array<number>(tellers).fill(0);
  const line: Customer[] = [];
  const waits: number[] = [];
  let maxQueue = 0;
  let now = 0;
  const startService = (teller: number, c: Customer) => {
    waits.push(now - c.arrival);
    busyUntil[teller] = now + c.service;
    busyTime[teller] += c.service;
    q.push({ time: now + c.service, kind: 'depart', teller });
  };
  while (q.size) {
    const ev = q.pop()!;
    now = ev.time;
    if (ev.kind === 'arrive') {
      const free = busyUntil.findIndex((t) => t <= now);
      if (free >= 0) startService(free, ev.customer);
      else line.push(ev.customer);
      maxQueue = Math.max(maxQueue, line.length);
    } else {
      const next = line.shift();
      if (next) startService(ev.teller, next);
    }
  }
  const meanWait = waits.reduce((a, b) => a + b, 0) / waits.length;
  return { tellers, served: waits.length, meanWait, maxWait: Math.max(...waits), maxQueue, utilisation: busyTime.reduce((a, b) => a + b, 0) / (tellers * Math.max(now, closeAt)) };
}

const rng = new Rng(20240611);
const customers: Customer[] = [];
for (let t = rng.exponential(1.5), id = 1; t < 480; t += rng.exponential(1.5), id++) {
  customers.push({ id, arrival: t, service: 2 + rng.exponential(2.5) });
}
console.log(`${customers.length} customers over an 8-hour day (mean service ${(customers.reduce((s, c) => s + c.service, 0) / customers.length).toFixed(2)} min)`);
console.log('tellers  served  mean wait  max wait  max queue  utilisation');
for (const n of [2, 3, 4, 5, 6]) {
  const r = simulate(n, customers, 480);
  console.log(`${String(r.tellers).padStart(7)} ${String(r.served).padStart(7)} ${r.meanWait.toFixed(1).padStart(9)}m ${r.maxWait.toFixed(1).padStart(8)}m ${String(r.maxQueue).padStart(10)} ${(r.utilisation * 100).toFixed(1).padStart(11)}%`);
}
