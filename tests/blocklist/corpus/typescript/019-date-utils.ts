// Date utilities: ISO week numbers, duration formatting and parsing, and working-hours overlap.
const DAY_MS = 86_400_000;

function isoWeek(d: Date): { year: number; week: number } {
  const t = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
  const day = t.getUTCDay() || 7;
  t.setUTCDate(t.getUTCDate() + 4 - day); // Thursday of this week decides the year
  const yearStart = Date.UTC(t.getUTCFullYear(), 0, 1);
  return { year: t.getUTCFullYear(), week: Math.ceil(((t.getTime() - yearStart) / DAY_MS + 1) / 7) };
}

const UNITS = { d: DAY_MS, h: 3_600_000, m: 60_000, s: 1_000, ms: 1 } as const;
type Unit = keyof typeof UNITS;

function parseDuration(s: string): number {
  const re = /(\d+(?:\.\d+)?)\s*(ms|d|h|m|s)/g;
  let total = 0;
  let consumed = '';
  for (const [whole, n, unit] of s.matchAll(re)) {
    total += Number(n) * UNITS[unit as Unit];
    consumed += whole;
  }
  if (consumed.replace(/\s/g, '') !== s.replace(/\s/g, '')) throw new Error(`cannot parse duration "${s}"`);
  return total;
}

function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  const parts: string[] = [];
  let rest = Math.abs(ms);
  for (const [unit, size] of Object.entries(UNITS) as [Unit, number][]) {
    const n = Math.floor(rest / size);
    if (n) parts.push(`${n}${unit}`);
    rest -= n * size;
  }
  return (ms < 0 ? '-' : '') + parts.join(' ');
}

interface Window {
  zone: string;
  startUtcHour: number;
  endUtcHour: number;
}

function overlap(windows: readonly Window[]): [number, number] | null {
  const start = Math.max(...windows.map((w) => w.startUtcHour));
  const end = Math.min(...windows.map((w) => w.endUtcHour));
  return start < end ? [start, end] : null;
}

for (const iso of ['2024-01-01', '2024-12-30', '2021-01-03', '2026-06-15']) {
  const { year, week } = isoWeek(new Date(iso));
  console.log(`${iso} is in ISO week ${year}-W${String(week).padStart(2, '0')}`);
}

for (const s of ['1h 30m', '2d4h', '90s', '1.5h', '250ms', '3 fortnights']) {
  try {
    const ms = parseDuration(s);
    console.log(`${s.padEnd(12)} = ${String(ms).padStart(9)} ms = ${formatDuration(ms)}`);
  } catch (e) {
    console.log(`${s.padEnd(12)} ! ${(e as Error).message}`);
  }
}

const team: Window[] = [
  { zone: 'Europe/Berlin', startUtcHour: 7, endUtcHour: 15 },
  { zone: 'America/New_York', startUtcHour: 13, endUtcHour: 21 },
  { zone: 'Asia/Kolkata', startUtcHour: 4, endUtcHour: 12 },
];
const common = overlap(team.slice(0, 2));
console.log(`Berlin+New York overlap: ${common ? `${common[0]}:00–${common[1]}:00 UTC` : 'none'}`);
console.log(`All three overlap: ${overlap(team) ?? 'none'}`);
const meeting = new Date(Date.UTC(2024, 6, 10, common![0], 30));
for (const { zone } of team) {
  console.log(`  ${zone.padEnd(18)} ${meeting.toLocaleString('en-GB', { timeZone: zone, weekday: 'short', hour: '2-digit', minute: '2-digit' })}`);
}
