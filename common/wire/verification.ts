// Wire shapes, once (issue 22): the platform's request and response shapes live in common/wire/<area>.ts, imported by
// relayflow's clients (platform/) and by the sandbox; the sandbox keeps its own validation and internal records (which
// may extend or narrow these), so it stays an independent check. Here: verification (area B, v1),
// docs/verification-wire.md: the methods and statuses, the start, report and status bodies.

export const VERIFICATION_METHODS = ['sms', 'flashcall', 'callout', 'seamless'] as const;
export type VerificationMethod = (typeof VERIFICATION_METHODS)[number];
/** The methods whose code (sms, callout) or CLI (flashcall) can be reported. */
export type ReportableVerificationMethod = Exclude<VerificationMethod, 'seamless'>;
export const VERIFICATION_STATUSES = ['PENDING', 'SUCCESSFUL', 'FAIL', 'DENIED', 'ABORTED', 'ERROR'] as const;
export type VerificationStatusValue = (typeof VERIFICATION_STATUSES)[number];
export type VerificationSource = 'intercepted' | 'manual';
export const SMS_CODE_TYPES = ['Numeric', 'Alpha', 'Alphanumeric'] as const;
export type SmsCodeType = (typeof SMS_CODE_TYPES)[number];

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
  sms?: {
    /** `HH:MM:SS`. */
    expiry?: string;
    codeType?: SmsCodeType;
  };
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
}

/** Report bodies. */
export type VerificationReport =
  { method: 'sms'; sms: { code: string } } | { method: 'flashcall'; flashCall: { cli: string } } | { method: 'callout'; callout: { code: string } };

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
