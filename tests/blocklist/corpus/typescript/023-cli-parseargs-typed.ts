// A typed CLI for a "notes" tool: subcommands, util.parseArgs options declared `as const`.
import { parseArgs, type ParseArgsConfig } from 'node:util';

const globalOptions = {
  verbose: { type: 'boolean', short: 'v', default: false },
  format: { type: 'string', short: 'f', default: 'text' },
} as const satisfies ParseArgsConfig['options'];

const commandOptions = {
  add: { tag: { type: 'string', short: 't', multiple: true }, pin: { type: 'boolean', default: false } },
  list: { tag: { type: 'string', short: 't' }, limit: { type: 'string', short: 'n', default: '10' } },
  remove: { force: { type: 'boolean', default: false } },
} as const;

type Command = keyof typeof commandOptions;
const isCommand = (s: string | undefined): s is Command => s !== undefined && s in commandOptions;

interface Note { id: number; text: string; tags: string[]; pinned: boolean }
const notes: Note[] = [
  { id: 1, text: 'Buy milk', tags: ['home'], pinned: false },
  { id: 2, text: 'Rotate API keys', tags: ['work', 'security'], pinned: true },
];

function run(argv: string[]): number {
  const [cmd, ...rest] = argv;
  if (!isCommand(cmd)) {
    console.error(`unknown command "${cmd ?? ''}"; expected one of: ${Object.keys(commandOptions).join(', ')}`);
    return 64;
  }
  const { values, positionals } = parseArgs({ args: rest, options: { ...globalOptions, ...commandOptions[cmd] }, allowPositionals: true, strict: true });
  const out = (data: unknown, text: string) => console.log(values.format === 'json' ? JSON.stringify(data) : text);
  switch (cmd) {
    case 'add': {
      const text = positionals.join(' ').trim();
      if (!text) { console.error('add: note text is required'); return 64; }
      const v = values as { tag?: string[]; pin?: boolean };
      const note: Note = { id: Math.max(0, ...notes.map((n) => n.id)) + 1, text, tags: v.tag ?? [], pinned: !!v.pin };
      notes.push(note);
      out(note, `added #${note.id}${values.verbose ? ` with tags [${note.tags.join(', ')}]` : ''}`);
      return 0;
    }
    case 'list': {
      const v = values as { tag?: string; limit: string };
      const limit = Number.parseInt(v.limit, 10);
      const shown = notes.filter((n) => !v.tag || n.tags.includes(v.tag)).sort((a, b) => +b.pinned - +a.pinned).slice(0, limit);
      out(shown, shown.map((n) => `${n.pinned ? '📌' : '  '} #${n.id} ${n.text} ${n.tags.map((t) => `#${t}`).join(' ')}`).join('\n') || '(no notes)');
      return 0;
    }
    case 'remove': {
      const id = Number(positionals[0]);
      const idx = notes.findIndex((n) => n.id === id);
      if (idx < 0) { console.error(`remove: no note #${positionals[0]}`); return 1; }
      if (notes[idx].pinned && !(values as { force?: boolean }).force) { console.error(`remove: #${id} is pinned, use --force`); return 1; }
      notes.splice(idx, 1);
      out({ removed: id }, `removed #${id}`);
      return 0;
    }
  }
}

const sessions: string[][] = [
  ['add', '-t', 'work', '--tag', 'urgent', '--pin', '-v', 'Prepare', 'demo'],
  ['list', '--tag', 'work'],
  ['remove', '2'],
  ['remove', '2', '--force', '-f', 'json'],
  ['list', '-n', '5', '--format=json'],
  ['frobnicate'],
];
for (const argv of sessions) {
  console.log(`$ notes ${argv.join(' ')}`);
  let code: number;
  try { code = run(argv); } catch (e) { console.error(`error: ${(e as Error).message}`); code = 2; }
  console.log(`[exit ${code}]`);
}
