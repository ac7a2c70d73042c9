// 0/1 knapsack and longest common subsequence with dynamic programming tables.
function knapsack(items, capacity) {
  const n = items.length;
  const dp = Array.from({ length: n + 1 }, () => new Array(capacity + 1).fill(0));
  for (let i = 1; i <= n; i++) {
    const { weight, value } = items[i - 1];
    for (let c = 0; c <= capacity; c++) {
      dp[i][c] = dp[i - 1][c];
      if (weight <= c) dp[i][c] = Math.max(dp[i][c], dp[i - 1][c - weight] + value);
    }
  }
  // Walk back through the table to recover which items were chosen.
  const chosen = [];
  for (let i = n, c = capacity; i > 0; i--) {
    if (dp[i][c] !== dp[i - 1][c]) {
      chosen.push(items[i - 1].name);
      c -= items[i - 1].weight;
    }
  }
  return { best: dp[n][capacity], chosen: chosen.reverse() };
}

function lcs(a, b) {
  const dp = Array.from({ length: a.length + 1 }, () => new Array(b.length + 1).fill(0));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      dp[i][j] = a[i - 1] === b[j - 1] ? dp[i - 1][j - 1] + 1 : Math.max(dp[i - 1][j], dp[i][j - 1]);
    }
  }
  let i = a.length, j = b.length;
  let out = '';
  while (i && j) {
    if (a[i - 1] === b[j - 1]) { out = a[i - 1] + out; i--; j--; }
    else if (dp[i - 1][j] >= dp[i][j - 1]) i--;
    else j--;
  }
  return out;
}

const gear = [
  { name: 'tent', weight: 5, value: 60 },
  { name: 'stove', weight: 3, value: 50 },
  { name: 'camera', weight: 2, value: 70 },
  { name: 'book', weight: 1, value: 10 },
  { name: 'water filter', weight: 1, value: 40 },
  { name: 'chair', weight: 4, value: 30 },
];

for (const cap of [4, 8, 12]) {
  const { best, chosen } = knapsack(gear, cap);
  console.log(`capacity ${String(cap).padStart(2)}: value ${best} with [${chosen.join(', ')}]`);
}

const pairs = [['AGGTAB', 'GXTXAYB'], ['kitten', 'sitting'], ['dynamic', 'programming']];
for (const [x, y] of pairs) {
  const common = lcs(x, y);
  console.log(`LCS(${x}, ${y}) = "${common}" (length ${common.length})`);
}
