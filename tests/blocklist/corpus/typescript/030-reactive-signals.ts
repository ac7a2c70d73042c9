// Minimal reactive signals (like in UI frameworks): signal, computed with dependency tracking, effect.
type Subscriber = () => void;
let currentObserver: Subscriber | null = null;

interface Signal<T> {
  (): T;
  set(value: T): void;
  update(fn: (prev: T) => T): void;
}

function signal<T>(initial: T, equals: (a: T, b: T) => boolean = Object.is): Signal<T> {
  let value = initial;
  const subscribers = new Set<Subscriber>();
  const read = (() => {
    if (currentObserver) subscribers.add(currentObserver);
    return value;
  }) as Signal<T>;
  read.set = (next: T) => {
    if (equals(value, next)) return;
    value = next;
    for (const s of [...subscribers]) s();
  };
  read.update = (fn) => read.set(fn(value));
  return read;
}

function effect(fn: () => void): void {
  const run: Subscriber = () => {
    const prev = currentObserver;
    currentObserver = run;
    try { fn(); } finally { currentObserver = prev; }
  };
  run();
}

function computed<T>(fn: () => T): () => T {
  const s = signal<T>(undefined as T);
  effect(() => s.set(fn()));
  return () => s();
}

interface CartItem { name: string; price: number; qty: number }

const items = signal<CartItem[]>([{ name: 'Keyboard', price: 49.9, qty: 1 }]);
const discountCode = signal<string>('');
const subtotal = computed(() => items().reduce((s, i) => s + i.price * i.qty, 0));
const discount = computed(() => (/^SAVE(\d{1,2})$/.exec(discountCode())?.[1] ?? '0'));
const total = computed(() => subtotal() * (1 - Number(discount()) / 100));

const renders: string[] = [];
effect(() => {
  const line = `${items().length} item(s), subtotal ${subtotal().toFixed(2)}, -${discount()}% => total ${total().toFixed(2)}`;
  if (renders.at(-1) !== line) renders.push(line);
});

items.update((xs) => [...xs, { name: 'Mouse', price: 19.5, qty: 2 }]);
discountCode.set('SAVE10');
discountCode.set('SAVE10'); // same value: nothing re-runs
discountCode.set('bogus');
items.update((xs) => xs.map((i) => (i.name === 'Keyboard' ? { ...i, qty: 2 } : i)));
discountCode.set('SAVE25');

renders.forEach((r, i) => console.log(`render ${i + 1}: ${r}`));
console.log(`final total: ${total().toFixed(2)}`);
