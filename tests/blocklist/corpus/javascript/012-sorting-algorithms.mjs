// Implement several sorting algorithms, check them against Array.prototype.sort, and time them.
import { performance } from 'node:perf_hooks';

function mulberry32(seed) {
  return () => {
    seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const insertionSort = (arr) => {
  const a = [...arr];
  for (let i = 1; i < a.length; i++) {
    const x = a[i];
    let j = i - 1;
    while (j >= 0 && a[j] > x) { a[j + 1] = a[j]; j--; }
    a[j + 1] = x;
  }
  return a;
};

const mergeSort = (arr) => {
  if (arr.length < 2) return arr;
  const mid = arr.length >> 1;
  const l = mergeSort(arr.slice(0, mid)), r = mergeSort(arr.slice(mid));
  const out = [];
  let i = 0, j = 0;
  while (i < l.length && j < r.length) out.push(l[i] <= r[j] ? l[i++] : r[j++]);
  return out.concat(l.slice(i), r.slice(j));
};

const quickSort = (arr) => {
  if (arr.length < 2) return arr;
  const pivot = arr[Math.floor(arr.length / 2)];
  return [...quickSort(arr.filter((x) => x < pivot)), ...arr.filter((x) => x === pivot), ...quickSort(arr.filter((x) => x > pivot))];
};

const countingSort = (arr) => {
  const max = Math.max(...arr);
  const counts = new Array(max + 1).fill(0);
  for (const x of arr) counts[x]++;
  return counts.flatMap((c, v) => new Array(c).fill(v));
};

const rand = mulberry32(42);
const data = Array.from({ length: 3000 }, () => Math.floor(rand() * 1000));
const expected = [...data].sort((a, b) => a - b);

const algorithms = { insertionSort, mergeSort, quickSort, countingSort };
for (const [name, sort] of Object.entries(algorithms)) {
  const t0 = performance.now();
  const result = sort(data);
  const ms = performance.now() - t0;
  const ok = result.length === expected.length && result.every((v, i) => v === expected[i]);
  console.log(`${name.padEnd(14)} ${ok ? 'ok  ' : 'FAIL'} ${ms.toFixed(2).padStart(8)} ms`);
  if (!ok) process.exitCode = 1;
}

const median = (expected[1499] + expected[1500]) / 2;
console.log(`min=${expected[0]} max=${expected.at(-1)} median=${median}`);
