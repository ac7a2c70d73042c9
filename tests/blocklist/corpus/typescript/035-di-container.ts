// A tiny dependency-injection container with typed tokens, singletons, scopes and cycle detection.
class Token<T> {
  declare readonly __type: T; // phantom field, carries the type only
  constructor(readonly name: string) {}
}

type Factory<T> = (c: Container) => T;
type Lifetime = 'singleton' | 'transient' | 'scoped';

class Container {
  private readonly registrations = new Map<Token<unknown>, { factory: Factory<unknown>; lifetime: Lifetime }>();
  private readonly instances = new Map<Token<unknown>, unknown>();
  private readonly resolving: Token<unknown>[] = [];

  constructor(private readonly parent?: Container) {}

  register<T>(token: Token<T>, factory: Factory<T>, lifetime: Lifetime = 'singleton'): this {
    this.registrations.set(token, { factory, lifetime });
    return this;
  }

  createScope(): Container {
    return new Container(this);
  }

  private lookup(token: Token<unknown>): { factory: Factory<unknown>; lifetime: Lifetime; owner: Container } | undefined {
    const r = this.registrations.get(token);
    return r ? { ...r, owner: this } : this.parent?.lookup(token);
  }

  resolve<T>(token: Token<T>): T {
    const reg = this.lookup(token);
    if (!reg) throw new Error(`no provider for ${token.name}`);
    if (this.resolving.includes(token)) throw new Error(`cycle: ${[...this.resolving, token].map((t) => t.name).join(' -> ')}`);
    const cacheOwner = reg.lifetime === 'singleton' ? reg.owner : reg.lifetime === 'scoped' ? this : null;
    if (cacheOwner?.instances.has(token)) return cacheOwner.instances.get(token) as T;
    this.resolving.push(token);
    try {
      const value = reg.factory(this) as T;
      cacheOwner?.instances.set(token, value);
      return value;
    } finally {
      this.resolving.pop();
    }
  }
}

interface Logger { log(msg: string): void; lines: string[] }
interface Config { dbUrl: string; poolSize: number }
interface Db { query(sql: string): string[]; id: number }
interface RequestCtx { requestId: string }

const LOGGER = new Token<Logger>('Logger');
const CONFIG = new Token<Config>('Config');
const DB = new Token<Db>('Db');
const REQUEST = new Token<RequestCtx>('RequestCtx');
const A = new Token<string>('A');
const B = new Token<string>('B');

let dbCount = 0;
let reqCount = 0;
const root = new Container()
  .register(CONFIG, () => ({ dbUrl: 'postgres://localhost:5432/app', poolSize: 4 }))
  .register(LOGGER, () => { const lines: string[] = []; return { lines, log: (m) => lines.push(m) }; })
  .register(DB, (c) => {
    const cfg = c.resolve(CONFIG);
    c.resolve(LOGGER).log(`connecting to ${cfg.dbUrl.replace(/\/\/.*@/, '//***@')} (pool ${cfg.poolSize})`);
    const id = ++dbCount;
    return { id, query: (sql) => [`db#${id}: ${sql}`] };
  })
  .register(REQUEST, () => ({ requestId: `req-${++reqCount}` }), 'scoped')
  .register(A, (c) => `A needs ${c.resolve(B)}`, 'transient')
  .register(B, (c) => `B needs ${c.resolve(A)}`, 'transient');

for (const path of ['/orders', '/users']) {
  const scope = root.createScope();
  const req = scope.resolve(REQUEST);
  const again = scope.resolve(REQUEST);
  const rows = scope.resolve(DB).query(`SELECT * FROM t -- ${path}`);
  console.log(`${req.requestId} (same in scope: ${req === again}) -> ${rows.join('')}`);
}
console.log(`databases created: ${dbCount}`);
console.log('log:', root.resolve(LOGGER).lines);
for (const t of [A, new Token<number>('Missing')] as Token<unknown>[]) {
  try { root.resolve(t); } catch (e) { console.log('error:', (e as Error).message); }
}
