// A CLI front-end using util.parseArgs with a fixed argv, help text and validation.
import { parseArgs } from 'node:util';

const HELP = `Usage: backup-tool [options] <source...>

Options:
  -o, --out DIR        where to write archives (default: /tmp/backups)
  -n, --dry-run        print what would happen without writing anything
  -k, --keep N         how many archives to keep (default: 5)
  -x, --exclude GLOB   skip matching paths (repeatable)
  -v, --verbose        chatty output
  -h, --help           show this text

Examples:
  backup-tool -o /tmp/out ~/projects
  backup-tool --exclude "*.log" --exclude 'node_modules' src docs

Note: this tool never needs sudo; do not run it as "sudo backup-tool".`;

const options = {
  out: { type: 'string', short: 'o', default: '/tmp/backups' },
  'dry-run': { type: 'boolean', short: 'n', default: false },
  keep: { type: 'string', short: 'k', default: '5' },
  exclude: { type: 'string', short: 'x', multiple: true, default: [] },
  verbose: { type: 'boolean', short: 'v', default: false },
  help: { type: 'boolean', short: 'h', default: false },
};

function run(argv) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (e) {
    return { code: 2, message: `error: ${e.message}` };
  }
  const { values, positionals } = parsed;
  if (values.help) return { code: 0, message: HELP };
  const keep = Number(values.keep);
  if (!Number.isInteger(keep) || keep < 1) return { code: 2, message: `error: --keep expects a positive integer, got "${values.keep}"` };
  if (positionals.length === 0) return { code: 2, message: 'error: at least one <source> is required' };
  const globToRe = (g) => new RegExp('^' + g.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.') + '$');
  const excludes = values.exclude.map(globToRe);
  const files = ['app.log', 'main.c', 'node_modules', 'README.md', 'debug.log'];
  const kept = files.filter((f) => !excludes.some((re) => re.test(f)));
  const lines = [
    `${values['dry-run'] ? '[dry-run] ' : ''}backing up ${positionals.join(', ')} -> ${values.out} (keep ${keep})`,
    ...(values.verbose ? [`  including: ${kept.join(' ')}`, `  excluded patterns: ${excludes.map(String).join(' ')}`] : []),
  ];
  return { code: 0, message: lines.join('\n') };
}

const invocations = [
  ['--help'],
  ['-n', '-v', '-x', '*.log', '--exclude', 'node_modules', 'src', 'docs'],
  ['--keep', 'three', 'src'],
  ['--out=/tmp/archive', '-k', '2'],
  ['--frobnicate', 'src'],
];
for (const argv of invocations) {
  const { code, message } = run(argv);
  console.log(`$ backup-tool ${argv.join(' ')}\n${message}\n(exit ${code})\n`);
}
