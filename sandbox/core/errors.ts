// Errors thrown anywhere in an area's request handling; the area's error family renders the body.
import { ulid } from 'ulid';

/** One invalid input: the field (dotted path) and what is wrong with it. */
export interface FieldViolation {
  field: string;
  description: string;
}

/**
 * An error answer independent of any area's body shape. Verifiers and handlers throw it; the
 * central error handler renders it with the family of the area the request was addressed to.
 */
export class AreaError extends Error {
  readonly status: number;
  /** Area-specific code (voice/verification numeric `errorCode`, MMS `E1xx`, provisioning string). */
  readonly code: string | number | undefined;
  readonly details: FieldViolation[] | undefined;
  readonly headers: Record<string, string>;

  constructor(status: number, message: string, opts: { code?: string | number; details?: FieldViolation[]; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = 'AreaError';
    this.status = status;
    this.code = opts.code;
    this.details = opts.details;
    this.headers = opts.headers ?? {};
  }
}

export interface ErrorShape {
  status: number;
  message: string;
  code?: string | number | undefined;
  details?: FieldViolation[] | undefined;
}

/** Renders an error answer in one area family's body shape. */
export interface ErrorFamily {
  readonly name: 'oauth' | 'voice' | 'verification' | 'mms' | 'provisioning';
  render(e: ErrorShape): unknown;
}

type ConversationStatus = 'UNAUTHENTICATED' | 'PERMISSION_DENIED' | 'INVALID_ARGUMENT' | 'NOT_FOUND' | 'RESOURCE_EXHAUSTED' | 'INTERNAL' | 'UNAVAILABLE';

/** A family's name for an HTTP status: its own for the statuses it names, else one for any 5xx and one for the rest. */
function nameFor<N extends string>(names: Partial<Record<number, N>>, status: number, serverError: N, otherwise: N): N {
  return names[status] ?? (status >= 500 ? serverError : otherwise);
}

const CONVERSATION_STATUSES: Partial<Record<number, ConversationStatus>> = {
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  503: 'UNAVAILABLE',
};
const conversationStatusFor = (status: number) => nameFor(CONVERSATION_STATUSES, status, 'INTERNAL', 'INVALID_ARGUMENT');

/** Conversation error object, used by every OAuth-authenticated area (and the token endpoint). */
export const oauthErrors: ErrorFamily = {
  name: 'oauth',
  render: (e) => ({
    // A named code (e.g. BILLING_CREDIT_LIMIT_BREACHED) is the status name; otherwise the name for the HTTP status.
    error: { code: e.status, message: e.message, status: typeof e.code === 'string' ? e.code : conversationStatusFor(e.status), details: e.details ?? [] },
  }),
};

/** Voice codes are five digits whose first three are the HTTP status (40001 validation, 40100 auth, ...). */
function voiceCode(e: ErrorShape): number {
  if (typeof e.code === 'number') return e.code;
  return e.status === 400 ? 40001 : e.status * 100;
}

export const voiceErrors: ErrorFamily = {
  name: 'voice',
  render: (e) => ({ errorCode: voiceCode(e), message: e.message }),
};

/** Verification adds a `reference` that identifies the error occurrence. */
export const verificationErrors: ErrorFamily = {
  name: 'verification',
  render: (e) => ({ errorCode: voiceCode(e), message: e.message, reference: ulid() }),
};

const MMS_CODES: Partial<Record<number, string>> = { 401: 'E104', 403: 'E105', 429: 'E113' };
const mmsCode = (status: number) => nameFor(MMS_CODES, status, 'E503', 'E100');

export const mmsErrors: ErrorFamily = {
  name: 'mms',
  render: (e) => ({
    status: 'Failure',
    'error-code': typeof e.code === 'string' ? e.code : mmsCode(e.status),
    'error-info': e.message,
  }),
};

const PROVISIONING_CODES: Partial<Record<number, string>> = {
  400: 'invalid_input',
  401: 'unauthenticated',
  403: 'permission_denied',
  404: 'not_found',
  429: 'too_many_requests',
};
const provisioningCode = (status: number) => nameFor(PROVISIONING_CODES, status, 'internal_error', 'invalid_request');

/** wire-notes: `{errorCode, message, resolution, additionalInformation?}`; 400 invalid_input carries validationErrors. */
export const provisioningErrors: ErrorFamily = {
  name: 'provisioning',
  render: (e) => ({
    errorCode: typeof e.code === 'string' ? e.code : provisioningCode(e.status),
    message: e.message,
    resolution: '',
    ...(e.details?.length ? { additionalInformation: { validationErrors: e.details } } : {}),
  }),
};
