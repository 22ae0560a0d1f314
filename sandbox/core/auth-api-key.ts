// Verifier for MMS: the account's API key in header x-api-key.
import type { FastifyRequest } from 'fastify';
import { timingSafeEqualString } from '../../common/signing.js';
import type { SandboxContext } from './context.js';
import { AreaError } from './errors.js';
import { requestState, type SandboxAuth } from './request-state.js';

/** Throws 401 with MMS code E104 (rendered `{status: 'Failure', 'error-code': 'E104', ...}`). */
export function authenticateApiKey(ctx: SandboxContext, request: FastifyRequest): SandboxAuth {
  const raw = request.headers['x-api-key'];
  const key = Array.isArray(raw) ? raw[0] : raw;
  if (!key) throw new AreaError(401, 'Missing API key (header x-api-key)', { code: 'E104' });
  const account = ctx.accounts.byMmsKey(key);
  // The map look-up already matched; the constant-time compare keeps the check uniform with the others.
  if (!account || !timingSafeEqualString(account.mmsApiKey, key)) throw new AreaError(401, 'Invalid API key', { code: 'E104' });
  const auth: SandboxAuth = { scheme: 'api-key', account };
  requestState(request).auth = auth;
  return auth;
}

export function apiKeyAuth(ctx: SandboxContext) {
  return async (request: FastifyRequest): Promise<void> => {
    authenticateApiKey(ctx, request);
  };
}
