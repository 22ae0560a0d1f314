// Verifier for the OAuth-family areas (conversation, subprojects, sender ID, provisioning):
// a bearer token from the token endpoint, or HTTP Basic keyId:keySecret.
import type { FastifyRequest } from 'fastify';
import { timingSafeEqualString } from '../../common/signing.js';
import type { SandboxAccount } from './accounts.js';
import { authorizationOf, decodeBasic } from './authorization-header.js';
import type { SandboxContext } from './context.js';
import { AreaError } from './errors.js';
import { requestState, type SandboxAuth } from './request-state.js';
import { verifyToken } from './tokens.js';

export interface OAuthAuthOptions {
  /** Path parameter naming the project the key must belong to (e.g. `projectId`, `parentProjectId`). */
  projectParam?: string;
  /** Basic keyId:keySecret is accepted unless false. */
  allowBasic?: boolean;
}

const unauthenticated = (message: string) => new AreaError(401, message);

/** Authenticates the key of a request; throws 401 (or 403 for a key of another project). */
async function authenticateOAuth(ctx: SandboxContext, request: FastifyRequest, opts: OAuthAuthOptions = {}): Promise<SandboxAuth> {
  const header = authorizationOf(request);
  if (!header) throw unauthenticated('Request is missing required authentication credential (Authorization header)');

  let auth: SandboxAuth;
  if (header.scheme === 'bearer') {
    const check = await verifyToken(ctx.tokenSecret, header.credentials);
    if (!check.ok) {
      throw unauthenticated(
        check.reason === 'expired'
          ? 'Request had invalid authentication credentials: access token expired'
          : 'Request had invalid authentication credentials: access token invalid',
      );
    }
    const account = ctx.accounts.byKey(check.keyId);
    if (!account || account.projectId !== check.projectId) throw unauthenticated('Request had invalid authentication credentials: unknown key');
    auth = { scheme: 'bearer', account };
  } else if (header.scheme === 'basic' && opts.allowBasic !== false) {
    auth = { scheme: 'basic', account: basicAccount(ctx, header.credentials) };
  } else {
    throw unauthenticated(`Request had invalid authentication credentials: unsupported scheme "${header.scheme}"`);
  }

  if (opts.projectParam) {
    const projectId = (request.params as Record<string, string | undefined>)[opts.projectParam];
    if (projectId !== undefined && projectId !== auth.account.projectId) {
      const use = ctx.projectAccess.use(auth.account.projectId, projectId);
      if (use === 'not-yet-usable') {
        // Spec E: a new subproject is usable with its parent's key only some time after creation (up to 30 s).
        throw new AreaError(403, `Permission denied: subproject ${projectId} is not yet usable with its parent project's key`);
      }
      if (use !== 'usable') throw new AreaError(403, `Permission denied: key not associated with the project ${projectId}`);
    }
  }
  requestState(request).auth = auth;
  return auth;
}

function basicAccount(ctx: SandboxContext, credentials: string): SandboxAccount {
  const basic = decodeBasic(credentials);
  const account = basic && ctx.accounts.byKey(basic.user);
  if (!basic || !account || !timingSafeEqualString(account.keySecret, basic.password)) {
    throw unauthenticated('Request had invalid authentication credentials: wrong key ID or key secret');
  }
  return account;
}

/** preValidation hook form of authenticateOAuth. */
export function oauthAuth(ctx: SandboxContext, opts: OAuthAuthOptions = {}) {
  return async (request: FastifyRequest): Promise<void> => {
    await authenticateOAuth(ctx, request, opts);
  };
}
