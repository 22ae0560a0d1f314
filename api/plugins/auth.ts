// API-key authentication and scopes on every route except those that declare themselves public or signed
// callbacks. In order: identify the key, count the request against its rate limit, then require a known
// key (401) with the route's scope (403).
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import type { Scope } from '../../common/api-keys.js';
import { ApiError } from '../errors.js';
import type { ApiKeyIdentity, KeyRing } from './key-ring.js';
import { rateLimitPlugin, type RateLimitSettings } from './rate-limit.js';
import { requiredScope, scopeAllows } from './scopes.js';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** 'public': no credentials (health, docs). 'signature': the route checks the platform's signature itself. */
    auth?: 'public' | 'signature';
    /** Overrides the scope api/plugins/scopes.ts derives from the method and path. */
    scope?: Scope;
  }
  interface FastifyRequest {
    /** The recognised API key's identity; undefined without a valid key. */
    apiKey?: ApiKeyIdentity;
  }
}

export function presentedKey(request: { headers: IncomingHttpHeaders }): string | undefined {
  const header = request.headers.authorization;
  if (header) {
    const [scheme, value] = header.split(' ', 2);
    if (scheme?.toLowerCase() === 'bearer' && value) return value.trim();
  }
  const apiKey = request.headers['x-api-key'];
  return typeof apiKey === 'string' && apiKey ? apiKey : undefined;
}

const keyless = (request: FastifyRequest) => {
  const mode = request.routeOptions.config?.auth;
  return mode === 'public' || mode === 'signature';
};

/**
 * Fastify's childLoggerFactory: every log line of a request with a recognised key carries its `keyId`. Here
 * rather than in a hook, since Fastify logs `incoming request` before any hook runs.
 */
export function keyIdLoggerFactory(keys: KeyRing) {
  return (logger: FastifyBaseLogger, bindings: Record<string, unknown>, opts: object, raw: { headers: IncomingHttpHeaders }) => {
    const keyId = keys.identify(presentedKey(raw))?.keyId;
    return logger.child(keyId ? { ...bindings, keyId } : bindings, opts);
  };
}

export const apiKeyAuthPlugin = fp(
  async (app: FastifyInstance, { keys, limits }: { keys: KeyRing; limits: RateLimitSettings }) => {
    app.decorateRequest('apiKey', undefined);
    app.addHook('onRequest', async (request) => {
      if (!keyless(request)) request.apiKey = keys.identify(presentedKey(request));
    });
    // Before the 401: requests with a wrong key count too (per client address), which slows down guessing.
    await app.register(rateLimitPlugin, limits);
    app.addHook('onRequest', async (request) => {
      if (keyless(request)) return;
      if (request.method === 'OPTIONS') return; // CORS preflights carry no credentials
      // No route: the answer is 404 or 405 with Allow, which the public OpenAPI document says anyway.
      if (request.is404) return;
      if (!presentedKey(request)) throw new ApiError(401, 'unauthorized', 'missing API key: send "Authorization: Bearer <key>" or "x-api-key: <key>"');
      const key = request.apiKey;
      if (!key) throw new ApiError(401, 'unauthorized', 'API key not recognised');
      const needed = requiredScope(request.method, request.routeOptions.url ?? request.url, request.routeOptions.config);
      if (!scopeAllows(key.scope, needed)) {
        const message = `needs the ${needed} scope; API key ${key.keyId} has ${key.scope}`;
        throw new ApiError(403, 'forbidden', `${request.method} ${request.routeOptions.url} ${message}`, [
          { field: 'header.authorization', rule: 'scope', message },
        ]);
      }
    });
  },
  { name: 'relayflow-api-key-auth' },
);
