// Retry with exponential backoff and jitter, retry-able vs fatal errors, and a circuit breaker.
class HttpError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
    this.name = 'HttpError';
  }
  get retryable(): boolean {
    return this.status === 429 || this.status >= 500;
  }
}

interface RetryOptions {
  retries: number;
  baseMs: number;
  maxMs: number;
  onRetry?: (attempt: number, delayMs: number, err: unknown) => void;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function retry<T>(fn: (attempt: number) => Promise<T>, opts: RetryOptions): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      const retryable = err instanceof HttpError ? err.retryable : err instanceof TypeError === false;
      if (!retryable || attempt > opts.retries) throw err;
      const exp = Math.min(opts.maxMs, opts.baseMs * 2 ** (attempt - 1));
      const delay = Math.round(exp / 2 + Math.random() * (exp / 2)); // "equal jitter"
      opts.onRetry?.(attempt, delay, err);
      await sleep(delay);
    }
  }
}

class CircuitBreaker {
  private failures = 0;
  private openedAt: number | null = null;
  constructor(private readonly threshold: number, private readonly coolDownMs: number) {}
  get state(): 'closed' | 'open' | 'half-open' {
    if (this.openedAt === null) return 'closed';
    return Date.now() - this.openedAt >= this.coolDownMs ? 'half-open' : 'open';
  }
  async call<T>(fn: () => Promise<T>): Promise<T> {
    if (this.state === 'open') throw new Error('circuit open: failing fast');
    try {
      const v = await fn();
      this.failures = 0;
      this.openedAt = null;
      return v;
    } catch (e) {
      if (++this.failures >= this.threshold || this.state === 'half-open') this.openedAt = Date.now();
      throw e;
    }
  }
}

// A fake flaky service: the script of responses is fixed, so the outcome is predictable.
function fakeService(script: Array<number | string>) {
  let i = 0;
  return async (): Promise<string> => {
    const step = script[Math.min(i++, script.length - 1)];
    await sleep(1);
    if (typeof step === 'number') throw new HttpError(step, `HTTP ${step}`);
    return step;
  };
}

const log = (attempt: number, delay: number, err: unknown) => console.log(`  attempt ${attempt} failed (${(err as Error).message}); retrying in ~${delay}ms`);
const opts: RetryOptions = { retries: 4, baseMs: 10, maxMs: 80, onRetry: log };

for (const [name, script] of [['flaky', [503, 429, 'ok: {"items":3}']], ['not found', [404]], ['down', [500, 502, 503, 504, 500, 500]]] as const) {
  console.log(`${name}:`);
  try {
    console.log('  result:', await retry(fakeService([...script]), opts));
  } catch (e) {
    console.log(`  gave up: ${(e as Error).message}`);
  }
}

const breaker = new CircuitBreaker(3, 40);
const down = fakeService([500, 500, 500, 'recovered']);
for (let i = 1; i <= 7; i++) {
  if (i === 6) await sleep(50);
  try {
    console.log(`call ${i}: ${await breaker.call(down)} [${breaker.state}]`);
  } catch (e) {
    console.log(`call ${i}: ${(e as Error).message} [${breaker.state}]`);
  }
}
