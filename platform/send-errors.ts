// What a failed send of one message means for a batch: slow down, try again, ask the platform whether it has
// the message, give up on this recipient, or stop the whole campaign until someone fixes something.
import { PlatformAuthError, PlatformBillingError, PlatformError, PlatformNotFoundError, PlatformRateLimitError, PlatformValidationError } from './errors.js';

/** `billing_refused`: the project is blocked for credit (403 BILLING_CREDIT_LIMIT_BREACHED), told apart from other refusals. */
export type SendErrorKind = 'throttled' | 'not_sent' | 'in_doubt' | 'recipient_rejected' | 'campaign_refused' | 'billing_refused';

export interface SendErrorClass {
  kind: SendErrorKind;
  code: string;
  message: string;
  retryAfterMs?: number;
}

/** MMS codes about the recipient alone: the next recipient may work. */
const MMS_RECIPIENT_CODES = new Set(['E110', 'E114']);
/** Statuses after which the platform may have accepted the message (the request was processed, the answer failed). */
const MAYBE_ACCEPTED_STATUSES = new Set([500, 502, 504]);

export function classifySendError(err: unknown): SendErrorClass {
  if (!(err instanceof PlatformError)) {
    return { kind: 'in_doubt', code: 'UNKNOWN', message: err instanceof Error ? err.message : String(err) };
  }
  const base = { code: err.code, message: err.message };
  if (err instanceof PlatformRateLimitError)
    return { kind: 'throttled', ...base, ...(err.retryAfterMs !== undefined ? { retryAfterMs: err.retryAfterMs } : {}) };
  // The MMS error code comes first (docs/mms-wire.md): E503 is the platform failing inside, whatever the status.
  if (err.area === 'mms' && err.code === 'E503') return { kind: 'in_doubt', ...base };
  if (err.httpStatus === undefined) {
    // No answer: a refused connection never reached the platform; anything else may have.
    return { kind: refusedBeforeSending(err) ? 'not_sent' : 'in_doubt', ...base };
  }
  if (MAYBE_ACCEPTED_STATUSES.has(err.httpStatus)) return { kind: 'in_doubt', ...base };
  if (err.httpStatus >= 500 || err.httpStatus === 408) return { kind: 'not_sent', ...base };
  if (err instanceof PlatformBillingError) return { kind: 'billing_refused', ...base };
  if (err.area === 'mms' && MMS_RECIPIENT_CODES.has(err.code)) return { kind: 'recipient_rejected', ...base };
  if (err.area !== 'mms' && err instanceof PlatformValidationError && aboutRecipient(err)) return { kind: 'recipient_rejected', ...base };
  if (err instanceof PlatformAuthError || err instanceof PlatformNotFoundError || err instanceof PlatformValidationError)
    return { kind: 'campaign_refused', ...base };
  return { kind: 'campaign_refused', ...base };
}

/** A conversation 400 whose details or message name the recipient (the message itself is fine). */
function aboutRecipient(err: PlatformError): boolean {
  const text = `${err.message} ${JSON.stringify(err.details ?? '')}`;
  return /recipient|identity|channel_identities|contact/i.test(text) && !/app_id|message\b|text_message|media_message/i.test(text);
}

function refusedBeforeSending(err: PlatformError): boolean {
  for (let e: unknown = err.cause; e instanceof Error; e = e.cause) {
    if ((e as { code?: string }).code === 'ECONNREFUSED') return true;
  }
  return false;
}
