// A small INI parser supporting sections, comments, quoted values and type coercion.
const source = `
; global settings
name = demo-app
debug = true

[database]
host = "db.example.org"   ; inline comment
port = 5432
user = app_user
password = "p;ss#word"

[paths]
data = /work/data
logs = /tmp/logs
# hash comments work too

[limits]
max_connections = 25
timeout = 2.5
`;

function coerce(raw) {
  if (/^(true|false)$/i.test(raw)) return raw.toLowerCase() === 'true';
  if (/^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
  return raw;
}

function parseIni(text) {
  const result = { '': {} };
  let section = '';
  text.split('\n').forEach((line, idx) => {
    const trimmed = line.trim();
    if (!trimmed || /^[;#]/.test(trimmed)) return;
    const sec = trimmed.match(/^\[([^\]]+)\]$/);
    if (sec) {
      section = sec[1].trim();
      result[section] ??= {};
      return;
    }
    const kv = trimmed.match(/^([\w.-]+)\s*=\s*(.*)$/);
    if (!kv) throw new SyntaxError(`line ${idx + 1}: cannot parse "${trimmed}"`);
    let [, key, value] = kv;
    if (value.startsWith('"')) {
      const end = value.indexOf('"', 1);
      value = value.slice(1, end);
      result[section][key] = value;
    } else {
      value = value.replace(/\s*[;#].*$/, '');
      result[section][key] = coerce(value);
    }
  });
  return result;
}

const ini = parseIni(source);
for (const [sec, entries] of Object.entries(ini)) {
  console.log(sec ? `[${sec}]` : '[<global>]');
  for (const [k, v] of Object.entries(entries)) {
    console.log(`  ${k}: ${JSON.stringify(v)} (${typeof v})`);
  }
}

try {
  parseIni('[ok]\nthis line is broken');
} catch (e) {
  console.log(`Expected error: ${e.name}: ${e.message}`);
}
