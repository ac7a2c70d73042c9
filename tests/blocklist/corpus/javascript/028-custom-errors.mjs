// Error handling patterns: custom error classes, cause chains, AggregateError and finally.
class ValidationError extends Error {
  constructor(field, message) {
    super(`${field}: ${message}`);
    this.name = 'ValidationError';
    this.field = field;
  }
}
class NotFoundError extends Error {
  name = 'NotFoundError';
}

const users = new Map([[1, { id: 1, name: 'Ada', email: 'ada@example.com', age: 36 }]]);

function validate(user) {
  const errors = [];
  if (!user.name?.trim()) errors.push(new ValidationError('name', 'is required'));
  if (!/^[^@\s]+@[^@\s]+\.[a-z]{2,}$/i.test(user.email ?? '')) errors.push(new ValidationError('email', `"${user.email}" is not an e-mail address`));
  if (!(Number.isInteger(user.age) && user.age >= 0 && user.age < 150)) errors.push(new ValidationError('age', `must be 0..149, got ${user.age}`));
  if (errors.length) throw new AggregateError(errors, `${errors.length} validation problem(s)`);
  return user;
}

function loadUser(id) {
  const user = users.get(id);
  if (!user) throw new NotFoundError(`no user with id ${id}`);
  return user;
}

function updateEmail(id, email) {
  try {
    const user = loadUser(id);
    return validate({ ...user, email });
  } catch (err) {
    throw new Error(`could not update user ${id}`, { cause: err });
  } finally {
    console.log(`  (audit) updateEmail(${id}, ${JSON.stringify(email)}) attempted`);
  }
}

function describe(err, depth = 0) {
  const pad = '  '.repeat(depth);
  let out = `${pad}${err.name}: ${err.message}`;
  if (err instanceof AggregateError) out += '\n' + err.errors.map((e) => describe(e, depth + 1)).join('\n');
  if (err.cause) out += `\n${pad}caused by:\n` + describe(err.cause, depth + 1);
  return out;
}

const attempts = [[1, 'ada@lovelace.dev'], [1, 'not-an-email'], [7, 'x@example.org']];
for (const [id, email] of attempts) {
  try {
    const u = updateEmail(id, email);
    console.log(`updated: ${u.name} <${u.email}>`);
  } catch (err) {
    console.log(describe(err));
  }
}

try {
  validate({ name: ' ', email: null, age: 200.5 });
} catch (err) {
  const fields = err.errors.map((e) => e.field);
  console.log(`fields with problems: ${fields.join(', ')}`);
}

const settled = await Promise.allSettled([Promise.resolve(1), Promise.reject(new RangeError('too big')), (async () => loadUser(2))()]);
console.log(settled.map((s) => (s.status === 'fulfilled' ? `ok:${s.value}` : `${s.reason.name}`)).join(' | '));
