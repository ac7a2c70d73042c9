// Conway's Game of Life on a wrapping grid; prints a few generations and detects cycles.
const W = 20, H = 10;

function parsePattern(rows, ox, oy) {
  const cells = new Set();
  rows.forEach((row, y) => [...row].forEach((c, x) => { if (c === 'O') cells.add(`${x + ox},${y + oy}`); }));
  return cells;
}

function step(live) {
  const counts = new Map();
  for (const key of live) {
    const [x, y] = key.split(',').map(Number);
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -1; dx <= 1; dx++) {
        if (!dx && !dy) continue;
        const k = `${(x + dx + W) % W},${(y + dy + H) % H}`;
        counts.set(k, (counts.get(k) ?? 0) + 1);
      }
    }
  }
  const next = new Set();
  for (const [k, n] of counts) if (n === 3 || (n === 2 && live.has(k))) next.add(k);
  return next;
}

function render(live) {
  let out = '';
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) out += live.has(`${x},${y}`) ? '█' : '·';
    out += '\n';
  }
  return out;
}

const glider = parsePattern(['.O.', '..O', 'OOO'], 1, 1);
const blinker = parsePattern(['OOO'], 12, 5);
let world = new Set([...glider, ...blinker]);

const seen = new Map();
for (let gen = 0; gen <= 80; gen++) {
  const sig = [...world].sort().join(';');
  if (seen.has(sig)) {
    console.log(`Generation ${gen} repeats generation ${seen.get(sig)} (period ${gen - seen.get(sig)})`);
    break;
  }
  seen.set(sig, gen);
  if (gen % 20 === 0) console.log(`Generation ${gen}, population ${world.size}\n${render(world)}`);
  world = step(world);
}
