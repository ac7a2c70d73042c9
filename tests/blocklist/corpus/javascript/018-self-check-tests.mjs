// A tiny test harness around node:assert that checks a few string utilities.
import assert from 'node:assert/strict';

export const slugify = (s) => s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
export const titleCase = (s) => s.replace(/\b([a-z])([a-z]*)/g, (_, first, rest) => first.toUpperCase() + rest);
export const truncate = (s, n) => (s.length <= n ? s : s.slice(0, n - 1) + '…');
export const camelToSnake = (s) => s.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

test('slugify strips accents and symbols', () => {
  assert.equal(slugify('Crème Brûlée: 2 ways!'), 'creme-brulee-2-ways');
  assert.equal(slugify('  --hello--  '), 'hello');
});
test('titleCase capitalises words', () => {
  assert.equal(titleCase("the quick brown fox"), 'The Quick Brown Fox');
});
test('truncate adds an ellipsis', () => {
  assert.equal(truncate('abcdef', 4), 'abc…');
  assert.equal(truncate('abc', 4), 'abc');
});
test('camelToSnake', () => {
  assert.equal(camelToSnake('parseHTTPResponse2Fast'), 'parse_httpresponse2_fast');
  assert.deepEqual(['userId', 'createdAt'].map(camelToSnake), ['user_id', 'created_at']);
});
test('a known failure is reported, not thrown', () => {
  assert.throws(() => assert.equal(slugify('A B'), 'A B'), { name: 'AssertionError' });
});
test('async checks work too', async () => {
  const value = await new Promise((resolve) => setTimeout(() => resolve(slugify('Done!')), 5));
  assert.equal(value, 'done');
});

let passed = 0, failed = 0;
for (const { name, fn } of tests) {
  try {
    await fn();
    passed++;
    console.log(`  ✓ ${name}`);
  } catch (err) {
    failed++;
    console.log(`  ✗ ${name}\n    ${err.message.split('\n')[0]}`);
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed ? 1 : 0;
