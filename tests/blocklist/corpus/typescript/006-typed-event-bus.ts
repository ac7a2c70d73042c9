// A strongly typed event bus: event names map to payload types checked at compile time.
interface AppEvents {
  'user:login': { userId: string; at: Date };
  'user:logout': { userId: string };
  'cart:add': { userId: string; sku: string; qty: number };
  'cart:checkout': { userId: string; total: number };
}

type Handler<T> = (payload: T) => void;

class EventBus<Events extends { [K in keyof Events]: object }> {
  private handlers: { [K in keyof Events]?: Set<Handler<Events[K]>> } = {};
  private history: Array<{ event: keyof Events; payload: unknown }> = [];

  on<K extends keyof Events>(event: K, handler: Handler<Events[K]>): () => void {
    const set = (this.handlers[event] ??= new Set());
    set.add(handler);
    return () => set.delete(handler);
  }

  once<K extends keyof Events>(event: K, handler: Handler<Events[K]>): void {
    const off = this.on(event, (p) => {
      off();
      handler(p);
    });
  }

  emit<K extends keyof Events>(event: K, payload: Events[K]): number {
    this.history.push({ event, payload });
    const set = this.handlers[event];
    if (!set) return 0;
    for (const h of [...set]) {
      try {
        h(payload);
      } catch (e) {
        console.log(`  handler for ${String(event)} threw: ${(e as Error).message}`);
      }
    }
    return set.size;
  }

  get log(): readonly string[] {
    return this.history.map((h) => String(h.event));
  }
}

const bus = new EventBus<AppEvents>();
const carts = new Map<string, { sku: string; qty: number }[]>();
const sessions = new Set<string>();

bus.on('user:login', ({ userId, at }) => {
  sessions.add(userId);
  console.log(`${userId} logged in at ${at.toISOString().slice(11, 19)}`);
});
bus.on('user:logout', ({ userId }) => sessions.delete(userId));
bus.on('cart:add', ({ userId, sku, qty }) => {
  if (!sessions.has(userId)) throw new Error(`${userId} is not logged in`);
  if (qty <= 0) throw new RangeError(`qty must be positive, got ${qty}`);
  carts.set(userId, [...(carts.get(userId) ?? []), { sku, qty }]);
});
bus.once('cart:checkout', ({ userId, total }) => console.log(`first checkout: ${userId} paid ${total.toFixed(2)}`));
const stopAudit = bus.on('cart:checkout', ({ userId }) => console.log(`audit: checkout by ${userId}`));

bus.emit('user:login', { userId: 'u1', at: new Date(Date.UTC(2024, 5, 1, 9, 15, 0)) });
bus.emit('cart:add', { userId: 'u1', sku: 'book', qty: 2 });
bus.emit('cart:add', { userId: 'u2', sku: 'pen', qty: 1 });
bus.emit('cart:add', { userId: 'u1', sku: 'lamp', qty: 0 });
bus.emit('cart:checkout', { userId: 'u1', total: 31.5 });
stopAudit();
bus.emit('cart:checkout', { userId: 'u1', total: 5 });
bus.emit('user:logout', { userId: 'u1' });

console.log('carts:', JSON.stringify(Object.fromEntries(carts)));
console.log('sessions open:', sessions.size, '| events:', bus.log.join(', '));
