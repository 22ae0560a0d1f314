// Wire-format crypto shared by the platform clients, the sandbox and the API's callback checks.
// Pure functions over node:crypto; every verifier hashes the raw bytes and compares in constant time.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { matchSecret } from './secret-rotation.js';

type Bytes = Buffer | string;
type HeaderBag = Record<string, string | string[] | undefined>;

function toBuffer(body: Bytes): Buffer {
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
}

/** Case-insensitive header read; Node lower-cases incoming names, but callers may pass any case. */
function headerValue(headers: HeaderBag, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

function stripQuery(path: string): string {
  const q = path.indexOf('?');
  return q === -1 ? path : path.slice(0, q);
}

/** Constant-time string comparison; false (no throw) when the lengths differ. */
export function timingSafeEqualString(a: string, b: string): boolean {
  const ab = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  if (ab.length !== bb.length) return false;
  return timingSafeEqual(ab, bb);
}

// ---------------------------------------------------------------------------------------------
// Application signed request (Verification, Voice; outbound requests and inbound callbacks)
// ---------------------------------------------------------------------------------------------

/** base64(MD5(bytes)); '' for an empty body, as the platform expects. */
export function contentMd5(body: Bytes): string {
  const bytes = toBuffer(body);
  if (bytes.length === 0) return '';
  return createHash('md5').update(bytes).digest('base64');
}

export function applicationStringToSign(p: { method: string; contentMd5: string; contentType: string; timestamp: string; path: string }): string {
  return [p.method.toUpperCase(), p.contentMd5, p.contentType, `x-timestamp:${p.timestamp}`, p.path].join('\n');
}

/** base64(HMAC-SHA256) keyed with the base64-DECODED application secret. */
export function applicationSignature(secretBase64: string, stringToSign: string): string {
  return createHmac('sha256', Buffer.from(secretBase64, 'base64')).update(stringToSign, 'utf8').digest('base64');
}

export interface SignApplicationRequestParams {
  appKey: string;
  appSecret: string;
  method: string;
  /** Request path; any query string is dropped before signing. */
  path: string;
  /** Sent (and signed) only when there is a body. */
  contentType: string;
  body: string | Buffer;
  /** ISO-8601 UTC; defaults to now. */
  timestamp?: string;
}

/** Headers to add to a request whose exact body bytes are `p.body`. */
export function signApplicationRequest(p: SignApplicationRequestParams): Record<string, string> {
  const bytes = toBuffer(p.body);
  const hasBody = bytes.length > 0;
  const timestamp = p.timestamp ?? new Date().toISOString();
  const md5 = contentMd5(bytes);
  // Sign the Content-Type that is actually sent: none without a body.
  const contentType = hasBody ? p.contentType : '';
  const signature = applicationSignature(
    p.appSecret,
    applicationStringToSign({ method: p.method, contentMd5: md5, contentType, timestamp, path: stripQuery(p.path) }),
  );
  const headers: Record<string, string> = {
    Authorization: `Application ${p.appKey}:${signature}`,
    'x-timestamp': timestamp,
    'Content-MD5': md5,
  };
  if (hasBody) headers['Content-Type'] = contentType;
  return headers;
}

export type ApplicationVerifyFailure =
  'missing_authorization' | 'malformed_authorization' | 'unknown_key' | 'missing_timestamp' | 'stale_timestamp' | 'content_md5_mismatch' | 'bad_signature';

export type ApplicationVerifyResult = { ok: true; appKey: string } | { ok: false; reason: ApplicationVerifyFailure };

export interface VerifyApplicationRequestParams {
  headers: HeaderBag;
  method: string;
  /** Request path (a query string is ignored). */
  path: string;
  rawBody: Buffer | string;
  secretForKey: (key: string) => string | undefined;
  /** Allowed clock difference either way; default 15 minutes. */
  maxSkewMs?: number;
  now?: number;
}

/** A platform callback POSTed to relayflow, checked against the one application it was sent for. */
export function verifyApplicationCallback(
  req: { headers: HeaderBag; url: string; rawBody?: Buffer },
  appKey: string,
  appSecret: string,
): ApplicationVerifyResult {
  return verifyApplicationRequest({
    headers: req.headers,
    method: 'POST',
    path: req.url.split('?')[0]!,
    rawBody: req.rawBody ?? Buffer.alloc(0),
    secretForKey: (key) => (key === appKey ? appSecret : undefined),
  });
}

const DEFAULT_APPLICATION_SKEW_MS = 15 * 60 * 1000;

/** Verifies `Application key:signature` (or prototyping-only `Basic base64(key:secret)`) over the raw bytes. */
export function verifyApplicationRequest(p: VerifyApplicationRequestParams): ApplicationVerifyResult {
  const authorization = headerValue(p.headers, 'authorization')?.trim();
  if (!authorization) return { ok: false, reason: 'missing_authorization' };
  const match = /^(\S+)\s+(\S+)$/.exec(authorization);
  if (!match) return { ok: false, reason: 'malformed_authorization' };
  const scheme = match[1]!.toLowerCase();
  const credentials = match[2]!;

  if (scheme === 'basic') return verifyBasic(credentials, p.secretForKey);
  if (scheme !== 'application') return { ok: false, reason: 'malformed_authorization' };

  const colon = credentials.indexOf(':');
  if (colon <= 0 || colon === credentials.length - 1) return { ok: false, reason: 'malformed_authorization' };
  const appKey = credentials.slice(0, colon);
  const signature = credentials.slice(colon + 1);

  const secret = p.secretForKey(appKey);
  if (secret === undefined) return { ok: false, reason: 'unknown_key' };

  const timestamp = headerValue(p.headers, 'x-timestamp');
  if (!timestamp) return { ok: false, reason: 'missing_timestamp' };
  const sentAt = Date.parse(timestamp);
  const now = p.now ?? Date.now();
  // An unparseable timestamp cannot be shown to be fresh, so it counts as stale.
  if (Number.isNaN(sentAt) || Math.abs(now - sentAt) > (p.maxSkewMs ?? DEFAULT_APPLICATION_SKEW_MS)) {
    return { ok: false, reason: 'stale_timestamp' };
  }

  // Sign over the hash of the bytes received, not over the header's claim.
  const md5 = contentMd5(p.rawBody);
  const claimedMd5 = headerValue(p.headers, 'content-md5');
  if (claimedMd5 !== undefined && !timingSafeEqualString(claimedMd5, md5)) {
    return { ok: false, reason: 'content_md5_mismatch' };
  }

  const expected = applicationSignature(
    secret,
    applicationStringToSign({
      method: p.method,
      contentMd5: md5,
      contentType: headerValue(p.headers, 'content-type') ?? '',
      timestamp,
      path: stripQuery(p.path),
    }),
  );
  if (!timingSafeEqualString(expected, signature)) return { ok: false, reason: 'bad_signature' };
  return { ok: true, appKey };
}

function verifyBasic(encoded: string, secretForKey: (key: string) => string | undefined): ApplicationVerifyResult {
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return { ok: false, reason: 'malformed_authorization' };
  const appKey = decoded.slice(0, colon);
  const secret = secretForKey(appKey);
  if (secret === undefined) return { ok: false, reason: 'unknown_key' };
  if (!timingSafeEqualString(secret, decoded.slice(colon + 1))) return { ok: false, reason: 'bad_signature' };
  return { ok: true, appKey };
}

// ---------------------------------------------------------------------------------------------
// Conversation webhook signature
// ---------------------------------------------------------------------------------------------

/** base64(HMAC-SHA256(key = secret UTF-8, data = `<raw body>.<nonce>.<timestamp>`)). */
export function conversationWebhookSignature(secret: string, rawBody: string | Buffer, nonce: string, timestamp: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(toBuffer(rawBody)).update(`.${nonce}.${timestamp}`, 'utf8').digest('base64');
}

type ConversationWebhookVerifyFailure =
  'missing_signature' | 'missing_nonce' | 'missing_timestamp' | 'stale_timestamp' | 'unsupported_algorithm' | 'bad_signature' | 'replayed_nonce';

export type ConversationWebhookVerifyResult = { ok: true } | { ok: false; reason: ConversationWebhookVerifyFailure };

export interface VerifyConversationWebhookParams {
  headers: HeaderBag;
  rawBody: string | Buffer;
  secret: string;
  /** Allowed clock difference either way; default 300 s. */
  maxSkewSeconds?: number;
  /** Records the nonce and answers whether it was seen before; asked only once the signature is good. */
  seenNonce?: (nonce: string) => boolean;
  /** Milliseconds since the epoch. */
  now?: number;
}

export const CONVERSATION_WEBHOOK_HEADERS = {
  signature: 'x-platform-webhook-signature',
  nonce: 'x-platform-webhook-signature-nonce',
  timestamp: 'x-platform-webhook-signature-timestamp',
  algorithm: 'x-platform-webhook-signature-algorithm',
} as const;

const DEFAULT_WEBHOOK_SKEW_SECONDS = 300;

export function verifyConversationWebhook(p: VerifyConversationWebhookParams): ConversationWebhookVerifyResult {
  const { secret, ...rest } = p;
  const r = verifyConversationWebhookWithSecrets({ ...rest, secrets: [secret] });
  return r.ok ? { ok: true } : { ok: false, reason: r.reason === 'no_secret' ? 'bad_signature' : r.reason };
}

/** `secretIndex`: which of the accepted secrets matched (0 = the current one; > 0 = a previous one still accepted). */
type SecretMatch = { ok: true; secretIndex: number };

export type RotatingConversationWebhookVerifyResult = SecretMatch | { ok: false; reason: ConversationWebhookVerifyFailure | 'no_secret' };

/**
 * verifyConversationWebhook against every secret still accepted, current first (common/secret-rotation.ts):
 * a delivery signed with the previous secret during a rotation passes, and says so.
 */
export function verifyConversationWebhookWithSecrets(
  p: Omit<VerifyConversationWebhookParams, 'secret'> & { secrets: readonly string[] },
): RotatingConversationWebhookVerifyResult {
  const secrets = p.secrets.filter((s) => s !== '');
  if (secrets.length === 0) return { ok: false, reason: 'no_secret' };
  const h = CONVERSATION_WEBHOOK_HEADERS;
  const signature = headerValue(p.headers, h.signature);
  if (!signature) return { ok: false, reason: 'missing_signature' };
  const nonce = headerValue(p.headers, h.nonce);
  if (!nonce) return { ok: false, reason: 'missing_nonce' };
  const timestamp = headerValue(p.headers, h.timestamp);
  if (!timestamp) return { ok: false, reason: 'missing_timestamp' };
  const algorithm = headerValue(p.headers, h.algorithm);
  if (algorithm !== undefined && algorithm.toLowerCase() !== 'hmacsha256') return { ok: false, reason: 'unsupported_algorithm' };

  const nowSeconds = (p.now ?? Date.now()) / 1000;
  const sentAt = /^\d+$/.test(timestamp) ? Number(timestamp) : NaN;
  if (Number.isNaN(sentAt) || Math.abs(nowSeconds - sentAt) > (p.maxSkewSeconds ?? DEFAULT_WEBHOOK_SKEW_SECONDS)) {
    return { ok: false, reason: 'stale_timestamp' };
  }

  const body = toBuffer(p.rawBody);
  const matched = matchSecret(secrets, (secret) => timingSafeEqualString(conversationWebhookSignature(secret, body, nonce, timestamp), signature));
  if (matched === -1) return { ok: false, reason: 'bad_signature' };
  // Only authentic requests may enter the nonce store, so forgeries cannot poison it.
  if (p.seenNonce?.(nonce)) return { ok: false, reason: 'replayed_nonce' };
  return { ok: true, secretIndex: matched };
}

// ---------------------------------------------------------------------------------------------
// Sender ID registration callbacks (X-Service-Signature)
// ---------------------------------------------------------------------------------------------

export function hmacSha1Hex(secret: string, rawBody: string | Buffer): string {
  return createHmac('sha1', Buffer.from(secret, 'utf8')).update(toBuffer(rawBody)).digest('hex');
}

/** Hex digests are compared case-insensitively (surrounding whitespace ignored), in constant time. */
export function verifyHmacSha1Hex(secret: string, rawBody: string | Buffer, signatureHex: string): boolean {
  return timingSafeEqualString(hmacSha1Hex(secret, rawBody), signatureHex.trim().toLowerCase());
}

/** The sender ID callback's signature header (spec part F; Node lower-cases incoming names). */
export const SENDER_ID_SIGNATURE_HEADER = 'x-service-signature';

/**
 * Headers for a sender ID callback whose exact body bytes are `rawBody` (docs/senderid-wire.md:
 * lower-case hex HMAC-SHA1 of the raw bytes, keyed with the project's hmacSecret as UTF-8).
 * Used by the sandbox's sender and by tests that post signed callbacks.
 */
export function signSenderIdCallback(hmacSecret: string, rawBody: string | Buffer): Record<string, string> {
  return { [SENDER_ID_SIGNATURE_HEADER]: hmacSha1Hex(hmacSecret, rawBody) };
}

type SenderIdCallbackVerifyFailure = 'no_secret' | 'missing_signature' | 'malformed_signature' | 'bad_signature';

export type SenderIdCallbackVerifyResult = SecretMatch | { ok: false; reason: SenderIdCallbackVerifyFailure };

export interface VerifySenderIdCallbackParams {
  headers: HeaderBag;
  rawBody: string | Buffer;
  /**
   * Every secret still accepted, current first, then the previous ones: a callback signed with the old
   * secret just before a rotation (or a retry of one) stays valid until the old secret is dropped.
   * Empty strings are ignored.
   */
  secrets: readonly string[];
}

const SHA1_HEX = /^[0-9a-f]{40}$/;

/**
 * Checks `X-Service-Signature` over the raw bytes against each accepted secret. Every secret is tried
 * (no early exit), each comparison in constant time, so the answer's timing does not say which matched.
 */
export function verifySenderIdCallback(p: VerifySenderIdCallbackParams): SenderIdCallbackVerifyResult {
  const secrets = p.secrets.filter((s) => s !== '');
  if (secrets.length === 0) return { ok: false, reason: 'no_secret' };
  const sent = headerValue(p.headers, SENDER_ID_SIGNATURE_HEADER)?.trim().toLowerCase();
  if (!sent) return { ok: false, reason: 'missing_signature' };
  if (!SHA1_HEX.test(sent)) return { ok: false, reason: 'malformed_signature' };
  const body = toBuffer(p.rawBody);
  const matched = matchSecret(secrets, (secret) => timingSafeEqualString(hmacSha1Hex(secret, body), sent));
  return matched === -1 ? { ok: false, reason: 'bad_signature' } : { ok: true, secretIndex: matched };
}
