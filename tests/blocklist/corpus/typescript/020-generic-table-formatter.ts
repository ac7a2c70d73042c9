// A generic table renderer whose column definitions are checked against the row type via keyof.
interface Column<T, K extends keyof T = keyof T> {
  key: K;
  header: string;
  align?: 'left' | 'right';
  format?: (value: T[K], row: T) => string;
}

// Helper so each column's `format` gets the right value type for its key.
const col = <T>() => <K extends keyof T>(c: Column<T, K>): Column<T, K> => c;

type AnyColumn<T> = { [K in keyof T]: Column<T, K> }[keyof T];

function renderTable<T>(rows: readonly T[], columns: ReadonlyArray<AnyColumn<T>>): string {
  const cell = (r: T, c: AnyColumn<T>): string => {
    const format = c.format as ((v: T[keyof T], row: T) => string) | undefined;
    return format ? format(r[c.key], r) : String(r[c.key]);
  };
  const cells = rows.map((r) => columns.map((c) => cell(r, c)));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((row) => row[i].length)));
  const fmtRow = (vals: string[]) =>
    vals.map((v, i) => (columns[i].align === 'right' ? v.padStart(widths[i]) : v.padEnd(widths[i]))).join(' │ ');
  return [fmtRow(columns.map((c) => c.header)), widths.map((w) => '─'.repeat(w)).join('─┼─'), ...cells.map(fmtRow)].join('\n');
}

interface Process {
  pid: number;
  command: string;
  user: string;
  cpu: number;
  rssKb: number;
  started: Date;
}

const procs: Process[] = [
  { pid: 1, command: '/sbin/init', user: 'root', cpu: 0.0, rssKb: 11_204, started: new Date('2024-06-01T06:00:00Z') },
  { pid: 842, command: 'node server.js --port 3000', user: 'app', cpu: 12.5, rssKb: 182_332, started: new Date('2024-06-01T06:01:10Z') },
  { pid: 901, command: 'postgres: writer process', user: 'postgres', cpu: 1.2, rssKb: 64_000, started: new Date('2024-06-01T06:00:30Z') },
  { pid: 1337, command: 'bash -c "tail -f /var/log/syslog | grep -i error"', user: 'ops', cpu: 0.3, rssKb: 3_100, started: new Date('2024-06-01T09:12:00Z') },
];

const c = col<Process>();
const columns = [
  c({ key: 'pid', header: 'PID', align: 'right' }),
  c({ key: 'user', header: 'USER' }),
  c({ key: 'cpu', header: '%CPU', align: 'right', format: (v) => v.toFixed(1) }),
  c({ key: 'rssKb', header: 'RSS', align: 'right', format: (kb) => (kb > 100_000 ? `${(kb / 1024).toFixed(0)}M` : `${kb}K`) }),
  c({ key: 'started', header: 'START', format: (d) => d.toISOString().slice(11, 16) }),
  c({ key: 'command', header: 'COMMAND', format: (cmd) => (cmd.length > 30 ? `${cmd.slice(0, 29)}…` : cmd) }),
];

console.log(renderTable([...procs].sort((a, b) => b.cpu - a.cpu), columns));
const totalRss = procs.reduce((s, p) => s + p.rssKb, 0);
console.log(`\n${procs.length} processes, ${(totalRss / 1024).toFixed(1)} MiB resident`);

interface Score { team: string; won: number; lost: number }
const s = col<Score>();
console.log('\n' + renderTable<Score>(
  [{ team: 'Owls', won: 7, lost: 2 }, { team: 'Foxes', won: 5, lost: 4 }],
  [s({ key: 'team', header: 'Team' }), s({ key: 'won', header: 'W', align: 'right' }), s({ key: 'lost', header: 'L', align: 'right' })],
));
