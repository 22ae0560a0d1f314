// Access tokens of the token endpoint: HS256 JWTs signed with the sandbox's own secret.
import { SignJWT, errors, jwtVerify } from 'jose';
import { ulid } from 'ulid';
import type { SandboxAccount } from './accounts.js';

const ISSUER = 'relayflow-sandbox';

export interface IssuedToken {
  accessToken: string;
  expiresIn: number;
}

export async function issueToken(secret: Uint8Array, account: SandboxAccount, lifetimeSeconds: number): Promise<IssuedToken> {
  const nowMs = Date.now();
  const now = Math.floor(nowMs / 1000);
  // Rounded up so a token lives at least `lifetimeSeconds` (exp has whole-second precision).
  const exp = Math.ceil(nowMs / 1000 + lifetimeSeconds);
  const accessToken = await new SignJWT({ project: account.projectId })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(account.keyId)
    .setIssuer(ISSUER)
    .setIssuedAt(now)
    .setExpirationTime(exp)
    .setJti(ulid())
    .sign(secret);
  return { accessToken, expiresIn: lifetimeSeconds };
}

export type TokenCheck = { ok: true; keyId: string; projectId: string } | { ok: false; reason: 'expired' | 'invalid' };

export async function verifyToken(secret: Uint8Array, token: string): Promise<TokenCheck> {
  try {
    const { payload } = await jwtVerify(token, secret, { algorithms: ['HS256'], issuer: ISSUER });
    if (typeof payload.sub !== 'string' || typeof payload.project !== 'string') return { ok: false, reason: 'invalid' };
    return { ok: true, keyId: payload.sub, projectId: payload.project };
  } catch (err) {
    return { ok: false, reason: err instanceof errors.JWTExpired ? 'expired' : 'invalid' };
  }
}
