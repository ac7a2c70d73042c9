// A small JSON-schema-like validator with a typed schema DSL and precise error paths.
type SchemaNode =
  | { type: 'string'; minLength?: number; pattern?: RegExp; enum?: readonly string[] }
  | { type: 'number'; min?: number; max?: number; integer?: boolean }
  | { type: 'boolean' }
  | { type: 'array'; items: SchemaNode; minItems?: number }
  | { type: 'object'; properties: Record<string, SchemaNode>; required?: readonly string[]; additional?: boolean };

interface Issue {
  path: string;
  message: string;
}

function validate(value: unknown, schema: SchemaNode, path = '$'): Issue[] {
  const issue = (message: string): Issue[] => [{ path, message }];
  switch (schema.type) {
    case 'string': {
      if (typeof value !== 'string') return issue(`expected string, got ${typeof value}`);
      if (schema.minLength !== undefined && value.length < schema.minLength) return issue(`shorter than ${schema.minLength}`);
      if (schema.pattern && !schema.pattern.test(value)) return issue(`does not match ${schema.pattern}`);
      if (schema.enum && !schema.enum.includes(value)) return issue(`must be one of ${schema.enum.join('|')}`);
      return [];
    }
    case 'number': {
      if (typeof value !== 'number' || Number.isNaN(value)) return issue('expected number');
      if (schema.integer && !Number.isInteger(value)) return issue('expected integer');
      if (schema.min !== undefined && value < schema.min) return issue(`below minimum ${schema.min}`);
      if (schema.max !== undefined && value > schema.max) return issue(`above maximum ${schema.max}`);
      return [];
    }
    case 'boolean':
      return typeof value === 'boolean' ? [] : issue('expected boolean');
    case 'array': {
      if (!Array.isArray(value)) return issue('expected array');
      const own = schema.minItems !== undefined && value.length < schema.minItems ? issue(`needs at least ${schema.minItems} items`) : [];
      return [...own, ...value.flatMap((v, i) => validate(v, schema.items, `${path}[${i}]`))];
    }
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return issue('expected object');
      const obj = value as Record<string, unknown>;
      const missing = (schema.required ?? []).filter((k) => !(k in obj)).map((k) => ({ path: `${path}.${k}`, message: 'is required' }));
      const extra = schema.additional === false
        ? Object.keys(obj).filter((k) => !(k in schema.properties)).map((k) => ({ path: `${path}.${k}`, message: 'is not allowed' }))
        : [];
      const nested = Object.entries(schema.properties).flatMap(([k, s]) => (k in obj ? validate(obj[k], s, `${path}.${k}`) : []));
      return [...missing, ...extra, ...nested];
    }
  }
}

const userSchema = {
  type: 'object',
  required: ['name', 'email', 'roles'],
  additional: false,
  properties: {
    name: { type: 'string', minLength: 2 },
    email: { type: 'string', pattern: /^[\w.+-]+@[\w-]+(\.[\w-]+)+$/ },
    age: { type: 'number', min: 0, max: 150, integer: true },
    roles: { type: 'array', minItems: 1, items: { type: 'string', enum: ['admin', 'editor', 'viewer'] as const } },
    active: { type: 'boolean' },
  },
} satisfies SchemaNode;

const documents = [
  '{"name":"Ada","email":"ada@example.com","age":36,"roles":["admin"],"active":true}',
  '{"name":"B","email":"not-an-email","age":-4.5,"roles":[],"nickname":"bee"}',
  '{"email":"c@example.org","roles":["viewer","owner",42]}',
  '[1,2,3]',
];

for (const doc of documents) {
  const issues = validate(JSON.parse(doc), userSchema);
  console.log(doc.length > 60 ? doc.slice(0, 57) + '...' : doc);
  if (issues.length === 0) console.log('  ✓ valid');
  for (const { path, message } of issues) console.log(`  ✗ ${path} ${message}`);
}
