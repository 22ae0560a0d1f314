// What the API and the verification workflow share: inputs, outcomes, updates and signals.
import { defineSignal, defineUpdate } from '@temporalio/workflow';

export type VerificationMethod = 'sms' | 'flashcall' | 'callout' | 'seamless';
export const VERIFICATION_METHODS: readonly VerificationMethod[] = ['sms', 'flashcall', 'callout', 'seamless'];

/** Process states: the platform's final states, plus where the process is while it runs. */
export type VerificationState =
  | 'STARTING' | 'PENDING' | 'SUCCESSFUL' | 'FAIL' | 'DENIED' | 'ABORTED' | 'ERROR' | 'CANCELLED';
export const FINAL_VERIFICATION_STATES: readonly VerificationState[] = ['SUCCESSFUL', 'FAIL', 'DENIED', 'ABORTED', 'ERROR', 'CANCELLED'];

export interface VerificationStep {
  method: VerificationMethod;
  /** How long this step may take before the process moves to the next one. */
  timeoutMs: number;
}

export interface VerificationPolicy {
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
  /** Prefix of the platform references of this process, so callbacks route back to it. */
  platformReferencePrefix: string;
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
}

export interface StartedOutcome {
  state: VerificationState;
  reason?: string;
  current?: StepStartInfo;
}

export interface ReportRequest { code: string; operationId: string }
export interface ReportOutcome {
  accepted: boolean;
  state: VerificationState;
  result?: 'SUCCESSFUL' | 'FAIL';
  reason?: string;
  attemptsLeft: number;
}

export interface ResendRequest { operationId: string }
export interface ResendOutcome { resent: boolean; reason?: string; retryAfterMs?: number; current?: StepStartInfo }

export interface CancelRequest { operationId: string; reason?: string }

/** A platform callback (or a polled status) turned into a signal; `eventId` makes duplicates harmless. */
export interface PlatformVerificationEvent {
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
export const cancelUpdate = defineUpdate<{ state: VerificationState }, [CancelRequest]>('cancel');
export const platformEventSignal = defineSignal<[PlatformVerificationEvent]>('platformEvent');

/** Platform reference of one platform verification: `<prefix>.<step>.<send>`; the prefix names the process. */
export const platformReference = (prefix: string, step: number, send: number) => `${prefix}.${step}.${send}`;
export const REFERENCE_PREFIX = 'rf';
