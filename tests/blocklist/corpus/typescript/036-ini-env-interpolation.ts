// Parse an INI file with ${VAR} interpolation from the environment and from other keys.
type IniValue = string | number | boolean;
type IniSections = Record<string, Record<string, IniValue>>;

class IniSyntaxError extends SyntaxError {
  constructor(readonly lineNo: number, detail: string) {
    super(`line ${lineNo}: ${detail}`);
  }
}

function parseIni(text: string): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = { general: {} };
  let section = 'general';
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.replace(/\s+[;#].*$/, '').trim();
    if (!line || /^[;#]/.test(line)) return;
    const sec = /^\[\s*([\w.-]+)\s*\]$/.exec(line);
    if (sec) { section = sec[1]; out[section] ??= {}; return; }
    const kv = /^([\w.-]+)\s*[=:]\s*(.*)$/.exec(line);
    if (!kv) throw new IniSyntaxError(i + 1, `expected key = value, got ${JSON.stringify(raw)}`);
    out[section][kv[1]] = kv[2].replace(/^"(.*)"$/, '$1');
  });
  return out;
}

function interpolate(raw: Record<string, Record<string, string>>, env: NodeJS.ProcessEnv): IniSections {
  const resolved: IniSections = {};
  const resolve = (section: string, key: string, stack: string[]): string => {
    const id = `${section}.${key}`;
    if (stack.includes(id)) throw new Error(`circular reference: ${[...stack, id].join(' -> ')}`);
    const value = raw[section]?.[key];
    if (value === undefined) throw new Error(`unknown reference ${id}`);
    // Innermost placeholders first, so a fallback may itself contain ${...}.
    const placeholder = /\$\{([\w.]+)(?::-([^{}]*))?\}/g;
    let out = value;
    for (let prev = ''; prev !== out; ) {
      prev = out;
      out = out.replace(placeholder, (_, ref: string, fallback?: string) => {
        if (/^env\./.test(ref)) return env[ref.slice(4)] ?? fallback ?? '';
        const [s, k] = ref.includes('.') ? ref.split('.', 2) : [section, ref];
        return resolve(s, k, [...stack, id]);
      });
    }
    return out;
  };
  const coerce = (v: string): IniValue => (/^(true|false)$/.test(v) ? v === 'true' : /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v);
  for (const [section, entries] of Object.entries(raw)) {
    resolved[section] = {};
    for (const key of Object.keys(entries)) resolved[section][key] = coerce(resolve(section, key, []));
  }
  return resolved;
}

// The \${...} escapes keep JavaScript from interpolating; our parser sees plain ${...}.
const source = `
app_name = inventory
root = \${env.APP_ROOT:-/work}

[paths]
data = \${general.root}/data        ; resolved from another section
cache = \${env.CACHE_DIR:-/tmp/\${general.app_name}-cache}
logs: "\${data}/logs"

[server]
port = \${env.PORT:-8080}
debug = false
greeting = "Welcome to \${general.app_name}!"
`;

const fakeEnv: NodeJS.ProcessEnv = { ...process.env, PORT: '9090' };
delete fakeEnv.CACHE_DIR;
delete fakeEnv.APP_ROOT;
const cfg = interpolate(parseIni(source), fakeEnv);
for (const [section, entries] of Object.entries(cfg)) {
  console.log(`[${section}]`);
  for (const [k, v] of Object.entries(entries)) console.log(`  ${k} = ${JSON.stringify(v)} (${typeof v})`);
}

for (const bad of ['[a]\nx = ${y}\ny = ${x}', 'key without value', '[s]\nv = ${nope.missing}']) {
  try {
    interpolate(parseIni(bad), fakeEnv);
  } catch (e) {
    console.log(`${(e as Error).constructor.name}: ${(e as Error).message}`);
  }
}
