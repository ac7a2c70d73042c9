// A toy JavaScript tokenizer that decides whether "/" starts a regex or is division,
// using the classic "what came before?" heuristic. Handles strings, comments and templates roughly.
const KEYWORDS_BEFORE_EXPR = new Set(['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await']);

function tokenize(src) {
  const tokens = [];
  let i = 0;
  const prevSignificant = () => tokens.findLast((t) => t.type !== 'comment');
  const regexAllowed = () => {
    const p = prevSignificant();
    if (!p) return true;
    if (p.type === 'num' || p.type === 'string' || p.type === 'regex' || p.type === 'template') return false;
    if (p.type === 'ident') return KEYWORDS_BEFORE_EXPR.has(p.value);
    return !/^[)\]}]$/.test(p.value); // after ) ] } it is division
  };
  while (i < src.length) {
    const rest = src.slice(i);
    let m;
    if ((m = /^\s+/.exec(rest))) { i += m[0].length; continue; }
    if ((m = /^\/\/[^\n]*/.exec(rest)) || (m = /^\/\*[\s\S]*?\*\//.exec(rest))) tokens.push({ type: 'comment', value: m[0] });
    else if ((m = /^(["'])(?:\\.|(?!\1)[^\\\n])*\1/.exec(rest))) tokens.push({ type: 'string', value: m[0] });
    else if ((m = /^`(?:\\.|[^\\`])*`/.exec(rest))) tokens.push({ type: 'template', value: m[0] });
    else if ((m = /^\d+(?:\.\d+)?(?:e[+-]?\d+)?/i.exec(rest))) tokens.push({ type: 'num', value: m[0] });
    else if ((m = /^[A-Za-z_$][\w$]*/.exec(rest))) tokens.push({ type: 'ident', value: m[0] });
    else if (rest[0] === '/' && regexAllowed() && (m = /^\/(?:\\.|\[(?:\\.|[^\]\\])*\]|[^\/\\\n[])+\/[dgimsuvy]*/.exec(rest))) tokens.push({ type: 'regex', value: m[0] });
    else if ((m = /^(?:===|!==|=>|\*\*|&&|\|\||\?\?|[-+*/%=<>!&|^~?:;,.()[\]{}])/.exec(rest))) tokens.push({ type: 'punct', value: m[0] });
    else throw new SyntaxError(`unexpected ${JSON.stringify(rest[0])} at offset ${i}`);
    i += m[0].length;
  }
  return tokens;
}

const samples = [
  String.raw`const half = total / 2 / count;`,
  String.raw`const re = /ab+c/gi, other = (/[/]\//).test(s);`,
  String.raw`if (x) return /^\d{3}-\d{4}$/.test(phone); else y = a[i] / b[j] / c;`,
  String.raw`const ratio = (a + b) / (c - d) // "comment" with 'quotes' and a /slash/`,
  String.raw`arr.map(v => v / 10).filter(v => /\.5$/.test(String(v)))`,
  String.raw`let s = "a / b", t = 'it\'s /not/ a regex', n = 1e3 / 4; /* block / comment */`,
  String.raw`const parts = path.split(/[\\/]/), depth = parts.length / 2;`,
];

for (const src of samples) {
  console.log(src);
  const toks = tokenize(src);
  const interesting = toks.filter((t) => t.type === 'regex' || t.value === '/' || t.type === 'comment');
  for (const t of interesting) console.log(`    ${t.type === 'punct' ? 'division' : t.type.padEnd(8)} ${t.value}`);
}

// Self-check: regex and division counts for each sample.
const expected = [[0, 2], [2, 0], [1, 2], [0, 1], [1, 1], [0, 1], [1, 1]];
const actual = samples.map((s) => {
  const toks = tokenize(s);
  return [toks.filter((t) => t.type === 'regex').length, toks.filter((t) => t.value === '/').length];
});
const ok = actual.every(([r, d], k) => r === expected[k][0] && d === expected[k][1]);
console.log(ok ? 'all samples classified as expected' : `mismatch: ${JSON.stringify(actual)}`);
