// A URL router: patterns like /users/:id(\d+) compile to regexes; typed params via template literal types.
type ParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? StripConstraint<Name> | ParamNames<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? StripConstraint<Name>
    : never;
type StripConstraint<S extends string> = S extends `${infer N}(${string}` ? N : S;
type Params<P extends string> = { [K in ParamNames<P>]: string };

type Method = 'GET' | 'POST' | 'DELETE';
interface Route {
  method: Method;
  pattern: string;
  regex: RegExp;
  keys: string[];
  handler: (params: Record<string, string>, query: URLSearchParams) => string;
}

class Router {
  private readonly routes: Route[] = [];

  add<P extends string>(method: Method, pattern: P, handler: (params: Params<P>, query: URLSearchParams) => string): this {
    const keys: string[] = [];
    // One pass: parameters become capture groups, a trailing * captures the rest, everything else is escaped.
    const source = pattern.replace(/:(\w+)(?:\(([^)]*)\))?|(\*)$|[.+?^${}()|[\]\\]/g, (m, key?: string, constraint?: string, star?: string) => {
      if (key) {
        keys.push(key);
        return `(${constraint ?? '[^/]+'})`;
      }
      return star ? '(?<rest>.*)' : `\\${m}`;
    });
    this.routes.push({ method, pattern, regex: new RegExp(`^${source}/?$`), keys, handler: handler as Route['handler'] });
    return this;
  }

  handle(method: Method, url: string): { status: number; body: string } {
    const { pathname, searchParams } = new URL(url, 'http://localhost');
    const candidates = this.routes.filter((r) => r.regex.test(pathname));
    const route = candidates.find((r) => r.method === method);
    if (!route) return candidates.length ? { status: 405, body: `method ${method} not allowed` } : { status: 404, body: `no route for ${pathname}` };
    const m = route.regex.exec(pathname)!;
    const params = Object.fromEntries(route.keys.map((k, i) => [k, decodeURIComponent(m[i + 1])]));
    if (m.groups?.rest !== undefined) params.rest = m.groups.rest;
    return { status: 200, body: route.handler(params, searchParams) };
  }
}

const users = new Map([['1', 'Ada'], ['2', 'Linus']]);
const router = new Router()
  .add('GET', '/users', (_, q) => JSON.stringify([...users.values()].slice(0, Number(q.get('limit') ?? 10))))
  .add('GET', '/users/:id(\\d+)', ({ id }) => users.get(id) ?? `user ${id} not found`)
  .add('DELETE', '/users/:id(\\d+)', ({ id }) => (users.delete(id) ? `deleted ${id}` : 'nothing to delete'))
  .add('GET', '/repos/:owner/:repo/issues/:num', ({ owner, repo, num }) => `issue #${num} of ${owner}/${repo}`)
  .add('GET', '/files/*', (p) => `file at "${(p as Record<string, string>).rest}"`);

const requests: Array<[Method, string]> = [
  ['GET', '/users?limit=1'], ['GET', '/users/2'], ['GET', '/users/abc'], ['DELETE', '/users/2'],
  ['GET', '/users/2/'], ['POST', '/users/1'], ['GET', '/repos/node%20js/core/issues/42'],
  ['GET', '/files/etc/passwd'], ['GET', '/nothing/here'],
];
for (const [method, url] of requests) {
  const { status, body } = router.handle(method, url);
  console.log(`${method.padEnd(6)} ${url.padEnd(34)} ${status} ${body}`);
}
