// Wire shapes, once, so client and sandbox cannot drift: the platform's request and response shapes live in common/wire/<area>.ts, imported by
// relayflow's clients (platform/) and by the sandbox; the sandbox keeps its own validation and internal records (which
// may extend or narrow these), so it stays an independent check. Here: verification (area B, v1),
// docs/verification-wire.md: the methods and statuses, the start, report and status bodies.

export const VERIFICATION_METHODS = ['sms', 'flashcall', 'callout', 'seamless', 'whatsapp'] as const;
export type VerificationMethod = (typeof VERIFICATION_METHODS)[number];
/** The methods whose code (sms, callout, whatsapp) or CLI (flashcall) can be reported. */
export type ReportableVerificationMethod = Exclude<VerificationMethod, 'seamless'>;
export const VERIFICATION_STATUSES = ['PENDING', 'SUCCESSFUL', 'FAIL', 'DENIED', 'ABORTED', 'ERROR'] as const;
export type VerificationStatusValue = (typeof VERIFICATION_STATUSES)[number];
export type VerificationSource = 'intercepted' | 'manual';
export const SMS_CODE_TYPES = ['Numeric', 'Alpha', 'Alphanumeric'] as const;
export type SmsCodeType = (typeof SMS_CODE_TYPES)[number];
/** The methods whose start takes a code type (and length): the platform generates their code from it. */
export const CODE_OPTION_METHODS = ['sms', 'whatsapp'] as const;
/** Code lengths a start may ask for (not in the platform's public reference: docs/verification-wire.md). */
export const CODE_LENGTH = { min: 4, max: 10 } as const;

/** A start's code options for sms and whatsapp. */
interface CodeOptions {
  codeType?: SmsCodeType;
  /** Characters in the code, CODE_LENGTH.min to CODE_LENGTH.max. */
  codeLength?: number;
}

interface VerificationIdentity {
  type: 'number';
  /** E.164, e.g. `+46700000001`. */
  endpoint: string;
}

export interface StartVerificationRequest {
  identity: VerificationIdentity;
  method: VerificationMethod;
  /** At most 128 characters; what statusByReference finds the verification by. */
  reference?: string;
  /** At most 4096 characters; echoed in callbacks and status answers. */
  custom?: string;
  sms?: CodeOptions & {
    /** `HH:MM:SS`. */
    expiry?: string;
    /** The SMS template's language-region (IANA), e.g. `es-ES`. */
    locale?: string;
  };
  whatsapp?: CodeOptions;
}

interface VerificationLink {
  rel?: string;
  href?: string;
  method?: string;
}

export interface SmsStartDetails {
  /** Contains the placeholder `{{CODE}}`; in the language of Content-Language. */
  template: string;
  /** Seconds. */
  interceptionTimeout: number;
  codeType?: SmsCodeType;
}

export interface WhatsAppStartDetails {
  codeType?: SmsCodeType;
}

export interface FlashCallStartDetails {
  /** Regular expression the calling number (CLI) matches. */
  cliFilter: string;
  /** Seconds. */
  interceptionTimeout: number;
  reportTimeout: number;
  denyCallAfter: number;
}

export interface CalloutStartDetails {
  /** Seconds. */
  startPollingAfter: number;
  stopPollingAfter: number;
  pollingInterval: number;
}

export interface SeamlessStartDetails {
  targetUri: string;
}

export interface StartVerificationResponse {
  id: string;
  method: VerificationMethod;
  _links?: VerificationLink[];
  sms?: SmsStartDetails;
  flashCall?: FlashCallStartDetails;
  callout?: CalloutStartDetails;
  seamless?: SeamlessStartDetails;
  whatsapp?: WhatsAppStartDetails;
}

/** Report bodies. */
export type VerificationReport =
  | { method: 'sms'; sms: { code: string } }
  | { method: 'flashcall'; flashCall: { cli: string } }
  | { method: 'callout'; callout: { code: string } }
  | { method: 'whatsapp'; whatsapp: { code: string } };

/** The answer to a report. */
export interface ReportResult {
  id: string;
  method: VerificationMethod;
  /** SUCCESSFUL or FAIL for a PENDING verification (FAIL "Invalid code" leaves it PENDING); the final status, unchanged, for a finished one. */
  status: VerificationStatusValue;
  reason?: string;
  reference?: string;
  source?: VerificationSource;
}

/** The answer to a status read (by ID, by identity and method, by reference). */
export interface VerificationStatus {
  id: string;
  method: VerificationMethod;
  status: VerificationStatusValue;
  reason?: string;
  reference?: string;
  custom?: string;
  identity: VerificationIdentity;
  source?: VerificationSource;
  /** The language used (sandbox and current platform; not in the public documentation). */
  language?: string;
  /** ISO-8601. */
  createdAt?: string;
}
