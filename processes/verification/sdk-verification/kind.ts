// A verification relayflow did not start (an SDK's), adopted from the platform's callbacks: listed and read with
// every process, no collection of its own.
import type { SdkVerificationState } from './contract.js';
import { defineKind, everyState } from '../../descriptor.js';

export const sdkVerification = defineKind<SdkVerificationState>()({
  kind: 'sdk-verification',
  family: 'verification',
  workflowType: 'sdkVerification',
  versioning: 'pinned',
  /** Keyed by the platform's verification ID from its callbacks. */
  id: (verificationId: string) => `sdk-verification:${verificationId}`,
  states: {
    all: everyState<SdkVerificationState>()(['PENDING', 'SUCCESSFUL', 'FAIL', 'DENIED', 'ABORTED', 'ERROR', 'UNKNOWN']),
    initial: 'PENDING',
    final: ['SUCCESSFUL', 'FAIL', 'DENIED', 'ABORTED', 'ERROR'],
    succeeded: ['SUCCESSFUL'],
    failed: ['FAIL', 'DENIED', 'ERROR'],
  },
  signals: ['sdkVerificationEvent'],
});
