// A text-processing pipeline of plugins implementing a shared interface, with ordering and hooks.
interface Context {
  readonly filename: string;
  warnings: string[];
  meta: Record<string, string | number>;
}

interface Plugin {
  readonly name: string;
  readonly order?: number;
  transform(input: string, ctx: Context): string;
}

abstract class LinePlugin implements Plugin {
  abstract readonly name: string;
  order = 50;
  protected abstract line(line: string, index: number, ctx: Context): string | null;
  transform(input: string, ctx: Context): string {
    return input
      .split('\n')
      .map((l, i) => this.line(l, i, ctx))
      .filter((l): l is string => l !== null)
      .join('\n');
  }
}

class TrimTrailing extends LinePlugin {
  readonly name = 'trim-trailing';
  protected line(l: string, i: number, ctx: Context): string {
    if (/\s+$/.test(l)) ctx.warnings.push(`line ${i + 1}: trailing whitespace`);
    return l.replace(/\s+$/, '');
  }
}

class StripDebug extends LinePlugin {
  readonly name = 'strip-debug';
  override order = 10;
  protected line(l: string): string | null {
    return /^\s*console\.debug\(/.test(l) ? null : l;
  }
}

class TabsToSpaces implements Plugin {
  readonly name = 'tabs-to-spaces';
  constructor(private readonly width = 2) {}
  transform(input: string): string {
    return input.replace(/\t/g, ' '.repeat(this.width));
  }
}

const banner = (text: string): Plugin => ({
  name: 'banner',
  order: 90,
  transform: (input, ctx) => `/*! ${text} — ${ctx.filename} */\n${input}`,
});

class Pipeline {
  private readonly plugins: Plugin[] = [];
  use(...ps: Plugin[]): this {
    this.plugins.push(...ps);
    return this;
  }
  run(input: string, filename: string): { output: string; ctx: Context } {
    const ctx: Context = { filename, warnings: [], meta: {} };
    const ordered = [...this.plugins].sort((a, b) => (a.order ?? 50) - (b.order ?? 50));
    const output = ordered.reduce((text, p) => {
      const out = p.transform(text, ctx);
      ctx.meta[p.name] = out.length - text.length;
      return out;
    }, input);
    return { output, ctx };
  }
}

const source = [
  'export function add(a, b) {  ',
  '\tconsole.debug("adding", a, b);',
  '\treturn a + b; ',
  '}',
  '// a `template` and a "string" in a comment',
  'export const re = /\\t+/g, half = 10 / 2;',
].join('\n');

const { output, ctx } = new Pipeline()
  .use(new TrimTrailing(), banner('built 2024-06-01'), new TabsToSpaces(4), new StripDebug())
  .run(source, 'math.js');

console.log(output);
console.log('---');
ctx.warnings.forEach((w) => console.log('warning:', w));
console.log('size delta per plugin:', JSON.stringify(ctx.meta));
