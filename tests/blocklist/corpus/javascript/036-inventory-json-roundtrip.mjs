// Keep an inventory in a JSON file under /work: load, update, validate, save atomically, reload.
import { readFile, writeFile, rename, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';

const dir = path.resolve('inventory-data');
const file = path.join(dir, 'inventory.json');
await mkdir(dir, { recursive: true });

// Seed data kept as a JSON string, as it might arrive from an HTTP body or a message queue.
const seed = '{"updated":"2024-05-01T08:00:00.000Z","items":[{"sku":"PEN-BLU","name":"Blue pen","qty":120,"price":0.8},' +
  '{"sku":"NB-A5","name":"A5 notebook \\"dotted\\"","qty":35,"price":4.5},{"sku":"CLIP-S","name":"Small clips","qty":0,"price":1.2}]}';
await writeFile(file, JSON.stringify(JSON.parse(seed), null, 2));

async function load() {
  const raw = await readFile(file, 'utf8');
  return JSON.parse(raw, (key, value) => (key === 'updated' ? new Date(value) : value));
}

async function save(inv) {
  const tmp = `${file}.tmp-${process.pid}`;
  await writeFile(tmp, JSON.stringify(inv, (k, v) => (typeof v === 'number' ? Math.round(v * 100) / 100 : v), 2) + '\n');
  await rename(tmp, file); // atomic replace on the same filesystem
}

function applyChanges(inv, changes) {
  const bySku = new Map(inv.items.map((i) => [i.sku, { ...i }])); // copies, so a failed batch leaves inv untouched
  for (const { sku, delta, ...rest } of changes) {
    const item = bySku.get(sku) ?? { sku, name: rest.name ?? sku, qty: 0, price: rest.price ?? 0 };
    item.qty += delta ?? 0;
    if (item.qty < 0) throw new RangeError(`${sku} would go negative (${item.qty})`);
    Object.assign(item, rest);
    bySku.set(sku, item);
  }
  return { updated: new Date('2024-05-02T09:30:00Z'), items: [...bySku.values()].sort((a, b) => a.sku.localeCompare(b.sku)) };
}

let inv = await load();
console.log(`loaded ${inv.items.length} items, last updated ${inv.updated.toISOString()}`);
inv = applyChanges(inv, [
  { sku: 'PEN-BLU', delta: -20 },
  { sku: 'CLIP-S', delta: 50, price: 1.15 },
  { sku: 'TAPE-01', delta: 10, name: "Tape 'clear'", price: 2.333 },
]);
try {
  applyChanges(inv, [{ sku: 'NB-A5', delta: -100 }]);
} catch (e) {
  console.log('rejected change:', e.message);
}
await save(inv);

const again = await load();
const value = again.items.reduce((s, i) => s + i.qty * i.price, 0);
for (const i of again.items) console.log(`${i.sku.padEnd(8)} ${i.name.padEnd(22)} ${String(i.qty).padStart(4)} × ${i.price.toFixed(2)}`);
console.log(`stock value: ${value.toFixed(2)}`);
console.log('file starts with:', (await readFile(file, 'utf8')).split('\n').slice(0, 2).join(' ').trim());
await rm(dir, { recursive: true });
