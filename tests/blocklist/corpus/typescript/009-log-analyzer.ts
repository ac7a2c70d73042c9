// Analyse application log lines: parse with named-group regexes, aggregate by level and module.
type Level = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';

interface LogEntry {
  ts: Date;
  level: Level;
  module: string;
  message: string;
  durationMs?: number;
}

const raw = `2024-06-01T10:00:00.120Z INFO  [http] GET /api/items 200 in 35ms
2024-06-01T10:00:01.002Z DEBUG [db] query "SELECT * FROM items WHERE tag = 'new'" took 12ms
2024-06-01T10:00:02.500Z WARN  [auth] failed login for user "mallory" from 203.0.113.7
2024-06-01T10:00:02.900Z WARN  [auth] failed login for user "mallory" from 203.0.113.7
2024-06-01T10:00:03.100Z ERROR [worker] job 42 crashed: TypeError: cannot read properties of undefined (reading 'id')
2024-06-01T10:00:04.000Z INFO  [http] POST /api/items 201 in 120ms
malformed line without a timestamp
2024-06-01T10:00:05.750Z ERROR [http] GET /api/report 500 in 2300ms
2024-06-01T10:00:06.000Z INFO  [shell] ran "ls -l /var/log" for the log viewer`;

const LINE_RE = /^(?<ts>\S+)\s+(?<level>DEBUG|INFO|WARN|ERROR)\s+\[(?<module>[\w-]+)\]\s+(?<message>.*)$/;
const DURATION_RE = /(?:in|took)\s+(\d+)ms\b/;

function parse(line: string): LogEntry | null {
  const m = LINE_RE.exec(line);
  if (!m?.groups) return null;
  const { ts, level, module, message } = m.groups;
  const d = DURATION_RE.exec(message);
  return { ts: new Date(ts), level: level as Level, module, message, ...(d ? { durationMs: Number(d[1]) } : {}) };
}

function isNoise(e: LogEntry): boolean {
  if (e.level === 'DEBUG') return false; // keep debug lines for the counts below
  return /^GET \/static\//.test(e.message);
}

const entries = raw.split('\n').map(parse).filter((e): e is LogEntry => e !== null && !isNoise(e));
const rejected = raw.split('\n').length - entries.length;

const countBy = <T, K extends PropertyKey>(xs: T[], key: (x: T) => K): Record<K, number> =>
  xs.reduce((acc, x) => {
    const k = key(x);
    acc[k] = (acc[k] ?? 0) + 1;
    return acc;
  }, {} as Record<K, number>);

console.log('by level: ', countBy(entries, (e) => e.level));
console.log('by module:', countBy(entries, (e) => e.module));

const timed = entries.filter((e): e is LogEntry & { durationMs: number } => e.durationMs !== undefined);
const p = (q: number) => {
  const sorted = timed.map((e) => e.durationMs).sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
console.log(`durations: n=${timed.length} p50=${p(0.5)}ms p90=${p(0.9)}ms max=${Math.max(...timed.map((e) => e.durationMs))}ms`);

const failedLogins = entries
  .map((e) => /failed login for user "(?<user>[^"]+)" from (?<ip>[\d.]+)/.exec(e.message)?.groups)
  .filter((g): g is { user: string; ip: string } => g !== undefined);
const repeatOffenders = Object.entries(countBy(failedLogins, (g) => `${g.user}@${g.ip}`)).filter(([, n]) => n >= 2);
console.log('repeated failed logins:', repeatOffenders.map(([k, n]) => `${k} x${n}`).join(', ') || 'none');

const errors = entries.filter((e) => e.level === 'ERROR');
for (const e of errors) console.log(`ERROR ${e.ts.toISOString().slice(11, 19)} ${e.module}: ${e.message.replace(/\(reading '(\w+)'\)/, "(field '$1')")}`);
const spanSec = (entries.at(-1)!.ts.getTime() - entries[0].ts.getTime()) / 1000;
console.log(`${entries.length} entries over ${spanSec.toFixed(1)}s (${(entries.length / spanSec).toFixed(2)}/s), ${rejected} rejected`);
