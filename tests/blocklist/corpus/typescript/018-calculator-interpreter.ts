// A tiny expression language: tokenizer, Pratt parser to a typed AST, and an evaluator with let-bindings.
type Token =
  | { t: 'num'; v: number }
  | { t: 'id'; v: string }
  | { t: 'op'; v: string }
  | { t: 'eof' };

type Expr =
  | { kind: 'num'; value: number }
  | { kind: 'var'; name: string }
  | { kind: 'unary'; op: '-'; arg: Expr }
  | { kind: 'binary'; op: '+' | '-' | '*' | '/' | '^' | '<' | '>' | '=='; left: Expr; right: Expr }
  | { kind: 'let'; name: string; value: Expr; body: Expr }
  | { kind: 'if'; cond: Expr; then: Expr; else: Expr };

function lex(src: string): Token[] {
  const out: Token[] = [];
  const re = /\s*(?:(\d+(?:\.\d+)?)|([a-z_]\w*)|(==|[-+*/^()<>=]))/gy;
  let m: RegExpExecArray | null;
  let last = 0;
  while ((m = re.exec(src)) && m[0].length) {
    last = re.lastIndex;
    if (m[1]) out.push({ t: 'num', v: parseFloat(m[1]) });
    else if (m[2]) out.push({ t: 'id', v: m[2] });
    else out.push({ t: 'op', v: m[3] });
  }
  if (src.slice(last).trim()) throw new SyntaxError(`unexpected input: "${src.slice(last).trim()}"`);
  return [...out, { t: 'eof' }];
}

const BP: Record<string, [number, number]> = { '==': [1, 2], '<': [3, 4], '>': [3, 4], '+': [5, 6], '-': [5, 6], '*': [7, 8], '/': [7, 8], '^': [10, 9] };

function parse(src: string): Expr {
  const toks = lex(src);
  let i = 0;
  const peek = () => toks[i];
  const next = () => toks[i++];
  const expectWord = (w: string) => {
    const tok = next();
    if (!((tok.t === 'id' || tok.t === 'op') && tok.v === w)) throw new SyntaxError(`expected "${w}"`);
  };
  function expr(minBp: number): Expr {
    const tok = next();
    let left: Expr;
    if (tok.t === 'num') left = { kind: 'num', value: tok.v };
    else if (tok.t === 'id' && tok.v === 'let') {
      const name = next();
      if (name.t !== 'id') throw new SyntaxError('expected a name after let');
      expectWord('=');
      const value = expr(0);
      expectWord('in');
      left = { kind: 'let', name: name.v, value, body: expr(0) };
    } else if (tok.t === 'id' && tok.v === 'if') {
      const cond = expr(0);
      expectWord('then');
      const then = expr(0);
      expectWord('else');
      left = { kind: 'if', cond, then, else: expr(0) };
    } else if (tok.t === 'id') left = { kind: 'var', name: tok.v };
    else if (tok.t === 'op' && tok.v === '-') left = { kind: 'unary', op: '-', arg: expr(9) };
    else if (tok.t === 'op' && tok.v === '(') { left = expr(0); expectWord(')'); }
    else throw new SyntaxError(`unexpected ${tok.t === 'eof' ? 'end of input' : `"${tok.v}"`}`);
    for (;;) {
      const op = peek();
      if (op.t !== 'op' || !(op.v in BP)) break;
      const [l, r] = BP[op.v];
      if (l < minBp) break;
      next();
      left = { kind: 'binary', op: op.v as Extract<Expr, { kind: 'binary' }>['op'], left, right: expr(r) };
    }
    return left;
  }
  const e = expr(0);
  if (peek().t !== 'eof') throw new SyntaxError('trailing tokens');
  return e;
}

function evaluate(e: Expr, env: ReadonlyMap<string, number> = new Map()): number {
  switch (e.kind) {
    case 'num': return e.value;
    case 'var': {
      const v = env.get(e.name);
      if (v === undefined) throw new ReferenceError(`unbound variable ${e.name}`);
      return v;
    }
    case 'unary': return -evaluate(e.arg, env);
    case 'let': return evaluate(e.body, new Map(env).set(e.name, evaluate(e.value, env)));
    case 'if': return evaluate(e.cond, env) !== 0 ? evaluate(e.then, env) : evaluate(e.else, env);
    case 'binary': {
      const a = evaluate(e.left, env), b = evaluate(e.right, env);
      switch (e.op) {
        case '+': return a + b;
        case '-': return a - b;
        case '*': return a * b;
        case '/': if (b === 0) throw new RangeError('division by zero'); return a / b;
        case '^': return a ** b;
        case '<': return +(a < b);
        case '>': return +(a > b);
        case '==': return +(a === b);
      }
    }
  }
}

const programs = [
  '1 + 2 * 3 - 4 / 2', '2 ^ 3 ^ 2', 'let x = 5 in let y = x * 2 in x + y',
  'let r = 3 in 3.14159 * r ^ 2', 'if 2 > 1 then 100 else 200', '-(4 - 6) * -3',
  'let a = 1 in b + a', '8 / (4 - 4)', '1 + * 2', '3 $ 4',
];
for (const p of programs) {
  try {
    console.log(`${p.padEnd(36)} => ${evaluate(parse(p))}`);
  } catch (e) {
    console.log(`${p.padEnd(36)} !! ${(e as Error).name}: ${(e as Error).message}`);
  }
}
