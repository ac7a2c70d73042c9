// Recursive-descent parser for arithmetic expressions with functions, producing an AST.
function tokenize(src) {
  const re = /\s*(?:(\d+\.?\d*)|([A-Za-z_]\w*)|(\*\*|[-+*/%(),^]))/y;
  const tokens = [];
  let m;
  let at = 0;
  while (at < src.trimEnd().length) {
    re.lastIndex = at;
    if (!(m = re.exec(src))) {
      while (src[at] === ' ') at++;
      throw new SyntaxError(`unexpected character at ${at}: '${src[at]}'`);
    }
    at = re.lastIndex;
    if (m[1]) tokens.push({ type: 'num', value: parseFloat(m[1]) });
    else if (m[2]) tokens.push({ type: 'id', value: m[2] });
    else tokens.push({ type: 'op', value: m[3] });
  }
  return tokens;
}

function parse(src) {
  const toks = tokenize(src);
  let pos = 0;
  const peek = () => toks[pos]?.value;
  const expect = (v) => {
    if (peek() !== v) throw new SyntaxError(`expected '${v}' but got '${peek() ?? 'end'}'`);
    pos++;
  };
  const expr = () => {
    let node = term();
    while (peek() === '+' || peek() === '-') node = { op: toks[pos++].value, left: node, right: term() };
    return node;
  };
  const term = () => {
    let node = unary();
    while (['*', '/', '%'].includes(peek())) node = { op: toks[pos++].value, left: node, right: unary() };
    return node;
  };
  const unary = () => (peek() === '-' ? (pos++, { op: 'neg', arg: unary() }) : power());
  const power = () => {
    const base = atom();
    if (peek() === '^' || peek() === '**') { pos++; return { op: '^', left: base, right: unary() }; }
    return base;
  };
  const atom = () => {
    const t = toks[pos++];
    if (!t) throw new SyntaxError('unexpected end of input');
    if (t.type === 'num') return { num: t.value };
    if (t.type === 'id') {
      if (peek() !== '(') return { id: t.value };
      pos++;
      const args = [expr()];
      while (peek() === ',') { pos++; args.push(expr()); }
      expect(')');
      return { call: t.value, args };
    }
    if (t.value === '(') { const e = expr(); expect(')'); return e; }
    throw new SyntaxError(`unexpected '${t.value}'`);
  };
  const tree = expr();
  if (pos < toks.length) throw new SyntaxError(`trailing input at token ${pos}`);
  return tree;
}

const env = { pi: Math.PI, e: Math.E, x: 3 };
const fns = { sin: Math.sin, max: Math.max, min: Math.min, sqrt: Math.sqrt, abs: Math.abs };
function evalNode(n) {
  if ('num' in n) return n.num;
  if ('id' in n) { if (!(n.id in env)) throw new ReferenceError(`${n.id} is not defined`); return env[n.id]; }
  if ('call' in n) return fns[n.call](...n.args.map(evalNode));
  if (n.op === 'neg') return -evalNode(n.arg);
  const a = evalNode(n.left), b = evalNode(n.right);
  return { '+': a + b, '-': a - b, '*': a * b, '/': a / b, '%': a % b, '^': a ** b }[n.op];
}

const inputs = ['1 + 2 * 3', '(1 + 2) * 3', '2 ^ 3 ^ 2', '-x ** 2', 'max(1, x * 4, 7) / 2', 'sqrt(16) + sin(pi / 2)', '10 / 4 / 5', '3 + * 4', 'y + 1', '2 $ 3'];
for (const input of inputs) {
  try {
    console.log(`${input.padEnd(24)} = ${+evalNode(parse(input)).toFixed(6)}`);
  } catch (e) {
    console.log(`${input.padEnd(24)} ! ${e.name}: ${e.message}`);
  }
}
console.log(JSON.stringify(parse('a * (b + 1) / c')));
