// The auth area: POST {auth}/oauth2/token, client credentials with HTTP Basic keyId:keySecret.
import type { FastifyInstance } from 'fastify';
import { timingSafeEqualString } from '../../common/signing.js';
import { authorizationOf, decodeBasic } from './authorization-header.js';
import { assertBodyParsed } from './body-parsers.js';
import type { SandboxContext } from './context.js';
import { AreaError } from './errors.js';
import { issueToken } from './tokens.js';

export async function tokenEndpoint(app: FastifyInstance, ctx: SandboxContext): Promise<void> {
  app.post('/oauth2/token', async (request, reply) => {
    const header = authorizationOf(request);
    if (!header || header.scheme !== 'basic') {
      throw new AreaError(401, 'Missing client credentials: use HTTP Basic with key ID and key secret');
    }
    const basic = decodeBasic(header.credentials);
    const account = basic && ctx.accounts.byKey(basic.user);
    if (!basic || !account || !timingSafeEqualString(account.keySecret, basic.password)) {
      throw new AreaError(401, 'Invalid client credentials');
    }
    assertBodyParsed(request);
    const body = request.body as Record<string, unknown> | undefined;
    const grantType = body && typeof body === 'object' ? body.grant_type : undefined;
    if (grantType !== 'client_credentials') {
      throw new AreaError(400, "Invalid request: field 'grant_type' must be client_credentials", {
        details: [{ field: 'grant_type', description: 'must be client_credentials' }],
      });
    }
    const token = await issueToken(ctx.tokenSecret, account, ctx.options.tokenLifetimeSeconds);
    reply.header('cache-control', 'no-store');
    return { access_token: token.accessToken, expires_in: token.expiresIn, token_type: 'bearer' };
  });
}
