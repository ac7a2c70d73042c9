// Generic Stack, Queue (ring buffer) and a typed bracket matcher built on them.
class Stack<T> implements Iterable<T> {
  private items: T[] = [];
  push(...xs: T[]): this {
    this.items.push(...xs);
    return this;
  }
  pop(): T | undefined {
    return this.items.pop();
  }
  peek(): T | undefined {
    return this.items[this.items.length - 1];
  }
  get size(): number {
    return this.items.length;
  }
  *[Symbol.iterator](): Iterator<T> {
    for (let i = this.items.length - 1; i >= 0; i--) yield this.items[i];
  }
}

class RingQueue<T> {
  private buf: (T | undefined)[];
  private head = 0;
  private count = 0;
  constructor(private capacity: number) {
    this.buf = new Array(capacity);
  }
  enqueue(x: T): void {
    if (this.count === this.capacity) this.grow();
    this.buf[(this.head + this.count) % this.capacity] = x;
    this.count++;
  }
  dequeue(): T | undefined {
    if (this.count === 0) return undefined;
    const x = this.buf[this.head];
    this.buf[this.head] = undefined;
    this.head = (this.head + 1) % this.capacity;
    this.count--;
    return x;
  }
  private grow(): void {
    const items: (T | undefined)[] = [];
    for (let i = 0; i < this.count; i++) items.push(this.buf[(this.head + i) % this.capacity]);
    this.capacity *= 2;
    this.buf = [...items, ...new Array(this.capacity - items.length)];
    this.head = 0;
  }
  get length(): number {
    return this.count;
  }
}

const PAIRS = { ')': '(', ']': '[', '}': '{', '>': '<' } as const;
type Closer = keyof typeof PAIRS;
const isCloser = (c: string): c is Closer => c in PAIRS;

function checkBrackets(src: string): { ok: true } | { ok: false; at: number; reason: string } {
  const stack = new Stack<{ ch: string; at: number }>();
  for (let i = 0; i < src.length; i++) {
    const ch = src[i];
    if ('([{<'.includes(ch)) stack.push({ ch, at: i });
    else if (isCloser(ch)) {
      const open = stack.pop();
      if (!open) return { ok: false, at: i, reason: `unexpected '${ch}'` };
      if (open.ch !== PAIRS[ch]) return { ok: false, at: i, reason: `'${ch}' closes '${open.ch}' from ${open.at}` };
    }
  }
  const left = stack.peek();
  return left ? { ok: false, at: left.at, reason: `'${left.ch}' never closed` } : { ok: true };
}

for (const s of ['fn(a[1], {b: <T>(x)})', 'map[key)', 'if (x) { y(', '])']) {
  const r = checkBrackets(s);
  console.log(`${s.padEnd(22)} ${r.ok ? 'balanced' : `error at ${r.at}: ${r.reason}`}`);
}

const q = new RingQueue<number>(2);
for (let i = 1; i <= 5; i++) q.enqueue(i * i);
const drained: number[] = [];
q.dequeue();
q.enqueue(36);
while (q.length) drained.push(q.dequeue()!);
console.log('queue drained in FIFO order:', drained.join(' '));

const st = new Stack<string>().push('a', 'b', 'c');
console.log('stack iterates top-down:', [...st].join(''), 'size', st.size);
