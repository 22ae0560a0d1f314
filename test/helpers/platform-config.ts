// A platform config for tests whose every area points at one base URL (a local stub), the clients over it,
// and a scripted stub platform: the token service plus one answer function for every other request.
import type { IncomingHttpHeaders } from 'node:http';
import type { TestContext } from 'node:test';
import type { PlatformConfig, PlatformCredentials, PlatformUrls } from '../../common/config.js';
import { verifyApplicationRequest, type ApplicationVerifyResult } from '../../common/signing.js';
import { OAuthTokenRegistry } from '../../platform/auth/oauth.js';
import { createPlatformClients, type PlatformClients } from '../../platform/index.js';
import { listenStub, sendJson, type StubRequest } from './stub-server.js';

/** Credentials a stub takes as they come (appSecret is base64 of "secret"). */
const STUB_CREDENTIALS: PlatformCredentials = { projectId: 'proj-1', keyId: 'k', keySecret: 's', appKey: 'a', appSecret: 'c2VjcmV0', mmsApiKey: 'm' };

export interface OneUrlOptions {
  /** Areas at another URL than `base` (e.g. a path prefix the test asserts), or a function of `base` giving them. */
  urls?: Partial<PlatformUrls> | ((base: string) => Partial<PlatformUrls>);
  credentials?: Partial<PlatformCredentials>;
  requestTimeoutMs?: number;
}

/** Every area at `base` (the token service at `${base}/auth`, every region at `base`), sandbox mode, 2 s timeout. */
export function oneUrlPlatformConfig(base: string, opts: OneUrlOptions = {}): PlatformConfig {
  const regional = { us: base, eu: base, br: base };
  return {
    mode: 'sandbox',
    requestTimeoutMs: opts.requestTimeoutMs ?? 2000,
    urls: {
      auth: `${base}/auth`,
      subprojects: base,
      verification: base,
      voice: base,
      voiceConfig: base,
      mms: base,
      senderid: base,
      provisioning: base,
      conversation: regional,
      template: regional,
      batch: regional,
      ...(typeof opts.urls === 'function' ? opts.urls(base) : opts.urls),
    },
    credentials: { ...STUB_CREDENTIALS, ...opts.credentials },
  };
}

/** The platform clients over oneUrlPlatformConfig, with a token registry of their own. */
export function oneUrlPlatformClients(base: string, opts: OneUrlOptions = {}): PlatformClients {
  return createPlatformClients(oneUrlPlatformConfig(base, opts), { tokenRegistry: new OAuthTokenRegistry() });
}

/** A request the scripted platform took (the token service's are not kept). */
export interface Seen {
  method: string;
  path: string;
  query: Record<string, string>;
  authorization: string | undefined;
  /** The JSON body, undefined when there was none. */
  body: unknown;
}

/** What the scripted platform answers: `status` (200), `body` as JSON or `raw` bytes, extra `headers`. */
export interface Answer {
  status?: number;
  body?: unknown;
  raw?: Buffer;
  headers?: Record<string, string>;
}

/**
 * A stub platform at one URL: the token service at /auth/oauth2/token (a new token per fetch: tok-1, tok-2,
 * ...), every other request recorded in `seen` and answered by `answer` (200 `{}` by default). `clients`
 * are the platform clients over it (`opts` as oneUrlPlatformConfig's).
 */
export async function scriptedPlatform(t: TestContext, answer: (r: Seen) => Answer = () => ({ body: {} }), opts: OneUrlOptions = {}) {
  const seen: Seen[] = [];
  let tokens = 0;
  const base = await listenStub(t, (req, res) => {
    const url = new URL(req.url!, 'http://stub');
    let a: Answer;
    if (url.pathname === '/auth/oauth2/token') {
      tokens += 1;
      a = { body: { access_token: `tok-${tokens}`, expires_in: 3600 } };
    } else {
      const r: Seen = {
        method: req.method!,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        authorization: req.headers.authorization,
        body: req.text === '' ? undefined : (JSON.parse(req.text) as unknown),
      };
      seen.push(r);
      a = answer(r);
    }
    res.writeHead(a.status ?? 200, { 'content-type': 'application/json', ...a.headers });
    res.end(a.raw ?? (a.body === undefined ? '' : JSON.stringify(a.body)));
  });
  return { base, seen, tokenFetches: () => tokens, clients: oneUrlPlatformClients(base, opts) };
}

/** The application signature check (key `appKey`, base64 secret `appSecret`) over a request as the stub took it. */
export function applicationSignature(req: StubRequest, appKey: string, appSecret: string): ApplicationVerifyResult {
  return verifyApplicationRequest({
    headers: req.headers,
    method: req.method!,
    path: req.url!,
    rawBody: req.body,
    secretForKey: (key) => (key === appKey ? appSecret : undefined),
  });
}

/** scriptedPlatform for one area's client, the area at `${base}${path}`, in project "proj 1" (a name to escape). */
export async function scriptedClient<K extends 'senderid' | 'provisioning'>(t: TestContext, area: K, path: string, answer?: (r: Seen) => Answer) {
  const { clients, seen, tokenFetches } = await scriptedPlatform(t, answer, {
    urls: (base) => ({ [area]: `${base}${path}` }),
    credentials: { projectId: 'proj 1' },
  });
  return { client: clients[area], seen, tokenFetches };
}

/** The application key and secret (base64) a signedStub checks requests against. */
export const APP_KEY = 'app-key-1';
export const APP_SECRET = Buffer.from('a-test-application-secret-32byte').toString('base64');

/** A request a signedStub took: the raw target and bytes, the JSON body (undefined if none) and the signature check. */
export interface SignedSeen {
  method: string;
  /** Raw request target, as received (still percent-encoded). */
  url: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  body: unknown;
  auth: ApplicationVerifyResult;
}

/**
 * A stub of an application-signed platform interface: checks each request's signature (APP_KEY, APP_SECRET)
 * over the bytes received and records it; answers 401 when it does not verify, else `answer`'s status,
 * JSON body and headers (content type `contentType`).
 */
export async function signedStub(
  t: TestContext,
  answer: (r: SignedSeen) => { status: number; body?: unknown; headers?: Record<string, string> },
  contentType = 'application/json',
) {
  const seen: SignedSeen[] = [];
  const base = await listenStub(t, (req, res) => {
    const auth = applicationSignature(req, APP_KEY, APP_SECRET);
    const s: SignedSeen = {
      method: req.method!,
      url: req.url!,
      headers: req.headers,
      raw: req.body,
      body: req.body.length ? JSON.parse(req.text) : undefined,
      auth,
    };
    seen.push(s);
    const a = auth.ok ? answer(s) : { status: 401, body: { errorCode: 40102, message: 'Invalid signature' } };
    sendJson(res, a.status, a.body, { 'content-type': contentType, ...a.headers });
  });
  return { base, seen };
}
