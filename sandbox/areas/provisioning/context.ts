// What every provisioning route module shares.
import type { FastifyRequest } from 'fastify';
import { oauthAuth } from '../../core/auth-oauth.js';
import { rejectUnparsedBody } from '../../core/body-parsers.js';
import type { SandboxContext } from '../../core/context.js';
import { projectRateLimit } from '../../core/guards.js';
import type { WebhookEvents } from './delivery.js';
import type { Reviewer } from './reviewer.js';
import type { ProvisioningStore } from './store.js';

export interface ProvisioningDeps {
  ctx: SandboxContext;
  store: ProvisioningStore;
  hub: WebhookEvents;
  reviewer: Reviewer;
}

/** The key must own the project in the path (403 otherwise); then the project's rate limit; then the body must have parsed. */
export function projectGuard(ctx: SandboxContext): ((request: FastifyRequest) => Promise<void>)[] {
  return [oauthAuth(ctx, { projectParam: 'projectId' }), projectRateLimit(ctx), rejectUnparsedBody];
}

export const PROJECT = '/v1/projects/:projectId';
