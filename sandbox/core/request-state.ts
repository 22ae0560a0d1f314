// Per-request sandbox state, kept in a WeakMap rather than a FastifyRequest augmentation so it
// cannot clash with declarations made by the API's own Fastify app in the same type-check.
import type { FastifyRequest } from 'fastify';
import type { SandboxAccount } from './accounts.js';
import type { AreaMount } from './area-mount.js';

export interface SandboxAuth {
  scheme: 'bearer' | 'basic' | 'application' | 'api-key';
  account: SandboxAccount;
}

export interface SandboxRequestState {
  area: AreaMount | undefined;
  startedAt: number;
  /** Exact bytes received, for signature and Content-MD5 checks. */
  rawBody: Buffer | undefined;
  /** Set when the body claimed to be JSON (or a form) and could not be parsed. */
  bodyParseError: string | undefined;
  auth: SandboxAuth | undefined;
  /** Set when the answer came from an injected fault. */
  faulted: boolean;
}

const states = new WeakMap<FastifyRequest, SandboxRequestState>();

export function requestState(request: FastifyRequest): SandboxRequestState {
  let s = states.get(request);
  if (!s) {
    s = { area: undefined, startedAt: Date.now(), rawBody: undefined, bodyParseError: undefined, auth: undefined, faulted: false };
    states.set(request, s);
  }
  return s;
}

/** The raw body bytes ('' when there was none). */
export function rawBodyOf(request: FastifyRequest): Buffer {
  return requestState(request).rawBody ?? Buffer.alloc(0);
}

/** The authenticated account; throws when no verifier ran first (a wiring bug, not a client error). */
export function authOf(request: FastifyRequest): SandboxAuth {
  const a = requestState(request).auth;
  if (!a) throw new Error('sandbox: route has no authentication verifier');
  return a;
}
