// A tiny persistent key-value store: append-only JSON-lines log in /tmp, replay on open, compaction.
import { appendFileSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

type Entry<V> = { op: 'set'; key: string; value: V; ts: number } | { op: 'del'; key: string; ts: number };

class LogStore<V> {
  private readonly data = new Map<string, V>();
  private writes = 0;
  private clock = 0;

  private constructor(private readonly file: string) {}

  static open<V>(file: string): LogStore<V> {
    const store = new LogStore<V>(file);
    if (existsSync(file)) {
      const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
      for (const [i, line] of lines.entries()) {
        try {
          store.applyEntry(JSON.parse(line) as Entry<V>);
        } catch {
          console.log(`  ignoring corrupt record on line ${i + 1}: ${line.slice(0, 30)}…`);
        }
      }
    }
    return store;
  }

  private applyEntry(e: Entry<V>): void {
    this.clock = Math.max(this.clock, e.ts);
    if (e.op === 'set') this.data.set(e.key, e.value);
    else this.data.delete(e.key);
  }

  private append(e: Entry<V>): void {
    appendFileSync(this.file, JSON.stringify(e) + '\n');
    this.applyEntry(e);
    this.writes++;
  }

  set(key: string, value: V): void { this.append({ op: 'set', key, value, ts: ++this.clock }); }
  delete(key: string): boolean {
    if (!this.data.has(key)) return false;
    this.append({ op: 'del', key, ts: ++this.clock });
    return true;
  }
  get(key: string): V | undefined { return this.data.get(key); }
  get size(): number { return this.data.size; }

  compact(): { before: number; after: number } {
    const before = statSync(this.file).size;
    const tmp = `${this.file}.compact`;
    const lines = [...this.data].map(([key, value], i): Entry<V> => ({ op: 'set', key, value, ts: i + 1 }));
    writeFileSync(tmp, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    renameSync(tmp, this.file);
    return { before, after: statSync(this.file).size };
  }
}

interface Session { user: string; expires: string; scopes: string[] }

const dir = mkdtempSync('/tmp/kv-');
const file = join(dir, 'sessions.jsonl');
try {
  let store = LogStore.open<Session>(file);
  for (let i = 0; i < 50; i++) {
    store.set(`s${i % 5}`, { user: `user${i % 5}`, expires: new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString(), scopes: i % 2 ? ['read'] : ['read', 'write'] });
  }
  store.delete('s3');
  console.log(`wrote 51 records; live keys: ${store.size}`);

  appendFileSync(file, '{"op":"set","key":"s9","value": TRUNCATED\n'); // simulate a torn write
  store = LogStore.open<Session>(file);
  console.log(`reopened: ${store.size} keys, s4 =`, JSON.stringify(store.get('s4')));
  console.log(`s3 deleted: ${store.get('s3') === undefined}`);

  const { before, after } = store.compact();
  console.log(`compacted log from ${before} to ${after} bytes (${Math.round((1 - after / before) * 100)}% smaller)`);
  const reopened = LogStore.open<Session>(file);
  console.log(`after compaction: ${reopened.size} keys, s0 scopes = ${reopened.get('s0')?.scopes.join('+')}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
