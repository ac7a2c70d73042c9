// Use child_process to run a few harmless commands and post-process their output.
import { execSync, execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const dir = path.join('/tmp', `cp-demo-${process.pid}`);
fs.mkdirSync(dir, { recursive: true });
for (const [name, size] of [['alpha.txt', 10], ['beta.log', 300], ['gamma.txt', 42]]) {
  fs.writeFileSync(path.join(dir, name), 'x'.repeat(size));
}

// execSync through the shell
const listing = execSync('ls -l', { cwd: dir, encoding: 'utf8' });
const files = listing.split('\n').filter((l) => l.startsWith('-')).map((l) => {
  const parts = l.trim().split(/\s+/);
  return { name: parts.at(-1), size: Number(parts[4]) };
});
console.log('ls -l found:', files.map((f) => `${f.name}=${f.size}`).join(', '));

// execFileSync without a shell, arguments passed as an array
const wc = execFileSync('wc', ['-c', 'alpha.txt', 'gamma.txt'], { cwd: dir, encoding: 'utf8' });
console.log('wc -c:\n' + wc.trimEnd().replace(/^/gm, '  '));

// spawnSync with a non-zero exit status that we handle ourselves
const missing = spawnSync('ls', ['does-not-exist'], { cwd: dir, encoding: 'utf8' });
console.log(`ls on a missing file exited with ${missing.status}; stderr mentions it: ${/does-not-exist/.test(missing.stderr)}`);

// spawn asynchronously and stream stdout
const sorted = await new Promise((resolve, reject) => {
  const child = spawn('sort', ['-r'], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk) => { out += chunk; });
  child.on('error', reject);
  child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`sort exited ${code}`))));
  child.stdin.end(['pear', 'apple', 'fig', 'banana'].join('\n') + '\n');
});
console.log('sort -r:', sorted.trim().split('\n').join(' '));

const uname = execSync('uname -s', { encoding: 'utf8' }).trim();
console.log(`kernel: ${uname}, node pid ${process.pid}, parent pid ${process.ppid}`);
fs.rmSync(dir, { recursive: true });
