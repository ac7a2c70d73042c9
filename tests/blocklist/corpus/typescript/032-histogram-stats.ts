// Summary statistics and a text histogram for response times, with a typed Summary interface.
interface Summary {
  readonly count: number;
  readonly mean: number;
  readonly stdev: number;
  readonly min: number;
  readonly max: number;
  readonly percentiles: Readonly<Record<`p${50 | 90 | 95 | 99}`, number>>;
}

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

// Log-normal-ish latencies with a few slow outliers.
const rand = lcg(2024);
const gaussian = (): number => Math.sqrt(-2 * Math.log(rand() || 1e-12)) * Math.cos(2 * Math.PI * rand());
const latencies = Array.from({ length: 2000 }, (_, i) => {
  const base = Math.exp(3.4 + 0.35 * gaussian());
  return i % 97 === 0 ? base * 8 : base;
});

function percentile(sorted: readonly number[], p: number): number {
  const rank = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  return sorted[lo] + (sorted[Math.min(lo + 1, sorted.length - 1)] - sorted[lo]) * (rank - lo);
}

function summarize(xs: readonly number[]): Summary {
  const sorted = [...xs].sort((a, b) => a - b);
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const stdev = Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (xs.length - 1));
  return {
    count: xs.length, mean, stdev, min: sorted[0], max: sorted[sorted.length - 1],
    percentiles: { p50: percentile(sorted, 50), p90: percentile(sorted, 90), p95: percentile(sorted, 95), p99: percentile(sorted, 99) },
  };
}

function histogram(xs: readonly number[], bins: number, width = 40): string[] {
  const lo = Math.min(...xs), hi = percentile([...xs].sort((a, b) => a - b), 99);
  const size = (hi - lo) / bins;
  const counts = new Array<number>(bins + 1).fill(0);
  for (const x of xs) counts[x > hi ? bins : Math.min(bins - 1, Math.floor((x - lo) / size))]++;
  const peak = Math.max(...counts);
  return counts.map((c, i) => {
    const label = i === bins ? `>${hi.toFixed(0)}`.padStart(13) : `${(lo + i * size).toFixed(0).padStart(5)}–${(lo + (i + 1) * size).toFixed(0).padEnd(5)}  `;
    return `${label}|${'█'.repeat(Math.round((c / peak) * width)).padEnd(width)}| ${c}`;
  });
}

const s = summarize(latencies);
console.log(`n=${s.count} mean=${s.mean.toFixed(1)}ms sd=${s.stdev.toFixed(1)} min=${s.min.toFixed(1)} max=${s.max.toFixed(1)}`);
console.log(Object.entries(s.percentiles).map(([k, v]) => `${k}=${v.toFixed(1)}ms`).join('  '));
histogram(latencies, 12).forEach((l) => console.log(l));

const slo = 100;
const breaches = latencies.filter((x) => x > slo).length;
console.log(`SLO ${slo}ms: ${((1 - breaches / latencies.length) * 100).toFixed(2)}% within target (${breaches} breaches)`);
