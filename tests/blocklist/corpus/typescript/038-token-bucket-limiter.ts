// Token-bucket and sliding-window rate limiters compared on a simulated burst of requests.
interface Limiter {
  readonly name: string;
  tryAcquire(nowMs: number, key: string): boolean;
}

class TokenBucket implements Limiter {
  readonly name: string;
  private readonly buckets = new Map<string, { tokens: number; last: number }>();
  constructor(private readonly capacity: number, private readonly refillPerSec: number) {
    this.name = `token-bucket(cap=${capacity}, ${refillPerSec}/s)`;
  }
  tryAcquire(now: number, key: string): boolean {
    const b = this.buckets.get(key) ?? { tokens: this.capacity, last: now };
    b.tokens = Math.min(this.capacity, b.tokens + ((now - b.last) / 1000) * this.refillPerSec);
    b.last = now;
    const ok = b.tokens >= 1;
    if (ok) b.tokens -= 1;
    this.buckets.set(key, b);
    return ok;
  }
}

class SlidingWindow implements Limiter {
  readonly name: string;
  private readonly hits = new Map<string, number[]>();
  constructor(private readonly limit: number, private readonly windowMs: number) {
    this.name = `sliding-window(${limit} per ${windowMs}ms)`;
  }
  tryAcquire(now: number, key: string): boolean {
    const recent = (this.hits.get(key) ?? []).filter((t) => now - t < this.windowMs);
    const ok = recent.length < this.limit;
    if (ok) recent.push(now);
    this.hits.set(key, recent);
    return ok;
  }
}

// Deterministic traffic: client "a" bursts, client "b" is steady.
type Req = { t: number; client: 'a' | 'b' };
const traffic: Req[] = [
  ...Array.from({ length: 25 }, (_, i): Req => ({ t: 100 + i * 10, client: 'a' })),
  ...Array.from({ length: 20 }, (_, i): Req => ({ t: i * 150, client: 'b' })),
  ...Array.from({ length: 10 }, (_, i): Req => ({ t: 2000 + i * 5, client: 'a' })),
].sort((x, y) => x.t - y.t);

const limiters: Limiter[] = [new TokenBucket(10, 5), new SlidingWindow(10, 1000)];
for (const lim of limiters) {
  const stats: Record<Req['client'], { ok: number; rejected: number }> = { a: { ok: 0, rejected: 0 }, b: { ok: 0, rejected: 0 } };
  const timeline: string[] = [];
  for (const { t, client } of traffic) {
    const ok = lim.tryAcquire(t, client);
    stats[client][ok ? 'ok' : 'rejected']++;
    if (client === 'a') timeline.push(ok ? '█' : '·');
  }
  console.log(lim.name);
  console.log(`  client a: ${stats.a.ok} ok / ${stats.a.rejected} rejected   ${timeline.join('')}`);
  console.log(`  client b: ${stats.b.ok} ok / ${stats.b.rejected} rejected`);
}

const retryAfter = (limiter: TokenBucket, now: number): number => {
  let t = now;
  while (!limiter.tryAcquire(t, 'probe')) t += 50;
  return t - now;
};
const probe = new TokenBucket(1, 2);
probe.tryAcquire(0, 'probe');
console.log(`after draining a 1-token bucket, the next request succeeds ${retryAfter(probe, 0)}ms later`);
