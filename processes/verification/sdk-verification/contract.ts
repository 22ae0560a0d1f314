// Verifications relayflow did not start (a mobile SDK's, or another backend's on the same application), adopted by
// the platform's verification ID so the audit has them: what the API and the sdkVerification workflow share.
import { defineSignal } from '@temporalio/workflow';

/**
 * An adopted verification's states: PENDING until its result is known, then the platform's final status as it
 * said it (spec and wire notes: SUCCESSFUL, FAIL, DENIED, ABORTED, ERROR), or UNKNOWN when neither its result
 * event nor the platform's status read said one in time.
 */
export type SdkVerificationState = 'PENDING' | 'SUCCESSFUL' | 'FAIL' | 'DENIED' | 'ABORTED' | 'ERROR' | 'UNKNOWN';

/** relayflow's answer to a verification's request event, and why. `error`: it could not decide (the platform then refuses it). */
export interface RequestAnswer {
  action: 'allow' | 'deny' | 'error';
  why: string;
}

/**
 * One callback about an adopted verification, as the intake received it. `identity` is the number: it travels only
 * in payloads (encrypted by the codec), never in the workflow ID, search attributes or logs.
 */
export interface SdkVerificationEvent {
  /** The same event twice has the same ID: the process records it once. */
  eventId: string;
  kind: 'request' | 'result' | 'sms-delivered';
  /** When the intake received it (ISO-8601). */
  at: string;
  verificationId: string;
  method: string;
  identity: string;
  reference?: string;
  /** A request's answer. */
  answer?: RequestAnswer;
  /** A result's status, reason and source (intercepted | manual). */
  status?: string;
  reason?: string;
  source?: string;
  smsResult?: 'Successful' | 'Failed';
}

export interface SdkVerificationInput {
  verificationId: string;
  /** How long to wait for the result event before reading the platform's status (and between reads while it says PENDING). */
  resultWaitMs: number;
}

/**
 * How long an adopted verification waits for its result before it reads the platform: the platform's default
 * expiry is not in the spec; the wire notes' sandbox expires a verification after 10 min (its result event then
 * says FAIL Expired), and the result event's retries take under a minute. 15 min leaves room for both (ours).
 */
export const SDK_RESULT_WAIT_MS = 15 * 60_000;

export const sdkVerificationEventSignal = defineSignal<[SdkVerificationEvent]>('sdkVerificationEvent');
