// Generate a SHA-256 manifest for files in a directory, then detect modified/added/removed files.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const root = fs.mkdtempSync('/tmp/manifest-');
const write = (rel, data) => {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), data);
};
write('config/app.json', JSON.stringify({ name: 'svc', replicas: 3 }));
write('bin/start.sh', '#!/bin/sh\nexec node server.js "$@"\n');
write('assets/logo.bin', randomBytes(4096));
write('README', 'Run ./bin/start.sh; do NOT chmod 777 anything.\n');

function listFiles(dir, base = dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? listFiles(path.join(dir, e.name), base) : [path.relative(base, path.join(dir, e.name))]);
}

function sha256(file) {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

function manifest(dir) {
  return Object.fromEntries(listFiles(dir).sort().map((rel) => [rel, sha256(path.join(dir, rel))]));
}

function diff(before, after) {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  const changes = [];
  for (const k of [...keys].sort()) {
    if (!(k in after)) changes.push(['removed', k]);
    else if (!(k in before)) changes.push(['added', k]);
    else if (before[k] !== after[k]) changes.push(['modified', k]);
  }
  return changes;
}

const before = manifest(root);
const manifestText = Object.entries(before).map(([f, h]) => `${h}  ${f}`).join('\n') + '\n';
fs.writeFileSync('/tmp/' + path.basename(root) + '.sha256', manifestText);
console.log('manifest (sha256sum format):');
console.log(manifestText.replace(/^([0-9a-f]{12})[0-9a-f]+/gm, '$1…'));

// Make some changes.
write('config/app.json', JSON.stringify({ name: 'svc', replicas: 5 }));
fs.rmSync(path.join(root, 'README'));
write('config/extra.ini', '[feature]\nenabled=true\n');

const changes = diff(before, manifest(root));
for (const [kind, file] of changes) console.log(`${kind.padEnd(8)} ${file}`);

// Parse the saved manifest back with a regex and confirm an unchanged file still verifies.
const parsed = Object.fromEntries([...manifestText.matchAll(/^([0-9a-f]{64})\s{2}(.+)$/gm)].map((m) => [m[2], m[1]]));
console.log('bin/start.sh still verifies:', parsed['bin/start.sh'] === sha256(path.join(root, 'bin/start.sh')));
fs.rmSync(root, { recursive: true });
fs.rmSync('/tmp/' + path.basename(root) + '.sha256');
