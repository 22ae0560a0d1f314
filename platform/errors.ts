// Typed platform errors: one class per way a caller must react (fix the request, fix credentials,
// wait and retry, ...), so activities can map them to retryable / non-retryable failures.
import type { PlatformArea } from '../common/config.js';

/**
 * Which interface answered, which selects the error-body parser: a platform area, the token endpoint (auth), or
 * conversation's template and batch interfaces, whose error bodies differ from the conversation API's.
 */
export type PlatformInterface = PlatformArea | 'auth' | 'template' | 'batch';

export interface PlatformErrorInit {
  area: PlatformInterface;
  /** Undefined when no HTTP answer arrived (network error, timeout). */
  httpStatus?: number;
  /** The platform's errorCode / status name / E-code; our own code for transport failures. */
  code: string;
  message: string;
  details?: unknown;
  retryAfterMs?: number;
  cause?: unknown;
}

export class PlatformError extends Error {
  /** The class's own name (PlatformRateLimitError...): a failure's type where an activity reports it. */
  override name: string = this.constructor.name;
  readonly area: PlatformInterface;
  readonly httpStatus: number | undefined;
  readonly code: string;
  readonly details: unknown;
  readonly retryAfterMs: number | undefined;
  /** Unclassified answers are not retried: repeating an unexpected 4xx rarely helps. */
  readonly retryable: boolean = false;

