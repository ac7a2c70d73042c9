// Parse CSV into typed records with per-column converters and collect row-level errors.
interface Employee {
  id: number;
  name: string;
  department: 'eng' | 'sales' | 'ops';
  salary: number;
  startDate: Date;
}

type Converter<T> = (raw: string, row: number) => T;

type Schema<T> = { [K in keyof T]: Converter<T[K]> };

class RowError extends Error {
  constructor(public readonly row: number, public readonly column: string, message: string) {
    super(`row ${row}, column "${column}": ${message}`);
    this.name = 'RowError';
  }
}

const departments = ['eng', 'sales', 'ops'] as const;
const isDepartment = (s: string): s is Employee['department'] => (departments as readonly string[]).includes(s);

const employeeSchema: Schema<Employee> = {
  id: (raw) => {
    if (!/^\d+$/.test(raw)) throw new Error(`"${raw}" is not an id`);
    return Number(raw);
  },
  name: (raw) => raw.trim(),
  department: (raw) => {
    const d = raw.toLowerCase();
    if (!isDepartment(d)) throw new Error(`unknown department ${raw}`);
    return d;
  },
  salary: (raw) => Number(raw.replace(/[,$]/g, '')),
  startDate: (raw) => {
    const d = new Date(raw);
    if (Number.isNaN(d.getTime())) throw new Error(`bad date ${raw}`);
    return d;
  },
};

function parseCsv<T>(text: string, schema: Schema<T>): { records: T[]; errors: RowError[] } {
  const [headerLine, ...lines] = text.trim().split(/\r?\n/);
  const headers = headerLine.split(',').map((h) => h.trim()) as (keyof T & string)[];
  const records: T[] = [];
  const errors: RowError[] = [];
  lines.forEach((line, i) => {
    const cells = line.match(/("([^"]|"")*"|[^,]*)(,|$)/g)!.map((c) => c.replace(/,$/, '').replace(/^"|"$/g, '').replace(/""/g, '"'));
    const rec = {} as T;
    try {
      headers.forEach((h, j) => {
        try {
          rec[h] = schema[h](cells[j] ?? '', i + 2);
        } catch (e) {
          throw new RowError(i + 2, h, (e as Error).message);
        }
      });
      records.push(rec);
    } catch (e) {
      if (e instanceof RowError) errors.push(e);
      else throw e;
    }
  });
  return { records, errors };
}

const input = `id,name,department,salary,startDate
1,"Hopper, Grace",eng,"$145,000",2019-04-01
2,Alan Kay,sales,98000,2020-11-15
x3,Bad Id,ops,1,2021-01-01
4,Radia Perlman,ENG,151000,2018-06-30
5,Barbara Liskov,legal,120000,2017-02-02
6,Ken Thompson,ops,133000,not-a-date`;

const { records, errors } = parseCsv(input, employeeSchema);
for (const e of records) {
  console.log(`#${e.id} ${e.name.padEnd(16)} ${e.department.padEnd(5)} ${e.salary.toLocaleString('en-US').padStart(8)} since ${e.startDate.getUTCFullYear()}`);
}
errors.forEach((e) => console.log(`skip: ${e.message}`));
const byDept = records.reduce<Record<string, number[]>>((acc, r) => ((acc[r.department] ??= []).push(r.salary), acc), {});
for (const [dept, salaries] of Object.entries(byDept)) {
  console.log(`${dept}: mean salary ${(salaries.reduce((a, b) => a + b, 0) / salaries.length).toFixed(0)}`);
}
