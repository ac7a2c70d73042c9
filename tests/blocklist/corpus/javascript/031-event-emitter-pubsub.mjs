// An order pipeline wired together with EventEmitter: listeners, once, wildcard logging, errors.
import { EventEmitter, once } from 'node:events';

class OrderBus extends EventEmitter {
  emit(event, ...args) {
    if (event !== 'newListener' && event !== '*') super.emit('*', event, ...args);
    return super.emit(event, ...args);
  }
}

const bus = new OrderBus();
const audit = [];
const inventory = new Map([['apple', 5], ['pear', 0], ['plum', 12]]);

bus.on('*', (event, payload) => audit.push(`${event}:${payload?.id ?? '-'}`));

bus.on('order:placed', (order) => {
  const missing = order.items.filter(([sku, qty]) => (inventory.get(sku) ?? 0) < qty);
  if (missing.length) {
    bus.emit('order:rejected', { ...order, reason: `out of stock: ${missing.map(([s]) => s).join(', ')}` });
    return;
  }
  for (const [sku, qty] of order.items) inventory.set(sku, inventory.get(sku) - qty);
  bus.emit('order:reserved', order);
});

bus.on('order:reserved', (order) => {
  const total = order.items.reduce((s, [, qty, price]) => s + qty * price, 0);
  if (total > 100) bus.emit('error', new Error(`order ${order.id} exceeds the 100.00 limit (${total.toFixed(2)})`));
  else bus.emit('order:paid', { ...order, total });
});

bus.on('order:paid', (o) => console.log(`✔ order ${o.id} paid ${o.total.toFixed(2)}`));
bus.on('order:rejected', (o) => console.log(`✖ order ${o.id} rejected (${o.reason})`));
bus.on('error', (err) => console.log(`⚠ ${err.message}`));
bus.once('order:paid', (o) => console.log(`  first paid order was ${o.id}`));

const orders = [
  { id: 'A1', items: [['apple', 2, 0.5], ['plum', 3, 0.75]] },
  { id: 'A2', items: [['pear', 1, 0.9]] },
  { id: 'A3', items: [['plum', 9, 12.5]] },
  { id: 'A4', items: [['apple', 3, 0.5]] },
];
for (const o of orders) bus.emit('order:placed', o);

// Awaiting an event with events.once
setTimeout(() => bus.emit('shutdown', { id: 'bus', at: 'end' }), 10);
const [info] = await once(bus, 'shutdown');
console.log('shutdown received:', JSON.stringify(info));
console.log('inventory now:', Object.fromEntries(inventory));
console.log('audit trail:', audit.join(' '));
console.log('listener counts:', bus.eventNames().map((e) => `${String(e)}=${bus.listenerCount(e)}`).join(', '));
