// Stream a generated CSV through a Transform, gzip it into /tmp, then read it back and verify.
import { createReadStream, createWriteStream, statSync, rmSync } from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip, createGunzip } from 'node:zlib';
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';

const out = path.join(os.tmpdir(), `readings-${process.pid}.csv.gz`);

function* readings(n) {
  yield 'sensor,ts,celsius\n';
  for (let i = 0; i < n; i++) {
    const sensor = ['north', 'south', 'east'][i % 3];
    const c = 18 + 6 * Math.sin(i / 50) + (i % 7) / 10;
    yield `${sensor},${1_700_000_000 + i * 60},${c.toFixed(2)}\n`;
  }
}

// Convert celsius to fahrenheit line by line, coping with chunks that split lines.
class ToFahrenheit extends Transform {
  #tail = '';
  lines = 0;
  _transform(chunk, _enc, done) {
    const text = this.#tail + chunk.toString();
    const lines = text.split('\n');
    this.#tail = lines.pop();
    for (const line of lines) this.push(this.#convert(line) + '\n');
    done();
  }
  _flush(done) {
    if (this.#tail) this.push(this.#convert(this.#tail) + '\n');
    done();
  }
  #convert(line) {
    this.lines++;
    if (line.startsWith('sensor')) return line.replace(/celsius$/, 'fahrenheit');
    const [s, ts, c] = line.split(',');
    return `${s},${ts},${(c * 9 / 5 + 32).toFixed(1)}`;
  }
}

const t = new ToFahrenheit();
const hashIn = createHash('sha256');
await pipeline(Readable.from(readings(20000)), t, new Transform({
  transform(chunk, _e, cb) { hashIn.update(chunk); cb(null, chunk); },
}), createGzip({ level: 6 }), createWriteStream(out));
const digestWritten = hashIn.digest('hex');
console.log(`wrote ${t.lines} lines, ${statSync(out).size} bytes compressed -> ${path.basename(out)}`);

const hashOut = createHash('sha256');
const stats = new Map();
let header = null;
let partial = '';
for await (const chunk of createReadStream(out).pipe(createGunzip())) {
  hashOut.update(chunk);
  const lines = (partial + chunk).split('\n');
  partial = lines.pop();
  for (const line of lines) {
    if (!header) { header = line; continue; }
    const [sensor, , f] = line.split(',');
    const s = stats.get(sensor) ?? { n: 0, sum: 0, max: -Infinity };
    s.n++; s.sum += Number(f); s.max = Math.max(s.max, Number(f));
    stats.set(sensor, s);
  }
}
console.log('header:', header);
for (const [sensor, s] of stats) console.log(`  ${sensor.padEnd(5)} n=${s.n} mean=${(s.sum / s.n).toFixed(2)}°F max=${s.max}°F`);
console.log('round trip intact:', hashOut.digest('hex') === digestWritten);
rmSync(out);
