// Line-based diff using the LCS table, printed in unified-diff style with hunks.
type Op = { kind: 'same' | 'add' | 'del'; text: string; a?: number; b?: number };

function diffLines(a: readonly string[], b: readonly string[]): Op[] {
  const n = a.length, m = b.length;
  const dp: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      dp[i][j] = a[i] === b[j] ? dp[i + 1][j + 1] + 1 : Math.max(dp[i + 1][j], dp[i][j + 1]);
  const ops: Op[] = [];
  let i = 0, j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) ops.push({ kind: 'same', text: a[i], a: i++, b: j++ });
    else if (dp[i + 1][j] >= dp[i][j + 1]) ops.push({ kind: 'del', text: a[i], a: i++ });
    else ops.push({ kind: 'add', text: b[j], b: j++ });
  }
  while (i < n) ops.push({ kind: 'del', text: a[i], a: i++ });
  while (j < m) ops.push({ kind: 'add', text: b[j], b: j++ });
  return ops;
}

function unified(ops: Op[], context = 1): string[] {
  const out: string[] = [];
  const changed = ops.map((o, k) => (o.kind !== 'same' ? k : -1)).filter((k) => k >= 0);
  if (!changed.length) return out;
  const hunks: Array<[number, number]> = [];
  for (const k of changed) {
    const [s, e] = [Math.max(0, k - context), Math.min(ops.length - 1, k + context)];
    const last = hunks[hunks.length - 1];
    if (last && s <= last[1] + 1) last[1] = e;
    else hunks.push([s, e]);
  }
  for (const [s, e] of hunks) {
    const slice = ops.slice(s, e + 1);
    const aStart = (slice.find((o) => o.a !== undefined)?.a ?? 0) + 1;
    const bStart = (slice.find((o) => o.b !== undefined)?.b ?? 0) + 1;
    const aLen = slice.filter((o) => o.kind !== 'add').length;
    const bLen = slice.filter((o) => o.kind !== 'del').length;
    out.push(`@@ -${aStart},${aLen} +${bStart},${bLen} @@`);
    for (const o of slice) out.push(`${{ same: ' ', add: '+', del: '-' }[o.kind]}${o.text}`);
  }
  return out;
}

const before = `#!/usr/bin/env bash
set -e
echo "building"
make all
cp build/app /usr/local/bin/app
chmod 755 /usr/local/bin/app
echo "done"`.split('\n');

const after = `#!/usr/bin/env bash
set -euo pipefail
echo "building"
make all
install -m 755 build/app /usr/local/bin/app
echo "done"
echo "installed $(app --version)"`.split('\n');

const ops = diffLines(before, after);
console.log('--- install.sh (before)\n+++ install.sh (after)');
console.log(unified(ops).join('\n'));
const stats = ops.reduce((acc, o) => ({ ...acc, [o.kind]: acc[o.kind] + 1 }), { same: 0, add: 0, del: 0 } as Record<Op['kind'], number>);
console.log(`\n${stats.add} insertions(+), ${stats.del} deletions(-), ${stats.same} unchanged`);
