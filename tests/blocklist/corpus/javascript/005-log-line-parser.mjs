// Parse web-server style log lines and report status codes, slow requests and top paths.
const logs = String.raw`127.0.0.1 - - [10/Mar/2024:13:55:36 +0000] "GET /index.html HTTP/1.1" 200 2326 0.012
10.0.0.5 - alice [10/Mar/2024:13:55:40 +0000] "POST /api/login HTTP/1.1" 401 87 0.230
10.0.0.5 - alice [10/Mar/2024:13:55:42 +0000] "POST /api/login HTTP/1.1" 200 512 0.198
192.168.1.20 - - [10/Mar/2024:13:56:01 +0000] "GET /search?q=a%20b HTTP/1.1" 200 10422 1.530
192.168.1.20 - - [10/Mar/2024:13:56:05 +0000] "GET /static/app.js HTTP/1.1" 304 0 0.003
10.0.0.9 - - [10/Mar/2024:13:57:12 +0000] "GET /etc/passwd HTTP/1.1" 404 153 0.001
10.0.0.9 - - [10/Mar/2024:13:57:13 +0000] "GET /../../proc/self/status HTTP/1.1" 400 0 0.001
127.0.0.1 - - [10/Mar/2024:13:58:00 +0000] "GET /index.html HTTP/1.1" 200 2326 0.009
this line is garbage and should be skipped`;

const LINE = /^(\S+) \S+ (\S+) \[([^\]]+)\] "(\w+) (\S+) HTTP\/[\d.]+" (\d{3}) (\d+) ([\d.]+)$/;

const entries = [];
let skipped = 0;
for (const line of logs.split('\n')) {
  const m = LINE.exec(line);
  if (!m) { skipped++; continue; }
  const [, ip, user, when, method, path, status, bytes, secs] = m;
  entries.push({ ip, user: user === '-' ? null : user, when, method, path, status: +status, bytes: +bytes, secs: +secs });
}

const byStatus = entries.reduce((acc, e) => {
  const klass = `${Math.floor(e.status / 100)}xx`;
  acc[klass] = (acc[klass] ?? 0) + 1;
  return acc;
}, {});
console.log('Status classes:', byStatus);

const slow = entries.filter((e) => e.secs > 0.5);
slow.forEach((e) => console.log(`SLOW ${e.secs}s ${e.method} ${e.path}`));

// Flag probes for sensitive files; the paths are only matched, never opened.
const suspicious = entries.filter((e) => /(\.\.\/|\/etc\/passwd|\/proc\/)/.test(e.path));
suspicious.forEach((e) => console.log(`PROBE from ${e.ip}: ${e.path} -> ${e.status}`));

const totalBytes = entries.reduce((s, e) => s + e.bytes, 0);
const avgLatency = entries.reduce((s, e) => s + e.secs, 0) / entries.length;
console.log(`Parsed ${entries.length} lines, skipped ${skipped}`);
console.log(`Bytes served: ${(totalBytes / 1024).toFixed(1)} KiB, mean latency ${(avgLatency * 1000).toFixed(1)} ms`);

const paths = new Map();
for (const e of entries) {
  const key = e.path.replace(/\?.*$/, '');
  paths.set(key, (paths.get(key) ?? 0) + 1);
}
console.log('Top path:', [...paths].sort((a, b) => b[1] - a[1])[0][0]);
