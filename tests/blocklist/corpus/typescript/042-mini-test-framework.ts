// A miniature test framework (describe/it/expect with typed matchers) testing a small Stack class.
type TestFn = () => void | Promise<void>;
interface TestCase { name: string; fn: TestFn }
interface Suite { name: string; tests: TestCase[]; beforeEach: TestFn[] }

const suites: Suite[] = [];
let current: Suite | null = null;

function describe(name: string, body: () => void): void {
  current = { name, tests: [], beforeEach: [] };
  suites.push(current);
  body();
  current = null;
}
const it = (name: string, fn: TestFn) => current!.tests.push({ name, fn });
const beforeEach = (fn: TestFn) => current!.beforeEach.push(fn);

class AssertionError extends Error { override name = 'AssertionError'; }

function expect<T>(actual: T) {
  const fail = (msg: string): never => { throw new AssertionError(msg); };
  const show = (v: unknown) => (typeof v === 'string' ? `"${v}"` : JSON.stringify(v));
  return {
    toBe(expected: T) { if (!Object.is(actual, expected)) fail(`expected ${show(actual)} to be ${show(expected)}`); },
    toEqual(expected: T) { if (JSON.stringify(actual) !== JSON.stringify(expected)) fail(`expected ${show(actual)} to equal ${show(expected)}`); },
    toBeTruthy() { if (!actual) fail(`expected ${show(actual)} to be truthy`); },
    toMatch(this: void, re: RegExp) { if (typeof actual !== 'string' || !re.test(actual)) fail(`expected ${show(actual)} to match ${re}`); },
    toThrow(pattern?: RegExp) {
      if (typeof actual !== 'function') return fail('toThrow needs a function');
      try { (actual as () => unknown)(); } catch (e) {
        if (pattern && !pattern.test((e as Error).message)) fail(`threw "${(e as Error).message}", expected ${pattern}`);
        return;
      }
      fail('expected function to throw');
    },
  };
}

class Stack<T> {
  private items: T[] = [];
  push(x: T) { this.items.push(x); }
  pop(): T {
    if (!this.items.length) throw new RangeError('pop from empty stack');
    return this.items.pop()!;
  }
  get size() { return this.items.length; }
  toArray() { return [...this.items]; }
}

describe('Stack', () => {
  let s: Stack<number>;
  beforeEach(() => { s = new Stack<number>(); });
  it('starts empty', () => expect(s.size).toBe(0));
  it('is LIFO', () => { s.push(1); s.push(2); expect(s.pop()).toBe(2); expect(s.toArray()).toEqual([1]); });
  it('throws on empty pop', () => expect(() => s.pop()).toThrow(/empty/));
  it('async push works', async () => { await new Promise((r) => setTimeout(r, 2)); s.push(7); expect(s.size).toBe(1); });
  it('deliberately failing example', () => { s.push(3); expect(s.toArray()).toEqual([4]); });
});

describe('strings', () => {
  it('matches ISO dates', () => expect('2024-06-01').toMatch(/^\d{4}-\d{2}-\d{2}$/));
  it('template literal with nested expression', () => {
    const n: number = 3;
    expect(`${n} item${n === 1 ? '' : 's'} at ${`$${(n * 1.5).toFixed(2)}`}`).toBe('3 items at $4.50');
  });
});

let passed = 0, failed = 0;
for (const suite of suites) {
  console.log(suite.name);
  for (const t of suite.tests) {
    try {
      for (const hook of suite.beforeEach) await hook();
      await t.fn();
      passed++;
      console.log(`  ✓ ${t.name}`);
    } catch (e) {
      failed++;
      console.log(`  ✗ ${t.name}: ${(e as Error).message}`);
    }
  }
}
console.log(`\n${passed + failed} tests: ${passed} passing, ${failed} failing (1 failure expected)`);
