// Typed tagged templates: safe HTML with nested templates, a CSS helper, and a simple i18n tag.
class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string { return this.value; }
}

type HtmlValue = string | number | boolean | null | undefined | SafeHtml | HtmlValue[];

const escape = (s: string): string =>
  s.replace(/[&<>"'`]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' })[c]!);

function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  const render = (v: HtmlValue): string =>
    v instanceof SafeHtml ? v.value : Array.isArray(v) ? v.map(render).join('') : v == null || v === false ? '' : escape(String(v));
  return new SafeHtml(strings.reduce((out, s, i) => out + s + (i < values.length ? render(values[i]) : ''), ''));
}

type CssValue = string | number;
function css(strings: TemplateStringsArray, ...values: CssValue[]): string {
  const raw = strings.reduce((out, s, i) => out + s + (i < values.length ? (typeof values[i] === 'number' ? `${values[i]}px` : values[i]) : ''), '');
  return raw.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\s+/g, ' ').replace(/\s*([{};:,])\s*/g, '$1').trim();
}

const messages = { en: { greeting: 'Hello {0}, you have {1} new messages' }, nl: { greeting: 'Hallo {0}, je hebt {1} nieuwe berichten' } } as const;
type Locale = keyof typeof messages;
const t = (locale: Locale) => (strings: TemplateStringsArray, ...vals: (string | number)[]): string => {
  const key = strings[0].trim() as keyof (typeof messages)[Locale]; // the message id comes first
  return messages[locale][key].replace(/\{(\d+)\}/g, (_, i: string) => String(vals[Number(i)]));
};

interface Comment { author: string; body: string; likes: number; replies?: Comment[] }
const thread: Comment[] = [
  { author: 'ana', body: 'Use `Array.prototype.at(-1)` <3', likes: 4, replies: [{ author: 'bo', body: '"nice" & short', likes: 1 }] },
  { author: '<script>x</script>', body: "It's fine", likes: 0 },
];

const renderComment = (c: Comment): SafeHtml => html`
  <li class="${c.likes > 2 ? 'popular' : 'normal'}">
    <b>${c.author}</b>: ${c.body} ${c.likes ? html`<span>♥ ${c.likes}</span>` : null}
    ${c.replies?.length ? html`<ul>${c.replies.map(renderComment)}</ul>` : ''}
  </li>`;

const page = html`<ul class="thread">${thread.map(renderComment)}</ul>`;
console.log(page.toString().replace(/\n\s*\n/g, '\n'));

const gap = 8;
const style = css`
  /* card layout; "quotes" and \`backticks\` in comments are stripped */
  .card { padding: ${gap * 2}; margin: ${gap} auto; color: ${'#333'}; }
  .card:hover { box-shadow: 0 ${gap / 4} ${gap} rgba(0, 0, 0, .2); }
`;
console.log(style);
for (const locale of ['en', 'nl'] as const) console.log(t(locale)`greeting ${'Sam'} ${3}`);
