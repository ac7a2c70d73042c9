// Tagged templates: a parameterised SQL builder, an HTML escaper and a dedent helper.
function sql(strings, ...values) {
  let text = '';
  const params = [];
  strings.forEach((chunk, i) => {
    text += chunk;
    if (i < values.length) {
      const v = values[i];
      if (v && v.__raw) text += v.__raw;
      else if (Array.isArray(v)) text += v.map((x) => { params.push(x); return `$${params.length}`; }).join(', ');
      else { params.push(v); text += `$${params.length}`; }
    }
  });
  return { text: text.replace(/\s+/g, ' ').trim(), params };
}
sql.raw = (s) => ({ __raw: s });

const html = (strings, ...values) =>
  strings.reduce((out, s, i) => out + s + (i < values.length ? String(values[i]).replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`) : ''), '');

function dedent(strings, ...values) {
  const full = String.raw({ raw: strings.raw }, ...values);
  const lines = full.replace(/^\n/, '').split('\n');
  const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => l.match(/^ */)[0].length));
  return lines.map((l) => l.slice(indent)).join('\n').trimEnd();
}

const name = "O'Brien; DROP TABLE users; --";
const ids = [3, 5, 8];
const orderBy = sql.raw('created_at DESC');
const q = sql`
  SELECT id, name FROM users
  WHERE name = ${name} OR id IN (${ids})
  ORDER BY ${orderBy}
  LIMIT ${10}`;
console.log(q.text);
console.log('params:', JSON.stringify(q.params));

const comment = '<script>alert("hi")</script> & `backticks`';
console.log(html`<p class="comment">${comment}</p>`);

const user = { name: 'Grace', roles: ['admin', 'dev'] };
const report = dedent`
    User report
      name:  ${user.name}
      roles: ${user.roles.map((r) => `<${r}>`).join(', ')}
      home:  /home/${user.name.toLowerCase()}
      note:  \${escaped} placeholders stay literal
    (end)`;
console.log(report);

// Tags receive the cooked and raw strings separately.
const show = (s) => JSON.stringify({ cooked: s[0], raw: s.raw[0] });
console.log(show`tab:\t newline:\n unicode:\u00e9`);