  constructor(init: PlatformErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.area = init.area;
    this.httpStatus = init.httpStatus;
    this.code = init.code;
    this.details = init.details;
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** 400: the request is wrong; repeating it cannot succeed. */
export class PlatformValidationError extends PlatformError {}

/** 401/403: credentials wrong, or not allowed to use the resource. */
export class PlatformAuthError extends PlatformError {}

/**
 * 403 errorCode 40300 from Verification: the platform or the customer's verification callback refused
 * the verification (it is recorded as DENIED). Not a credentials problem, and repeating it will not help.
 */
export class PlatformDeniedError extends PlatformError {}

/**
 * 403 BILLING_CREDIT_LIMIT_BREACHED (conversation, spec D, since 19 February 2025): the project is blocked for credit
 * reasons. Not a credentials problem: the same request works once the project is topped up. `code` is always
 * BILLING_CREDIT_LIMIT_BREACHED, wherever the body put it (billingRefusalIn).
 */
export class PlatformBillingError extends PlatformError {}

export class PlatformNotFoundError extends PlatformError {}

export class PlatformConflictError extends PlatformError {}

/** 429 or MMS E113/E106: retry, after retryAfterMs when the platform said how long. */
export class PlatformRateLimitError extends PlatformError {
  override readonly retryable = true;
}

/** 5xx, network errors and timeouts: transient. */
export class PlatformUnavailableError extends PlatformError {
  override readonly retryable = true;
}

// ---------------------------------------------------------------------------------------------
// Error bodies, one parser per shape
// ---------------------------------------------------------------------------------------------

export interface ParsedErrorBody {
  code?: string;
  message?: string;
  details?: unknown;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);

/** Voice and Verification: `{errorCode, message, reference?}`. */
function parseVoiceErrorBody(body: unknown): ParsedErrorBody | undefined {
  if (!isObj(body) || body.errorCode === undefined) return undefined;
  return {
    code: str(body.errorCode),
    message: str(body.message),
    details: body.reference === undefined ? undefined : { reference: body.reference },
  };
}

/** Conversation family (conversation, templates, batch, subprojects): `{error: {code, message, status, details}}`. */
function parseConversationErrorBody(body: unknown): ParsedErrorBody | undefined {
  if (!isObj(body) || !isObj(body.error)) return undefined;
  const e = body.error;
  // `status` (e.g. PERMISSION_DENIED) says more than `code`, which only repeats the HTTP status.
  return { code: str(e.status) ?? str(e.code), message: str(e.message), details: e.details };
}

/** MMS: `{status: 'Failure', 'error-code', 'error-info'}`. */
function parseMmsErrorBody(body: unknown): ParsedErrorBody | undefined {
  if (!isObj(body) || body['error-code'] === undefined) return undefined;
  return { code: str(body['error-code']), message: str(body['error-info']) };
}

/** Provisioning: `{errorCode, message, resolution, additionalInformation?, validationErrors?}`. */
function parseProvisioningErrorBody(body: unknown): ParsedErrorBody | undefined {
  if (!isObj(body) || body.errorCode === undefined) return undefined;
  const details: Obj = {};
  for (const key of ['resolution', 'additionalInformation', 'validationErrors']) {
    if (body[key] !== undefined) details[key] = body[key];
  }
  return { code: str(body.errorCode), message: str(body.message), details: Object.keys(details).length ? details : undefined };
}

/** OAuth token endpoint (RFC 6749): `{error, error_description}`; also plain text. */
function parseGenericErrorBody(body: unknown): ParsedErrorBody | undefined {
  if (typeof body === 'string') return body.trim() ? { message: body.trim().slice(0, 500) } : undefined;
  if (!isObj(body)) return undefined;
  return { code: str(body.error) ?? str(body.code), message: str(body.error_description) ?? str(body.message) };
}

const PARSERS: Record<PlatformInterface, (body: unknown) => ParsedErrorBody | undefined> = {
  auth: parseGenericErrorBody,
  voice: parseVoiceErrorBody,
  verification: parseVoiceErrorBody,
  mms: parseMmsErrorBody,
  conversation: parseConversationErrorBody,
  template: parseConversationErrorBody,
  batch: parseConversationErrorBody,
  subprojects: parseConversationErrorBody,
  // Not specified; the platform's OAuth-fronted interfaces use the conversation shape.
  senderid: parseConversationErrorBody,
  provisioning: parseProvisioningErrorBody,
};

export function parseErrorBody(area: PlatformInterface, body: unknown): ParsedErrorBody {
  return PARSERS[area](body) ?? parseGenericErrorBody(body) ?? {};
}

// ---------------------------------------------------------------------------------------------
// Classification
// ---------------------------------------------------------------------------------------------

/** Retry-After as delta-seconds or HTTP-date, in ms (never negative); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const v = value.trim();
  if (v === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

const BILLING_CREDIT_LIMIT_BREACHED = 'BILLING_CREDIT_LIMIT_BREACHED';

/**
 * Whether an error body names the billing block. The spec names the code but not the field that carries it, so every
 * place the conversation envelope (or a gateway in front of it) puts a name is read: `error.status`, `error.code`,
 * `error.details[].reason | code | status`, and a top-level `code` or `status`. Only an exact code counts, never a message.
 */
function billingRefusalIn(body: unknown): boolean {
  const names = (o: unknown): unknown[] => (isObj(o) ? [o.status, o.code, o.reason] : []);
  const e = isObj(body) ? body.error : undefined;
  const details = isObj(e) && Array.isArray(e.details) ? e.details : [];
  return [...names(body), ...names(e), ...details.flatMap(names)].some((v) => v === BILLING_CREDIT_LIMIT_BREACHED);
}

const MMS_RATE_CODES = new Set(['E113', 'E106']);
const MMS_AUTH_CODES = new Set(['E104', 'E105', 'E112']);
const MMS_UNAVAILABLE_CODES = new Set(['E503']);
/** Voice / Verification: parameter validation, missing parameter, invalid JSON. */
const APPLICATION_VALIDATION_CODES = new Set(['40001', '40002', '40003']);
/** Verification: denied by the platform or by the customer's verification callback. */
const VERIFICATION_DENIED_CODE = '40300';

export interface ErrorResponse {
  area: PlatformInterface;
  status: number;
  /** Lower-case header names. */
  headers?: Record<string, string>;
  body: unknown;
  now?: number;
}

/** Builds the typed error for a failed answer (non-2xx, or an MMS `status: Failure` body). */
export function platformErrorFromResponse(res: ErrorResponse): PlatformError {
  const parsed = parseErrorBody(res.area, res.body);
  const code = parsed.code ?? `HTTP_${res.status}`;
  const init: PlatformErrorInit = {
    area: res.area,
    httpStatus: res.status,
    code,
    message: `${res.area} ${res.status} ${code}: ${parsed.message ?? 'request failed'}`,
    details: parsed.details,
    retryAfterMs: parseRetryAfter(res.headers?.['retry-after'], res.now),
  };

  // MMS reports some conditions by code whatever the HTTP status.
  if (res.area === 'mms') {
    if (MMS_RATE_CODES.has(code)) return new PlatformRateLimitError(init);
    if (MMS_AUTH_CODES.has(code)) return new PlatformAuthError(init);
    if (MMS_UNAVAILABLE_CODES.has(code)) return new PlatformUnavailableError(init);
    if (/^E\d+$/.test(code) && res.status < 500) return new PlatformValidationError(init);
  }

  // Voice and Verification say by errorCode what the HTTP status alone does not.
  if (res.area === 'verification' || res.area === 'voice') {
    if (res.area === 'verification' && res.status === 403 && code === VERIFICATION_DENIED_CODE) return new PlatformDeniedError(init);
    if (APPLICATION_VALIDATION_CODES.has(code) && res.status >= 400 && res.status < 500) return new PlatformValidationError(init);
  }

  const s = res.status;
  if (s === 403 && billingRefusalIn(res.body)) {
    const billing = {
      ...init,
      code: BILLING_CREDIT_LIMIT_BREACHED,
      message: `${res.area} 403 ${BILLING_CREDIT_LIMIT_BREACHED}: ${parsed.message ?? 'request failed'}`,
    };
    return new PlatformBillingError(billing);
  }
  if (s === 429) return new PlatformRateLimitError(init);
  if (s === 400 || s === 422) return new PlatformValidationError(init);
  if (s === 401 || s === 403) return new PlatformAuthError(init);
  if (s === 404) return new PlatformNotFoundError(init);
  if (s === 409) return new PlatformConflictError(init);
  if (s >= 500 || s === 408) return new PlatformUnavailableError(init);
  return new PlatformError(init);
}

/** A request that got no HTTP answer: timeout or connection failure. */
export function platformErrorFromTransport(area: PlatformInterface, err: unknown, timeoutMs: number): PlatformUnavailableError {
  const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
  const reason = err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err);
  return new PlatformUnavailableError({
    area,
    code: timedOut ? 'TIMEOUT' : 'NETWORK_ERROR',
    message: timedOut ? `${area}: no answer within ${timeoutMs} ms` : `${area}: request failed: ${reason}`,
    cause: err,
  });
}
