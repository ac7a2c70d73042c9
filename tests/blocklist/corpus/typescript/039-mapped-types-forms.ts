// Form handling with mapped/conditional types: DeepReadonly, field errors, and typed validators.
type DeepReadonly<T> = T extends (infer U)[] ? ReadonlyArray<DeepReadonly<U>> : T extends object ? { readonly [K in keyof T]: DeepReadonly<T[K]> } : T;
type KeysOfType<T, V> = { [K in keyof T]-?: T[K] extends V ? K : never }[keyof T];
type FieldErrors<T> = Partial<Record<keyof T, string[]>>;
type Validator<V> = (value: V) => string | null;
type Validators<T> = { [K in keyof T]?: Validator<T[K]>[] };

interface SignupForm {
  username: string;
  email: string;
  age: number;
  password: string;
  confirm: string;
  newsletter: boolean;
  interests: string[];
}

const required: Validator<string> = (v) => (v.trim() ? null : 'is required');
const minLength = (n: number): Validator<string> => (v) => (v.length >= n ? null : `must be at least ${n} characters`);
const matches = (re: RegExp, what: string): Validator<string> => (v) => (re.test(v) ? null : `must ${what}`);
const between = (lo: number, hi: number): Validator<number> => (v) => (v >= lo && v <= hi ? null : `must be between ${lo} and ${hi}`);
const nonEmpty: Validator<string[]> = (v) => (v.length ? null : 'pick at least one');

const rules: Validators<SignupForm> = {
  username: [required, minLength(3), matches(/^[a-z0-9_]+$/i, 'use only letters, digits or _')],
  email: [required, matches(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'be a valid e-mail address')],
  age: [between(13, 120)],
  password: [minLength(10), matches(/\d/, 'contain a digit'), matches(/[^\w\s]/, 'contain a symbol')],
  interests: [nonEmpty],
};

function validate<T>(form: DeepReadonly<T> & T, validators: Validators<T>, cross?: (f: T) => FieldErrors<T>): FieldErrors<T> {
  const errors: FieldErrors<T> = {};
  for (const key of Object.keys(validators) as (keyof T)[]) {
    const msgs = (validators[key] ?? []).map((fn) => fn(form[key])).filter((m): m is string => m !== null);
    if (msgs.length) errors[key] = msgs;
  }
  for (const [k, msgs] of Object.entries(cross?.(form) ?? {}) as [keyof T, string[]][]) errors[k] = [...(errors[k] ?? []), ...msgs];
  return errors;
}

const stringFields: KeysOfType<SignupForm, string>[] = ['username', 'email', 'password', 'confirm'];
const normalise = (f: SignupForm): SignupForm => {
  const copy = { ...f };
  for (const k of stringFields) copy[k] = copy[k].trim();
  return copy;
};

const submissions: SignupForm[] = [
  { username: 'grace_h', email: 'grace@example.com', age: 37, password: 'c0bol-rules!', confirm: 'c0bol-rules!', newsletter: true, interests: ['compilers'] },
  { username: ' x ', email: 'not-an-email', age: 9, password: 'short', confirm: 'shorter', newsletter: false, interests: [] },
  { username: 'robert"); DROP TABLE', email: 'bobby@example.org ', age: 15, password: 'longenough1', confirm: 'longenough1', newsletter: false, interests: ['sql'] },
];

for (const raw of submissions) {
  const form = normalise(raw);
  const errors = validate(form, rules, (f) => (f.password !== f.confirm ? { confirm: ['does not match password'] } : {}));
  const entries = Object.entries(errors) as [keyof SignupForm, string[]][];
  console.log(`${JSON.stringify(form.username)}: ${entries.length ? 'invalid' : 'ok'}`);
  for (const [field, msgs] of entries) console.log(`   ${String(field).padEnd(9)} ${msgs.join('; ')}`);
}

const frozen: DeepReadonly<SignupForm> = Object.freeze(submissions[0]);
console.log('readonly view keeps data:', frozen.interests.join(','), '| frozen at runtime:', Object.isFrozen(frozen));
