// Generators for combinatorics: permutations, combinations, and all N-Queens solutions via bitmasks.
function* permutations<T>(items: readonly T[]): Generator<T[]> {
  if (items.length <= 1) { yield [...items]; return; }
  for (let i = 0; i < items.length; i++) {
    const rest = [...items.slice(0, i), ...items.slice(i + 1)];
    for (const p of permutations(rest)) yield [items[i], ...p];
  }
}

function* combinations<T>(items: readonly T[], k: number, start = 0): Generator<T[]> {
  if (k === 0) { yield []; return; }
  for (let i = start; i <= items.length - k; i++) {
    for (const c of combinations(items, k - 1, i + 1)) yield [items[i], ...c];
  }
}

function* queens(n: number): Generator<number[]> {
  const full = (1 << n) - 1;
  const cols: number[] = [];
  function* place(colsMask: number, diag1: number, diag2: number): Generator<number[]> {
    if (colsMask === full) { yield [...cols]; return; }
    let free = full & ~(colsMask | diag1 | diag2);
    while (free) {
      const bit = free & -free;
      free ^= bit;
      cols.push(31 - Math.clz32(bit));
      yield* place(colsMask | bit, ((diag1 | bit) << 1) & full, (diag2 | bit) >> 1);
      cols.pop();
    }
  }
  yield* place(0, 0, 0);
}

function take<T>(gen: Iterable<T>, n: number): T[] {
  const out: T[] = [];
  for (const x of gen) { if (out.length >= n) break; out.push(x); }
  return out;
}

const count = (gen: Iterable<unknown>): number => { let c = 0; for (const _ of gen) c++; return c; };

console.log('permutations of ABC:', [...permutations(['A', 'B', 'C'])].map((p) => p.join('')).join(' '));
console.log('5 choose 3:', [...combinations([1, 2, 3, 4, 5], 3)].map((c) => `{${c}}`).join(' '));

// Which 3 coins make exactly 0.65?
const coins = [0.05, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5];
const hits = [...combinations(coins, 3)].filter((c) => Math.abs(c.reduce((a, b) => a + b, 0) - 0.65) < 1e-9);
console.log('coin triples summing to 0.65:', hits.map((h) => h.join('+')).join(', '));

for (let n = 4; n <= 10; n++) console.log(`${n}-queens: ${count(queens(n))} solutions`);

const [first] = take(queens(8), 1);
console.log('first 8-queens solution:');
for (const col of first) console.log('  ' + Array.from({ length: 8 }, (_, c) => (c === col ? '♛' : '·')).join(' '));
