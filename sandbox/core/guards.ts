// preValidation hooks for the platform's rate limits, keyed by what an area supplies, and the guard every
// project-scoped OAuth route passes.
import type { FastifyRequest } from 'fastify';
import { oauthAuth } from './auth-oauth.js';
import { rejectUnparsedBody } from './body-parsers.js';
import type { SandboxContext } from './context.js';
import { projectRateKey } from './rate-limit.js';
import { authOf } from './request-state.js';

/**
 * Per-project limit on the authenticated account's project; put it after authentication. `rps` is read at each
 * request (an area whose control routes change it); default the option (800/s unless set).
 */
export function projectRateLimit(ctx: SandboxContext, rps: () => number = () => ctx.options.rateLimits.perProjectPerSecond) {
  return async (request: FastifyRequest): Promise<void> => {
    ctx.rateLimiter.enforce(projectRateKey(authOf(request).account.projectId), rps());
  };
}

/** Where the OAuth areas' project resources live. */
export const PROJECT = '/v1/projects/:projectId';
export type ProjectParams = { projectId: string };

/**
 * The key must own the project in the path (`param`, 403 otherwise); then the project's rate limit (see
 * projectRateLimit); then the body must have parsed.
 */
export function projectGuard(ctx: SandboxContext, opts: { param?: string; rps?: () => number } = {}): ((request: FastifyRequest) => Promise<void>)[] {
  return [oauthAuth(ctx, { projectParam: opts.param ?? 'projectId' }), projectRateLimit(ctx, opts.rps), rejectUnparsedBody];
}
