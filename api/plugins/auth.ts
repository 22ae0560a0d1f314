// API-key authentication on every route except those that declare themselves public or signed callbacks.
import { timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** 'public': no credentials (health, docs). 'signature': the route checks the platform's signature itself. */
    auth?: 'public' | 'signature';
  }
}

const digest = (s: string) => createHash('sha256').update(s).digest();

export function presentedKey(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header) {
    const [scheme, value] = header.split(' ', 2);
    if (scheme?.toLowerCase() === 'bearer' && value) return value.trim();
  }
  const apiKey = request.headers['x-api-key'];
  return typeof apiKey === 'string' && apiKey ? apiKey : undefined;
}

export function installApiKeyAuth(app: FastifyInstance, apiKeys: string[]): void {
  // Compare fixed-length digests so neither the key nor its length leaks through timing.
  const known = apiKeys.map(digest);
  app.addHook('onRequest', async (request) => {
    const mode = request.routeOptions.config?.auth;
    if (mode === 'public' || mode === 'signature') return;
    if (request.method === 'OPTIONS') return; // CORS preflights carry no credentials
    // No route: the answer is 404 or 405 with Allow, which the public OpenAPI document says anyway.
    if (request.is404) return;
    const key = presentedKey(request);
    if (!key) throw new ApiError(401, 'unauthorized', 'missing API key: send "Authorization: Bearer <key>" or "x-api-key: <key>"');
    const d = digest(key);
    if (!known.some((k) => timingSafeEqual(k, d))) throw new ApiError(401, 'unauthorized', 'API key not recognised');
  });
}
