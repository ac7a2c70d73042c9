// Create a small project tree under /work, walk it, summarise sizes, rename and clean up.
import fs from 'node:fs';
import path from 'node:path';

const root = path.join(process.cwd(), 'walk-demo');
fs.rmSync(root, { recursive: true, force: true });

const layout = {
  'README.md': '# Demo\n\nA tiny tree for the walker.\n',
  'src/index.js': "export const hello = () => 'hi';\n",
  'src/util/math.js': 'export const add = (a, b) => a + b;\n'.repeat(3),
  'src/util/strings.js': 'export const up = (s) => s.toUpperCase();\n',
  'data/records.json': JSON.stringify([{ id: 1 }, { id: 2 }], null, 2),
  'data/raw/old.csv': 'id,value\n1,10\n2,20\n',
  'notes.txt': 'remember: never run "rm -rf /" to clean up, delete only what you created\n',
};
for (const [rel, content] of Object.entries(layout)) {
  const file = path.join(root, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

function* walk(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      yield { full, dir: true };
      yield* walk(full);
    } else yield { full, dir: false, size: fs.statSync(full).size };
  }
}

console.log('Tree:');
const byExt = {};
for (const { full, dir, size } of walk(root)) {
  const rel = path.relative(root, full);
  const depth = rel.split(path.sep).length - 1;
  console.log(`${'  '.repeat(depth)}${path.basename(full)}${dir ? '/' : ` (${size} B)`}`);
  if (!dir) {
    const ext = path.extname(full) || '(none)';
    byExt[ext] = (byExt[ext] ?? 0) + size;
  }
}
console.log('Bytes by extension:', byExt);

// Rename every .js file to .mjs and verify the contents survived.
for (const { full, dir } of [...walk(root)]) {
  if (!dir && full.endsWith('.js')) fs.renameSync(full, full.replace(/\.js$/, '.mjs'));
}
const renamed = [...walk(root)].filter((e) => e.full.endsWith('.mjs')).map((e) => path.relative(root, e.full));
console.log('Renamed:', renamed.join(', '));
console.log('math.mjs lines:', fs.readFileSync(path.join(root, 'src/util/math.mjs'), 'utf8').trim().split('\n').length);

// Clean up only our own directory.
fs.rmSync(root, { recursive: true });
console.log('Cleaned up:', !fs.existsSync(root));
