// A vending machine modelled as a table-driven finite state machine with guards and actions.
const PRICES = { A1: 120, A2: 95, B1: 200 };
const COINS = new Set([5, 10, 20, 50, 100, 200]);

const machine = {
  initial: 'idle',
  states: {
    idle: {
      coin: (ctx, coin) => { ctx.credit += coin; return 'collecting'; },
      select: (ctx) => { ctx.messages.push('insert coins first'); return 'idle'; },
    },
    collecting: {
      coin: (ctx, coin) => { ctx.credit += coin; return 'collecting'; },
      select: (ctx, code) => {
        const price = PRICES[code];
        if (price === undefined) { ctx.messages.push(`unknown item ${code}`); return 'collecting'; }
        if (ctx.stock[code] === 0) { ctx.messages.push(`${code} is sold out`); return 'collecting'; }
        if (ctx.credit < price) { ctx.messages.push(`need ${price - ctx.credit} more for ${code}`); return 'collecting'; }
        ctx.credit -= price;
        ctx.stock[code]--;
        ctx.vended.push(code);
        return 'vending';
      },
      cancel: (ctx) => { ctx.returned += ctx.credit; ctx.credit = 0; return 'idle'; },
    },
    vending: {
      done: (ctx) => {
        if (ctx.credit > 0) { ctx.returned += ctx.credit; ctx.messages.push(`change: ${ctx.credit}`); ctx.credit = 0; }
        return 'idle';
      },
    },
  },
};

function run(events) {
  const ctx = { credit: 0, returned: 0, vended: [], messages: [], stock: { A1: 2, A2: 0, B1: 5 } };
  let state = machine.initial;
  for (const [event, arg] of events) {
    if (event === 'coin' && !COINS.has(arg)) { ctx.messages.push(`rejected coin ${arg}`); ctx.returned += arg; continue; }
    const handler = machine.states[state][event];
    if (!handler) { ctx.messages.push(`ignored "${event}" in state ${state}`); continue; }
    const next = handler(ctx, arg);
    console.log(`  ${state.padEnd(10)} --${event}${arg !== undefined ? `(${arg})` : ''}--> ${next}   credit=${ctx.credit}`);
    state = next;
  }
  return { state, ...ctx };
}

const result = run([
  ['select', 'A1'], ['coin', 100], ['coin', 3], ['select', 'A1'], ['coin', 50], ['select', 'A2'],
  ['select', 'A1'], ['done'], ['coin', 200], ['select', 'Z9'], ['select', 'B1'], ['done'], ['done'],
  ['coin', 20], ['cancel'],
]);
console.log('final state:', result.state);
console.log('vended:', result.vended.join(', '), '| returned coins total:', result.returned);
console.log('messages:\n' + result.messages.map((m) => `  - ${m}`).join('\n'));
console.log('stock left:', JSON.stringify(result.stock));
