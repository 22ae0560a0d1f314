// What the API and the verification workflow share: inputs, outcomes, updates and signals.
import { defineSignal, defineUpdate } from '@temporalio/workflow';
import type { SmsReceipt } from '../../contracts/verification-receipts.js';
import type {
  CalloutStartDetails,
  FlashCallStartDetails,
  ReportableVerificationMethod,
  ReportResult,
  SeamlessStartDetails,
  SmsCodeType,
  SmsStartDetails,
  VerificationMethod,
  WhatsAppStartDetails,
  VerificationStatusValue,
  VerificationStatus,
} from '../../common/wire/verification.js';

export { VERIFICATION_METHODS, type VerificationMethod } from '../../common/wire/verification.js';

/** Process states: the platform's final states, plus where the process is while it runs. */
export type VerificationProcessState = 'STARTING' | 'PENDING' | 'SUCCESSFUL' | 'FAIL' | 'DENIED' | 'ABORTED' | 'ERROR' | 'CANCELLED' | 'ABANDONED';

/**
 * Reasons of the endings a caller must be able to tell apart, as the prefix of `reason`:
 * - ERROR `platform_unavailable: ...`: the platform did not accept the start in time; nothing is retried later.
 * - ABANDONED `started_late: ...`: the process first ran after the API had given up on it (504); nothing was sent
 *   (or, after a worker failure, the reason says the send may have gone out: the platform could not be asked).
 */
export const VERIFICATION_REASONS = { platformUnavailable: 'platform_unavailable', startedLate: 'started_late' } as const;

export interface VerificationStep {
  method: VerificationMethod;
  /** How long this step may take before the process moves to the next one. */
  timeoutMs: number;
}

interface VerificationPolicy {
  codeExpiryMs: number;
  maxReportAttempts: number;
  resendCooldownMs: number;
  maxResends: number;
}

export interface VerificationInput {
  /** E.164; encrypted by the payload codec like every payload. */
  identity: string;
  steps: VerificationStep[];
  policy: VerificationPolicy;
  reference?: string;
  custom?: string;
  language?: string;
  /** The code's alphabet and length, for the sms and whatsapp steps (the platform generates the code). */
  code?: CodeOptions;
  /** Prefix of the routing tokens of this process (`<prefix>.<step>.<send>`), so callbacks route back to it. */
  platformReferencePrefix: string;
  /**
   * Epoch ms after which the first send must not happen: the API's deadline. A process whose first workflow
   * task runs later (no worker was running; the caller got a 504) ends ABANDONED without sending anything.
   */
  startBy?: number;
  /** The SMS-pumping guard of the number's prefix (its prefix, store/verification-pumping.ts): a correct code's answer names it. */
  pumpingGuardId?: string;
}

export interface CodeOptions {
  type?: SmsCodeType;
  length?: number;
}

/** What a client needs to complete the current step (from the platform's start answer). */
export interface StepStartInfo {
  step: number;
  method: VerificationMethod;
  verificationId: string;
  language?: string;
  sms?: { template?: string; interceptionTimeout?: number; codeType?: string };
  flashCall?: { cliFilter?: string; interceptionTimeout?: number; reportTimeout?: number; denyCallAfter?: number };
  callout?: { startPollingAfter?: number; stopPollingAfter?: number; pollingInterval?: number };
  seamless?: { targetUri?: string };
  whatsapp?: { codeType?: string };
}

export interface StartedOutcome {
  state: VerificationProcessState;
  reason?: string;
  current?: StepStartInfo;
}

export type { SmsReceipt } from '../../contracts/verification-receipts.js';

/** What a message carries besides its own: the process's receipts waiting in the store, if any. */
export interface CarriesReceipts {
  receipts?: SmsReceipt[];
}

export interface ReportRequest extends CarriesReceipts {
  code: string;
  operationId: string;
}
export interface ReportOutcome {
  accepted: boolean;
  state: VerificationProcessState;
  result?: 'SUCCESSFUL' | 'FAIL';
  reason?: string;
  attemptsLeft: number;
  /** On a SUCCESSFUL report: the pumping guard the API counts the success in (VerificationInput.pumpingGuardId); not in the API's answer. */
  pumping?: { guardId: string };
}

export interface ResendRequest extends CarriesReceipts {
  operationId: string;
}
export interface ResendOutcome {
  resent: boolean;
  reason?: string;
  retryAfterMs?: number;
  current?: StepStartInfo;
}

export interface CancelRequest extends CarriesReceipts {
  operationId: string;
  reason?: string;
}

/** A platform callback (or a polled status) turned into a signal; `eventId` makes duplicates harmless. */
export interface PlatformVerificationEvent extends CarriesReceipts {
  eventId: string;
  kind: 'result' | 'sms-delivered';
  verificationId: string;
  status?: string;
  reason?: string;
  smsResult?: 'Successful' | 'Failed';
}

