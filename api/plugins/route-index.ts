// Which methods each path answers, recorded as routes register, so a known path asked with another method is
// a 405 with Allow (RFC 9110 §15.5.6) and only an unknown path is a 404.
import type { FastifyInstance } from 'fastify';

interface IndexedPath {
  url: string;
  pattern: RegExp;
  methods: Set<string>;
}

const escape = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&');

/** A Fastify route URL as a regular expression over the raw request path (`:param` is one segment, `*` the rest). */
function urlPattern(url: string): RegExp {
  const source = url
    .split(/(:[A-Za-z0-9_]+|\*)/)
    .map((part) => (part === '*' ? '.*' : part.startsWith(':') ? '[^/]+' : escape(part)))
    .join('');
  return new RegExp(`^${source}$`);
}

export class RouteIndex {
  private readonly paths = new Map<string, IndexedPath>();

  add(url: string, method: string | string[]): void {
    let entry = this.paths.get(url);
    if (!entry) this.paths.set(url, (entry = { url, pattern: urlPattern(url), methods: new Set() }));
    for (const m of [method].flat()) entry.methods.add(m.toUpperCase());
  }

  /** The methods the path answers (sorted, for the Allow header), or undefined when no route has this path. */
  allowed(path: string): string[] | undefined {
    const methods = new Set<string>();
    for (const entry of this.paths.values()) {
      if (entry.pattern.test(path)) for (const m of entry.methods) methods.add(m);
    }
    if (methods.size === 0) return undefined;
    // Fastify answers HEAD for every GET, and the not-found handler answers OPTIONS for every known path.
    if (methods.has('GET')) methods.add('HEAD');
    methods.add('OPTIONS');
    return [...methods].sort();
  }
}

/** Call before any route is registered: onRoute sees only the routes added after it. */
export function indexRoutes(app: FastifyInstance): RouteIndex {
  const index = new RouteIndex();
  app.addHook('onRoute', (route) => index.add(route.url, route.method));
  return index;
}
