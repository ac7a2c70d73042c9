// A generic cache with TTL expiry and LRU eviction, using an injectable clock for determinism.
interface Clock {
  now(): number;
}

class ManualClock implements Clock {
  constructor(private t = 0) {}
  now(): number { return this.t; }
  advance(ms: number): void { this.t += ms; }
}

interface CacheOptions {
  maxEntries: number;
  ttlMs: number;
  clock?: Clock;
}

interface Stats {
  hits: number;
  misses: number;
  expired: number;
  evicted: number;
}

class TtlCache<K, V> {
  private readonly entries = new Map<K, { value: V; expires: number }>();
  private readonly clock: Clock;
  readonly stats: Stats = { hits: 0, misses: 0, expired: 0, evicted: 0 };

  constructor(private readonly opts: CacheOptions) {
    this.clock = opts.clock ?? { now: () => Date.now() };
  }

  get(key: K): V | undefined {
    const e = this.entries.get(key);
    if (!e) { this.stats.misses++; return undefined; }
    this.entries.delete(key);
    if (e.expires <= this.clock.now()) { this.stats.expired++; this.stats.misses++; return undefined; }
    this.entries.set(key, e); // refresh recency
    this.stats.hits++;
    return e.value;
  }

  set(key: K, value: V, ttlMs = this.opts.ttlMs): void {
    this.entries.delete(key);
    while (this.entries.size >= this.opts.maxEntries) {
      const oldest = this.entries.keys().next().value as K;
      this.entries.delete(oldest);
      this.stats.evicted++;
    }
    this.entries.set(key, { value, expires: this.clock.now() + ttlMs });
  }

  async getOrLoad(key: K, load: (k: K) => Promise<V>): Promise<V> {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    const v = await load(key);
    this.set(key, v);
    return v;
  }

  keys(): K[] { return [...this.entries.keys()]; }
}

const clock = new ManualClock();
const cache = new TtlCache<string, { temp: number }>({ maxEntries: 3, ttlMs: 60_000, clock });
let loads = 0;
const loadWeather = async (city: string) => {
  loads++;
  await new Promise((r) => setTimeout(r, 1));
  return { temp: [...city].reduce((s, c) => s + c.charCodeAt(0), 0) % 35 };
};

const timeline: Array<[advanceMs: number, city: string]> = [
  [0, 'Oslo'], [1_000, 'Lima'], [1_000, 'Oslo'], [5_000, 'Cairo'], [1_000, 'Perth'],
  [1_000, 'Lima'], [70_000, 'Oslo'], [0, 'Perth'], [500, 'Perth'],
];
for (const [advance, city] of timeline) {
  clock.advance(advance);
  const before = loads;
  const w = await cache.getOrLoad(city, loadWeather);
  console.log(`t=${String(clock.now() / 1000).padStart(5)}s ${city.padEnd(6)} ${w.temp}°C ${loads > before ? '(loaded)' : '(cached)'}  keys=[${cache.keys().join(',')}]`);
}
console.log('stats:', JSON.stringify(cache.stats), 'loads:', loads);