export const startedUpdate = defineUpdate<StartedOutcome>('verificationStarted');
export const reportUpdate = defineUpdate<ReportOutcome, [ReportRequest]>('reportCode');
export const resendUpdate = defineUpdate<ResendOutcome, [ResendRequest]>('resend');
export const cancelUpdate = defineUpdate<{ state: VerificationProcessState }, [CancelRequest]>('cancel');
export const platformEventSignal = defineSignal<[PlatformVerificationEvent]>('platformEvent');

/**
 * Routing token of one platform verification: `<prefix>.<step>.<send>`; the prefix names the process. Sent as
 * the platform `custom` (and as `reference` when the caller gave none), echoed in callbacks and status.
 */
/** A receipt as the event it stands for (the signal it would have been), so the process applies both alike. */
export const receiptEvent = (r: SmsReceipt): PlatformVerificationEvent => ({
  eventId: r.eventId,
  kind: 'sms-delivered',
  verificationId: r.verificationId,
  smsResult: r.smsResult,
});

/** The timeline's entries for the receipts a message or a store read carried (`{receipts: [...]}`), one each. */
export function receiptEntries(value: unknown): { summary: string; eventId: string; details: Record<string, unknown> }[] {
  const receipts = (value as CarriesReceipts | undefined)?.receipts;
  if (!Array.isArray(receipts)) return [];
  return receipts.map((r) => ({
    summary: `SMS receipt ${r.smsResult} for ${r.verificationId} eventId ${r.eventId}, recorded ${r.receivedAt}`,
    eventId: r.eventId,
    details: { receipt: 'sms-delivered', eventId: r.eventId, verificationId: r.verificationId, smsResult: r.smsResult, receivedAt: r.receivedAt },
  }));
}

export const platformReference = (prefix: string, step: number, send: number) => `${prefix}.${step}.${send}`;
export const REFERENCE_PREFIX = 'rf';

// ---------------------------------------------------------------------------------------------
// Activities: the platform calls of a verification (run as local activities)
// ---------------------------------------------------------------------------------------------

export interface StartVerificationInput {
  /** E.164, e.g. `+46700000001`. */
  identity: string;
  method: VerificationMethod;
  /** The routing token, unique per platform verification (relayflow makes it): sent as `custom`. */
  token: string;
  /** The caller's reference, sent as the platform `reference`; without one the token is the reference. */
  reference?: string;
  /** Sent as Accept-Language (SMS template language). */
  language?: string;
  /** How long the SMS code stays valid (sent to the platform as `HH:MM:SS`); the code's alphabet and length; the template's locale. */
  sms?: { expiryMs?: number; codeType?: SmsCodeType; codeLength?: number; locale?: string };
  whatsapp?: { codeType?: SmsCodeType; codeLength?: number };
  /**
   * The workflow's word that no earlier try of this start can exist: the first send of a brand-new run,
   * in its first workflow task. A local activity restarts at attempt 1 when its workflow task is retried
   * (a worker crash), so the attempt number alone cannot say it; both must agree to skip the look-up.
   */
  firstTry?: boolean;
}

export interface StartVerificationOutput {
  verificationId: string;
  method: VerificationMethod;
  /** The language the platform used: Content-Language on a start, the status's `language` when resumed. */
  contentLanguage?: string;
  /** PENDING after a start; when resumed, whatever state the existing verification is in. */
  status: VerificationStatusValue;
  /** The platform's reason, when resumed onto a verification that already has one (e.g. "Expired"). */
  reason?: string;
  /** Method-specific start details; absent when resumed (the status read does not carry them). */
  sms?: SmsStartDetails;
  flashCall?: FlashCallStartDetails;
  callout?: CalloutStartDetails;
  seamless?: SeamlessStartDetails;
  whatsapp?: WhatsAppStartDetails;
  /** true when this send's verification already existed (an earlier attempt's answer was lost). */
  resumed: boolean;
}

/** The look-up part of a start: the send's routing token, and the caller's reference if any. */
export type FindVerificationInput = Pick<StartVerificationInput, 'identity' | 'method' | 'token' | 'reference'>;

export interface ReportCodeInput {
  verificationId: string;
  method: ReportableVerificationMethod;
  /** The OTP for sms and callout, the calling number (CLI) for flashcall. */
  code: string;
}

export interface GetVerificationStatusInput {
  verificationId: string;
}

export interface SmsReceiptsInput {
  processId: string;
}

export interface VerificationActivities {
  startVerification(input: StartVerificationInput): Promise<StartVerificationOutput>;
  /** The look-up of startVerification alone: the send's verification if an earlier try started it; never starts one. */
  findVerification(input: FindVerificationInput): Promise<{ found?: StartVerificationOutput }>;
  reportCode(input: ReportCodeInput): Promise<ReportResult>;
  getVerificationStatus(input: GetVerificationStatusInput): Promise<VerificationStatus>;
  /** The process's receipts waiting in relayflow's store (none without a store): read only before it ends without them. */
  smsReceipts(input: SmsReceiptsInput): Promise<Required<CarriesReceipts>>;
}
