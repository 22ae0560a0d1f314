// OAuth 2.0 client credentials: one cached bearer token per key, shared by every client in the process,
// refreshed shortly before it expires, with concurrent callers sharing a single refresh.
import { decodeJwt } from 'jose';
import { PlatformUnavailableError } from '../errors.js';
import type { PlatformHttp } from '../http.js';
import { BasicAuth } from './basic.js';
import { getHeader, setHeader, type AuthRequest, type AuthStrategy } from './strategy.js';

export interface OAuthTokenSourceOptions {
  http: PlatformHttp;
  /** `{urls.auth}/oauth2/token` */
  tokenUrl: string;
  keyId: string;
  keySecret: string;
  /** Refresh this long before expiry (default 60 s; at most half the token's lifetime). */
  refreshMarginMs?: number;
  /** Clock for tests. */
  now?: () => number;
}

interface CachedToken {
  accessToken: string;
  /** When to stop using it (expiry minus the refresh margin). */
  refreshAt: number;
}

const DEFAULT_LIFETIME_MS = 3600_000; // the platform's documented lifetime, when the answer does not say

export class OAuthTokenSource {
  readonly #opts: OAuthTokenSourceOptions;
  readonly #basic: BasicAuth;
  readonly #now: () => number;
  #cached: CachedToken | undefined;
  #inFlight: Promise<CachedToken> | undefined;

  constructor(opts: OAuthTokenSourceOptions) {
    this.#opts = opts;
    this.#basic = new BasicAuth(opts.keyId, opts.keySecret);
    this.#now = opts.now ?? Date.now;
  }

  /** A valid access token, fetching a new one only when none is cached or it is about to expire. */
  async getToken(): Promise<string> {
    const cached = this.#cached;
    if (cached && this.#now() < cached.refreshAt) return cached.accessToken;
    this.#inFlight ??= this.#fetchToken().finally(() => {
      this.#inFlight = undefined;
    });
    return (await this.#inFlight).accessToken;
  }

  /**
   * Drops the cached token (after a 401). Given the token that was rejected, it leaves a newer one
   * alone, so one stale request cannot discard a token another caller just fetched.
   */
  invalidate(rejectedToken?: string): void {
    if (rejectedToken === undefined || this.#cached?.accessToken === rejectedToken) this.#cached = undefined;
  }

  async #fetchToken(): Promise<CachedToken> {
    const requestedAt = this.#now();
    const res = await this.#opts.http.request<unknown>({
      area: 'auth',
      method: 'POST',
      url: this.#opts.tokenUrl,
      form: { grant_type: 'client_credentials' },
      auth: this.#basic,
    });
    const body = res.body as { access_token?: unknown; expires_in?: unknown } | undefined;
    const accessToken = body?.access_token;
    if (typeof accessToken !== 'string' || accessToken === '') {
      throw new PlatformUnavailableError({
        area: 'auth',
        httpStatus: res.status,
        code: 'invalid_token_response',
        message: 'auth: token response without access_token',
      });
    }
    const lifetimeMs = tokenLifetimeMs(accessToken, body?.expires_in, requestedAt);
    // Measured from the request time, so a slow answer errs on the early side.
    const margin = Math.min(this.#opts.refreshMarginMs ?? 60_000, lifetimeMs / 2);
    const token = { accessToken, refreshAt: requestedAt + lifetimeMs - margin };
    this.#cached = token;
    return token;
  }
}

/** expires_in and the JWT's exp, whichever ends sooner; the documented hour when neither is there. */
function tokenLifetimeMs(accessToken: string, expiresIn: unknown, now: number): number {
  const candidates: number[] = [];
  const seconds = typeof expiresIn === 'string' ? Number(expiresIn) : expiresIn;
  if (typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0) candidates.push(seconds * 1000);
  try {
    const { exp } = decodeJwt(accessToken);
    if (typeof exp === 'number') candidates.push(Math.max(0, exp * 1000 - now));
  } catch {
    // Opaque (non-JWT) token: rely on expires_in.
  }
  return candidates.length ? Math.min(...candidates) : DEFAULT_LIFETIME_MS;
}

/** Bearer strategy over a shared token source; after a 401 it drops the rejected token and asks for one retry. */
export class OAuthBearerAuth implements AuthStrategy {
  constructor(readonly tokens: OAuthTokenSource) {}

  async apply(req: AuthRequest): Promise<void> {
    setHeader(req.headers, 'authorization', `Bearer ${await this.tokens.getToken()}`);
  }

  async onUnauthorized(req: AuthRequest): Promise<boolean> {
    const sent = getHeader(req.headers, 'authorization');
    this.tokens.invalidate(sent?.startsWith('Bearer ') ? sent.slice('Bearer '.length) : undefined);
    return true;
  }
}

/**
 * One token source per (token URL, key): every client created in a process shares it, so a worker
 * holds one token per key instead of one per client.
 */
export class OAuthTokenRegistry {
  readonly #sources = new Map<string, OAuthTokenSource>();

  get(opts: OAuthTokenSourceOptions): OAuthTokenSource {
    // The secret is part of the key so that a rotated secret gets a fresh source.
    const key = JSON.stringify([opts.tokenUrl, opts.keyId, opts.keySecret]);
    let source = this.#sources.get(key);
    if (!source) {
      source = new OAuthTokenSource(opts);
      this.#sources.set(key, source);
    }
    return source;
  }
}

/** The process-wide registry used by createPlatformClients unless one is passed in. */
export const sharedTokenRegistry = new OAuthTokenRegistry();

export function oauthTokenUrl(authBaseUrl: string): string {
  return `${authBaseUrl.replace(/\/+$/, '')}/oauth2/token`;
}
