// Money arithmetic in integer cents with BigInt, currency formatting via Intl, and bill splitting.
const toCents = (s) => {
  const m = /^(-)?(\d+)(?:\.(\d{1,2}))?$/.exec(s.trim());
  if (!m) throw new TypeError(`not an amount: "${s}"`);
  const cents = BigInt(m[2]) * 100n + BigInt((m[3] ?? '0').padEnd(2, '0'));
  return m[1] ? -cents : cents;
};
const fmt = (cents, currency = 'EUR', locale = 'en-IE') =>
  new Intl.NumberFormat(locale, { style: 'currency', currency }).format(Number(cents) / 100);

// Split an amount into n parts that differ by at most one cent and add up exactly.
function split(cents, n) {
  const base = cents / BigInt(n);
  let remainder = cents % BigInt(n);
  return Array.from({ length: n }, () => base + (remainder-- > 0n ? 1n : 0n));
}

// Allocate proportionally by weights using the largest-remainder method.
function allocate(cents, weights) {
  const total = weights.reduce((a, b) => a + b, 0);
  const raw = weights.map((w) => (Number(cents) * w) / total);
  const floors = raw.map(Math.floor);
  let left = Number(cents) - floors.reduce((a, b) => a + b, 0);
  const order = raw.map((r, i) => [r - Math.floor(r), i]).sort((a, b) => b[0] - a[0]);
  for (const [, i] of order) { if (left-- <= 0) break; floors[i]++; }
  return floors.map(BigInt);
}

const receipt = ['12.40', '7.5', '23.99', '3', '0.65'];
const subtotal = receipt.map(toCents).reduce((a, b) => a + b, 0n);
const tip = (subtotal * 15n + 50n) / 100n; // 15%, rounded half up
const total = subtotal + tip;
console.log(`subtotal ${fmt(subtotal)}  tip ${fmt(tip)}  total ${fmt(total)}`);

const shares = split(total, 3);
console.log('split 3 ways:', shares.map((c) => fmt(c)).join(' + '), '=', fmt(shares.reduce((a, b) => a + b, 0n)));

const weights = { Ana: 3, Ben: 2, Chi: 1 };
const alloc = allocate(total, Object.values(weights));
Object.keys(weights).forEach((name, i) => console.log(`  ${name} pays ${fmt(alloc[i])}`));

for (const [cur, loc] of [['USD', 'en-US'], ['JPY', 'ja-JP'], ['CHF', 'de-CH'], ['INR', 'hi-IN']]) {
  console.log(`${cur}: ${fmt(123456789n, cur, loc)}`);
}

const huge = 2n ** 64n - 1n;
console.log(`u64 max = ${huge.toLocaleString('en-US')} (${huge.toString(16)} hex)`);
for (const bad of ['12.345', 'abc', '-4.2']) {
  try { console.log(`${bad} -> ${toCents(bad)} cents`); } catch (e) { console.log(`${bad} -> ${e.message}`); }
}
