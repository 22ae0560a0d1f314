// A verification relayflow starts: one process per attempt, keyed by a ULID.
import type { VerificationProcessState } from '../contract.js';
import { defineKind, everyState } from '../../descriptor.js';

const id = (id: string) => `verification:${id}`;

export const verification = defineKind<VerificationProcessState>()({
  kind: 'verification',
  family: 'verification',
  workflowType: 'verification',
  versioning: 'pinned',
  /** `id` is a ULID; the routing tokens of the process are `rf-<id>.<step>.<send>`. */
  id,
  states: {
    all: everyState<VerificationProcessState>()(['STARTING', 'PENDING', 'SUCCESSFUL', 'FAIL', 'DENIED', 'ABORTED', 'ERROR', 'CANCELLED', 'ABANDONED']),
    initial: 'STARTING',
    final: ['SUCCESSFUL', 'FAIL', 'DENIED', 'ABORTED', 'ERROR', 'CANCELLED', 'ABANDONED'],
    succeeded: ['SUCCESSFUL'],
    failed: ['FAIL', 'DENIED', 'ERROR'],
    // PENDING on its code waits on its end user, as designed: not a person relayflow's users must find.
    waiting: [],
  },
  signals: ['platformEvent'],
  updates: ['verificationStarted', 'reportCode', 'resend', 'cancel'],
  collection: { path: '/v1/verifications', tag: 'verifications' },
});

/** The verification process a routing token (`rf-<ULID>.<step>.<send>`) belongs to. */
function verificationIdOfReference(token: string | undefined): string | undefined {
  const m = /^rf-([0-9A-HJKMNP-TV-Z]{26})\.\d+\.\d+$/.exec(token ?? '');
  return m ? id(m[1]!) : undefined;
}

/**
 * The verification process a platform event belongs to: by the token in `custom`, else in `reference`
 * (processes started before the token moved to `custom`).
 */
export const verificationIdOfEvent = (e: { custom?: string | undefined; reference?: string | undefined }) =>
  verificationIdOfReference(e.custom) ?? verificationIdOfReference(e.reference);
