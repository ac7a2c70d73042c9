// A reverse-Polish-notation calculator with variables, stack words and error reporting.
const ops = {
  '+': (a, b) => a + b,
  '-': (a, b) => a - b,
  '*': (a, b) => a * b,
  '/': (a, b) => {
    if (b === 0) throw new Error('division by zero');
    return a / b;
  },
  '%': (a, b) => a % b,
  '^': (a, b) => a ** b,
};

function evaluate(program, vars = {}) {
  const stack = [];
  const pop = () => {
    if (!stack.length) throw new Error('stack underflow');
    return stack.pop();
  };
  for (const tok of program.trim().split(/\s+/)) {
    if (/^-?\d+(\.\d+)?$/.test(tok)) stack.push(parseFloat(tok));
    else if (tok in ops) { const b = pop(), a = pop(); stack.push(ops[tok](a, b)); }
    else if (tok === 'dup') { const a = pop(); stack.push(a, a); }
    else if (tok === 'swap') { const b = pop(), a = pop(); stack.push(b, a); }
    else if (tok === 'sqrt') stack.push(Math.sqrt(pop()));
    else if (/^=[a-z]\w*$/.test(tok)) vars[tok.slice(1)] = pop();
    else if (/^[a-z]\w*$/.test(tok)) {
      if (!(tok in vars)) throw new Error(`unknown word "${tok}"`);
      stack.push(vars[tok]);
    } else throw new Error(`bad token '${tok}'`);
  }
  if (stack.length !== 1) throw new Error(`expected one result, stack is [${stack}]`);
  return stack[0];
}

const programs = [
  '3 4 + 2 *',
  '5 1 2 + 4 * + 3 -',
  '2 10 ^ 1024 /',
  '9 =x x x * 16 + sqrt',            // hypotenuse of 9 and 4
  '1 0 /',
  '1 +',
  '4 2 3',
  '7 y *',
  '22 7 / dup 100 * swap -',
];

const vars = {};
for (const p of programs) {
  try {
    const r = evaluate(p, vars);
    console.log(`${p.padEnd(28)} => ${Number.isInteger(r) ? r : r.toFixed(6)}`);
  } catch (e) {
    console.log(`${p.padEnd(28)} !! ${e.message}`);
  }
}
console.log('variables:', JSON.stringify(vars));
