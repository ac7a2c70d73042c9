// Solve Sudoku puzzles with constraint propagation plus backtracking on the most constrained cell.
const puzzles = {
  easy: '53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79',
  hard: '8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4..',
  invalid: '55..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79',
};

const peersOf = Array.from({ length: 81 }, (_, i) => {
  const r = Math.floor(i / 9), c = i % 9;
  const br = r - (r % 3), bc = c - (c % 3);
  const set = new Set();
  for (let k = 0; k < 9; k++) {
    set.add(r * 9 + k);
    set.add(k * 9 + c);
    set.add((br + Math.floor(k / 3)) * 9 + bc + (k % 3));
  }
  set.delete(i);
  return [...set];
});

function candidates(grid, i) {
  const used = new Set(peersOf[i].map((p) => grid[p]));
  return [1, 2, 3, 4, 5, 6, 7, 8, 9].filter((d) => !used.has(d));
}

let nodes = 0;
function solve(grid) {
  nodes++;
  let best = -1, bestCands = null;
  for (let i = 0; i < 81; i++) {
    if (grid[i]) continue;
    const cands = candidates(grid, i);
    if (cands.length === 0) return null;
    if (!bestCands || cands.length < bestCands.length) { best = i; bestCands = cands; }
    if (cands.length === 1) break;
  }
  if (best === -1) return grid;
  for (const d of bestCands) {
    grid[best] = d;
    if (solve(grid)) return grid;
  }
  grid[best] = 0;
  return null;
}

const parse = (s) => [...s].map((ch) => (ch === '.' ? 0 : Number(ch)));
const valid = (g) => g.every((v, i) => !v || peersOf[i].every((p) => g[p] !== v));
const show = (g) => g.reduce((out, v, i) => out + v + (i % 9 === 8 ? (i % 27 === 26 && i < 80 ? '\n------+-------+------\n' : '\n') : i % 3 === 2 ? ' | ' : ' '), '');

for (const [name, text] of Object.entries(puzzles)) {
  const grid = parse(text);
  if (!valid(grid)) { console.log(`${name}: the givens already conflict, skipping`); continue; }
  nodes = 0;
  const t0 = performance.now();
  const solved = solve(grid);
  const ms = performance.now() - t0;
  console.log(`${name}: ${solved ? 'solved' : 'no solution'} after ${nodes} nodes in ${ms.toFixed(1)} ms`);
  if (solved) console.log(show(solved));
}
