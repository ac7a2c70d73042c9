// Descriptive statistics, Pearson correlation and least-squares regression on a small dataset.
const data = [
  { hours: 1.0, score: 52 }, { hours: 2.0, score: 55 }, { hours: 2.5, score: 61 },
  { hours: 3.0, score: 58 }, { hours: 4.0, score: 70 }, { hours: 4.5, score: 68 },
  { hours: 5.0, score: 75 }, { hours: 6.0, score: 79 }, { hours: 7.0, score: 85 },
  { hours: 8.0, score: 88 }, { hours: 9.5, score: 94 }, { hours: 3.5, score: 99 },
];

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const variance = (xs, sample = true) => {
  const m = mean(xs);
  return xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - (sample ? 1 : 0));
};
const stdev = (xs) => Math.sqrt(variance(xs));
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos), hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
};

function describe(name, xs) {
  const [q1, med, q3] = [0.25, 0.5, 0.75].map((q) => quantile(xs, q));
  const iqr = q3 - q1;
  const outliers = xs.filter((x) => x < q1 - 1.5 * iqr || x > q3 + 1.5 * iqr);
  console.log(`${name.padEnd(6)} n=${xs.length} mean=${mean(xs).toFixed(2)} sd=${stdev(xs).toFixed(2)} min=${Math.min(...xs)} q1=${q1} median=${med} q3=${q3} max=${Math.max(...xs)}${outliers.length ? ` outliers=[${outliers}]` : ''}`);
}

function regression(xs, ys) {
  const mx = mean(xs), my = mean(ys);
  let sxy = 0, sxx = 0, syy = 0;
  xs.forEach((x, i) => { sxy += (x - mx) * (ys[i] - my); sxx += (x - mx) ** 2; syy += (ys[i] - my) ** 2; });
  const slope = sxy / sxx;
  const intercept = my - slope * mx;
  const r = sxy / Math.sqrt(sxx * syy);
  return { slope, intercept, r, r2: r * r };
}

const hours = data.map((d) => d.hours), scores = data.map((d) => d.score);
describe('hours', hours);
describe('score', scores);

const fit = regression(hours, scores);
console.log(`score ≈ ${fit.intercept.toFixed(2)} + ${fit.slope.toFixed(2)} × hours  (r=${fit.r.toFixed(3)}, r²=${fit.r2.toFixed(3)})`);

const residuals = data.map((d) => ({ ...d, resid: d.score - (fit.intercept + fit.slope * d.hours) }));
const sdResid = stdev(residuals.map((d) => d.resid));
const flagged = residuals.filter((d) => Math.abs(d.resid) / sdResid > 2);
console.log('points more than 2σ off the line:', flagged.map((d) => `(${d.hours}h, ${d.score})`).join(' ') || 'none');

const clean = data.filter((d) => !flagged.includes(residuals.find((r) => r.hours === d.hours && r.score === d.score)));
const refit = regression(clean.map((d) => d.hours), clean.map((d) => d.score));
console.log(`without outliers: slope ${refit.slope.toFixed(2)}, r² ${refit.r2.toFixed(3)}`);
for (const h of [0, 5, 10]) console.log(`  predicted score for ${h}h: ${(refit.intercept + refit.slope * h).toFixed(1)}`);
