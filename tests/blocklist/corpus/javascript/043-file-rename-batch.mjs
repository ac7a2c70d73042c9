// Batch-rename photos in /work by their embedded date, with a dry-run plan, conflict handling and undo.
import fs from 'node:fs';
import path from 'node:path';

const dir = path.join(process.cwd(), 'photos-demo');
fs.rmSync(dir, { recursive: true, force: true });
fs.mkdirSync(dir);
const originals = ['IMG_0001 (2023-07-14).jpg', 'IMG_0002 (2023-07-14).JPG', 'beach 2023-08-01.jpeg', 'DSC0042_20230901.jpg', 'screenshot.png', 'IMG_0003 (2023-07-14).jpg'];
for (const name of originals) fs.writeFileSync(path.join(dir, name), `fake image data for ${name}`);

const DATE_PATTERNS = [/(\d{4})-(\d{2})-(\d{2})/, /_(\d{4})(\d{2})(\d{2})\b/];

function plan(files) {
  const taken = new Set();
  const moves = [];
  for (const name of files.sort()) {
    const ext = path.extname(name).toLowerCase().replace('.jpeg', '.jpg');
    const match = DATE_PATTERNS.map((re) => re.exec(name)).find(Boolean);
    if (!match) { moves.push({ from: name, to: null, reason: 'no date found' }); continue; }
    const [, y, m, d] = match;
    let n = 1;
    let target;
    do target = `${y}-${m}-${d}_${String(n++).padStart(3, '0')}${ext}`; while (taken.has(target));
    taken.add(target);
    moves.push({ from: name, to: target });
  }
  return moves;
}

const moves = plan(fs.readdirSync(dir));
console.log('Plan (dry run):');
for (const m of moves) console.log(`  ${m.from.padEnd(28)} ${m.to ? `-> ${m.to}` : `(skip: ${m.reason})`}`);

const undoLog = [];
for (const { from, to } of moves) {
  if (!to) continue;
  fs.renameSync(path.join(dir, from), path.join(dir, to));
  undoLog.push({ from: to, to: from });
}
fs.writeFileSync(path.join(dir, '.undo.json'), JSON.stringify(undoLog, null, 1));
console.log('\nAfter rename:', fs.readdirSync(dir).filter((f) => !f.startsWith('.')).sort().join(', '));

// Undo using the journal, then verify we are back where we started.
for (const { from, to } of JSON.parse(fs.readFileSync(path.join(dir, '.undo.json'), 'utf8')).reverse()) {
  fs.renameSync(path.join(dir, from), path.join(dir, to));
}
fs.unlinkSync(path.join(dir, '.undo.json'));
const restored = fs.readdirSync(dir).sort();
console.log('After undo matches originals:', JSON.stringify(restored) === JSON.stringify([...originals].sort()));
fs.rmSync(dir, { recursive: true });
