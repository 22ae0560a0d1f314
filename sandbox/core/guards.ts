// preValidation hooks for the platform's rate limits, keyed by what an area supplies.
import type { FastifyRequest } from 'fastify';
import type { SandboxContext } from './context.js';
import { projectRateKey } from './rate-limit.js';
import { authOf } from './request-state.js';

/** Per-project limit (default 800/s) on the authenticated account's project; put it after authentication. */
export function projectRateLimit(ctx: SandboxContext) {
  return async (request: FastifyRequest): Promise<void> => {
    ctx.rateLimiter.enforce(projectRateKey(authOf(request).account.projectId), ctx.options.rateLimits.perProjectPerSecond);
  };
}
