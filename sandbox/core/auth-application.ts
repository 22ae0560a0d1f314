// Verifier for the application-signed areas (verification, voice): `Application key:signature`
// over the raw body (wire-notes), or prototyping-only `Basic base64(appKey:appSecret)`.
import type { FastifyRequest } from 'fastify';
import { verifyApplicationRequest, type ApplicationVerifyFailure } from '../../common/signing.js';
import { stripAreaPrefix } from './areas.js';
import { authorizationOf } from './authorization-header.js';
import type { SandboxContext } from './context.js';
import { AreaError } from './errors.js';
import { rawBodyOf, requestState, type SandboxAuth } from './request-state.js';

export interface ApplicationAuthOptions {
  /** Largest accepted |now - x-timestamp|; default 15 minutes. */
  maxSkewMs?: number;
  /** Basic appKey:appSecret is accepted unless false (the dashboard's minimum level). */
  allowBasic?: boolean;
  now?: () => number;
}

const FAILURES: Record<ApplicationVerifyFailure, { code: number; message: string }> = {
  missing_authorization: { code: 40100, message: 'Missing Authorization header' },
  malformed_authorization: { code: 40100, message: 'Invalid Authorization header' },
  unknown_key: { code: 40100, message: 'Invalid Authorization header: unknown application key' },
  missing_timestamp: { code: 40101, message: 'Missing x-timestamp header' },
  stale_timestamp: { code: 40101, message: 'Invalid x-timestamp header: not a recent ISO-8601 time' },
  content_md5_mismatch: { code: 40102, message: 'Invalid signature: Content-MD5 does not match the body' },
  bad_signature: { code: 40102, message: 'Invalid signature' },
};

/**
 * Verifies the request; throws a 401 AreaError with the voice code otherwise. The signed path may
 * be the full sandbox path or the path without the area's mount prefix (what the real platform sees),
 * since a client can build either from a base URL.
 */
function authenticateApplication(ctx: SandboxContext, request: FastifyRequest, opts: ApplicationAuthOptions = {}): SandboxAuth {
  const header = authorizationOf(request);
  if (header?.scheme === 'basic' && opts.allowBasic === false) {
    throw new AreaError(401, 'Basic authentication is not allowed here; sign the request', { code: 40100 });
  }
  const state = requestState(request);
  const path = request.url.split('?')[0] ?? request.url;
  const verify = (p: string) =>
    verifyApplicationRequest({
      headers: request.headers,
      method: request.method,
      path: p,
      rawBody: rawBodyOf(request),
      secretForKey: (key) => ctx.accounts.byApplicationKey(key)?.appSecret,
      ...(opts.maxSkewMs !== undefined ? { maxSkewMs: opts.maxSkewMs } : {}),
      ...(opts.now ? { now: opts.now() } : {}),
    });
  let result = verify(path);
  const stripped = stripAreaPrefix(path, state.area);
  if (!result.ok && result.reason === 'bad_signature' && header?.scheme === 'application' && stripped !== path) {
    result = verify(stripped);
  }
  if (!result.ok) {
    const f = FAILURES[result.reason];
    throw new AreaError(401, f.message, { code: f.code });
  }
  const account = ctx.accounts.byApplicationKey(result.appKey)!;
  const auth: SandboxAuth = { scheme: 'application', account };
  state.auth = auth;
  return auth;
}

/** preValidation hook form of authenticateApplication. */
export function applicationAuth(ctx: SandboxContext, opts: ApplicationAuthOptions = {}) {
  return async (request: FastifyRequest): Promise<void> => {
    authenticateApplication(ctx, request, opts);
  };
}
