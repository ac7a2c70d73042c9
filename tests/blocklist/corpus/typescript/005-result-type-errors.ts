// A Result<T, E> type for explicit error handling, with map/andThen combinators and parsing.
type Ok<T> = { readonly ok: true; readonly value: T };
type Err<E> = { readonly ok: false; readonly error: E };
type Result<T, E> = Ok<T> | Err<E>;

const ok = <T>(value: T): Ok<T> => ({ ok: true, value });
const err = <E>(error: E): Err<E> => ({ ok: false, error });

const map = <T, U, E>(r: Result<T, E>, f: (t: T) => U): Result<U, E> => (r.ok ? ok(f(r.value)) : r);
const andThen = <T, U, E>(r: Result<T, E>, f: (t: T) => Result<U, E>): Result<U, E> => (r.ok ? f(r.value) : r);
const unwrapOr = <T, E>(r: Result<T, E>, fallback: T): T => (r.ok ? r.value : fallback);

type ParseError =
  | { type: 'empty' }
  | { type: 'format'; input: string }
  | { type: 'range'; value: number; min: number; max: number };

function parseInteger(s: string): Result<number, ParseError> {
  const t = s.trim();
  if (t === '') return err({ type: 'empty' });
  if (!/^[+-]?\d+$/.test(t)) return err({ type: 'format', input: t });
  return ok(parseInt(t, 10));
}

const inRange = (min: number, max: number) => (n: number): Result<number, ParseError> =>
  n >= min && n <= max ? ok(n) : err({ type: 'range', value: n, min, max });

function explain(e: ParseError): string {
  switch (e.type) {
    case 'empty': return 'no input';
    case 'format': return `"${e.input}" is not an integer`;
    case 'range': return `${e.value} is outside ${e.min}..${e.max}`;
  }
}

function parsePort(s: string): Result<number, ParseError> {
  return andThen(parseInteger(s), inRange(1, 65535));
}

function collect<T, E>(results: Result<T, E>[]): Result<T[], E[]> {
  const errors = results.filter((r): r is Err<E> => !r.ok).map((r) => r.error);
  return errors.length ? err(errors) : ok(results.map((r) => (r as Ok<T>).value));
}

for (const input of ['8080', ' 443 ', '', '80a', '70000', '-1']) {
  const r = parsePort(input);
  console.log(`${JSON.stringify(input).padEnd(8)} -> ${r.ok ? `port ${r.value}` : `error: ${explain(r.error)}`}`);
}

const doubled = map(parsePort('1024'), (p) => p * 2);
console.log('doubled:', unwrapOr(doubled, -1), '| fallback:', unwrapOr(parsePort('x'), 3000));

const all = collect(['22', '80', '443'].map(parsePort));
console.log('all valid:', all.ok ? all.value : all.error);
const some = collect(['22', 'ssh', '99999'].map(parsePort));
console.log('with errors:', some.ok ? some.value : some.error.map(explain));
