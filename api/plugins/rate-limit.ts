// Per-key request limits (@fastify/rate-limit, a fixed one-minute window in this process's memory): one key's
// flood is refused with 429 while other keys go on. Requests without a valid key count per client address.
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import fp from 'fastify-plugin';

export interface RateLimitSettings {
  /** Requests per minute for a key without its own limit, and per client address without a valid key. */
  perMinute: number;
}

/** Not limited: health checks and public pages, and the platform's signed callbacks (relayflow never throttles the platform). */
export const isRateLimited = (config: { auth?: string } | undefined) => config?.auth !== 'public' && config?.auth !== 'signature';

const bucketOf = (req: FastifyRequest) => (req.apiKey ? `key:${req.apiKey.keyId}` : `ip:${req.ip}`);

/** Call after the request's key is identified (request.apiKey) and before it is required. */
export const rateLimitPlugin = fp(
  async (app: FastifyInstance, settings: RateLimitSettings) => {
    // Not global: the plugin would add its hook to each route after the app's hooks, that is after the 401/403
    // check, and requests with a wrong key would never count.
    await app.register(rateLimit, { global: false });
    const limit = app.rateLimit({
      timeWindow: 60_000,
      keyGenerator: bucketOf,
      max: (req) => req.apiKey?.perMinute ?? settings.perMinute,
      errorResponseBuilder: (req, ctx) =>
        new ApiError(
          429,
          'rate_limited',
          `${req.apiKey ? `API key ${req.apiKey.keyId}` : 'this client'} sent more than ${ctx.max} requests this minute; retry in ${ctx.after}`,
          undefined,
          ctx.ttl,
        ),
    });
    app.addHook('onRequest', async (request, reply) => {
      if (isRateLimited(request.routeOptions.config)) await limit.call(app, request, reply);
    });
  },
  { name: 'relayflow-rate-limit' },
);
