// Apply RFC 6902 JSON Patch operations using RFC 6901 JSON Pointers, atomically with rollback.
type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Op =
  | { op: 'add' | 'replace' | 'test'; path: string; value: Json }
  | { op: 'remove'; path: string }
  | { op: 'move' | 'copy'; from: string; path: string };

class PatchError extends Error {
  constructor(readonly index: number, readonly operation: Op, reason: string) {
    super(`operation ${index} (${operation.op} ${operation.path}) failed: ${reason}`);
  }
}

const parsePointer = (ptr: string): string[] => {
  if (ptr === '') return [];
  if (!ptr.startsWith('/')) throw new Error(`pointer must start with "/": ${ptr}`);
  return ptr.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
};

function locate(doc: Json, tokens: string[]): { parent: Json; key: string } {
  let node = doc;
  for (const t of tokens.slice(0, -1)) {
    if (node === null || typeof node !== 'object') throw new Error(`cannot descend into ${JSON.stringify(node)}`);
    const next: Json | undefined = Array.isArray(node) ? node[Number(t)] : node[t];
    if (next === undefined) throw new Error(`path segment "${t}" not found`);
    node = next;
  }
  return { parent: node, key: tokens[tokens.length - 1] };
}

function get(doc: Json, ptr: string): Json {
  return parsePointer(ptr).reduce<Json>((n, t) => {
    const v = Array.isArray(n) ? n[Number(t)] : n && typeof n === 'object' ? n[t] : undefined;
    if (v === undefined) throw new Error(`no value at ${ptr}`);
    return v;
  }, doc);
}

function apply(doc: Json, ops: readonly Op[]): Json {
  let work: Json = structuredClone(doc); // original untouched if anything fails
  ops.forEach((op, i) => {
    try {
      if (op.op === 'test') {
        if (JSON.stringify(get(work, op.path)) !== JSON.stringify(op.value)) throw new Error('test value differs');
        return;
      }
      const value = 'from' in op ? structuredClone(get(work, op.from)) : op.op === 'remove' ? null : op.value;
      if (op.op === 'move') work = apply(work, [{ op: 'remove', path: op.from }]);
      const tokens = parsePointer(op.path);
      if (tokens.length === 0) { work = value; return; }
      const { parent, key } = locate(work, tokens);
      if (Array.isArray(parent)) {
        const idx = key === '-' ? parent.length : Number(key);
        if (!Number.isInteger(idx) || idx < 0 || idx > parent.length) throw new Error(`bad array index ${key}`);
        if (op.op === 'remove' || op.op === 'replace') { if (idx >= parent.length) throw new Error(`index ${idx} out of range`); parent.splice(idx, 1); }
        if (op.op !== 'remove') parent.splice(idx, 0, value);
      } else if (parent !== null && typeof parent === 'object') {
        if ((op.op === 'remove' || op.op === 'replace') && !(key in parent)) throw new Error(`no member "${key}"`);
        if (op.op === 'remove') delete parent[key];
        else parent[key] = value;
      } else throw new Error('parent is not a container');
    } catch (e) {
      throw e instanceof PatchError ? e : new PatchError(i, op, (e as Error).message);
    }
  });
  return work;
}

const original: Json = JSON.parse('{"name":"svc","tags":["a","b"],"limits":{"cpu":"500m","mem/max":"1Gi"},"owner~team":"infra"}');
const patch: Op[] = JSON.parse(`[
  {"op":"test","path":"/name","value":"svc"},
  {"op":"replace","path":"/limits/cpu","value":"1"},
  {"op":"add","path":"/tags/-","value":"c"},
  {"op":"add","path":"/tags/0","value":"first"},
  {"op":"remove","path":"/limits/mem~1max"},
  {"op":"copy","from":"/owner~0team","path":"/maintainer"},
  {"op":"move","from":"/tags/1","path":"/primaryTag"}
]`);
console.log(JSON.stringify(apply(original, patch)));
console.log('original unchanged:', JSON.stringify(original));

for (const bad of [[{ op: 'test', path: '/name', value: 'other' }], [{ op: 'remove', path: '/tags/9' }], [{ op: 'replace', path: '/missing/x', value: 1 }]] as Op[][]) {
  try { apply(original, bad); } catch (e) { console.log((e as Error).message); }
}
