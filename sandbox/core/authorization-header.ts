// Parsing of the Authorization header, shared by every verifier.
import type { FastifyRequest } from 'fastify';

export interface AuthorizationHeader {
  /** Lower-cased scheme: basic, bearer, application, ... */
  scheme: string;
  credentials: string;
}

export function authorizationOf(request: FastifyRequest): AuthorizationHeader | undefined {
  const raw = request.headers.authorization?.trim();
  if (!raw) return undefined;
  const m = /^(\S+)\s+(\S+)$/.exec(raw);
  if (!m) return { scheme: raw.toLowerCase(), credentials: '' };
  return { scheme: m[1]!.toLowerCase(), credentials: m[2]! };
}

/** `user:password` from Basic credentials; undefined when not decodable into that form. */
export function decodeBasic(credentials: string): { user: string; password: string } | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(credentials)) return undefined;
  const decoded = Buffer.from(credentials, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
