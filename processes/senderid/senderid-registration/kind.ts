// A sender ID registration: created, its attachments and answers given, followed until the platform decides.
import { REGISTRATION_STATES } from '../../../common/wire/senderid.js';
import type { SenderIdProcessState } from './contract.js';
import { defineKind, everyState } from '../../descriptor.js';

export const senderIdRegistration = defineKind<SenderIdProcessState>()({
  kind: 'senderid-registration',
  family: 'senderid',
  workflowType: 'senderIdRegistration',
  /**
   * Keyed by the caller's registration key (1..64 of [A-Za-z0-9._-]), not marketCode + senderId: long numbers and
   * short codes have no sender ID until the platform assigns one, and a sender ID is a brand name, which must stay
   * out of workflow IDs. The same key is tagged on the platform's registration (senderIdKeyTag) so a retried create
   * finds it. A registration relayflow did not create is adopted under `reg-<registrationId>` (senderIdAdoptedKey).
   */
  id: (projectId: string, registrationKey: string) => `senderid-registration:${projectId}:${registrationKey}`,
  states: {
    all: everyState<SenderIdProcessState>()(['VALIDATING', 'CREATING', ...REGISTRATION_STATES, 'DELETED', 'STOPPED', 'FAILED']),
    initial: 'VALIDATING',
    final: ['APPROVED', 'REJECTED', 'DELETED', 'STOPPED', 'FAILED'],
    succeeded: ['APPROVED'],
    failed: ['REJECTED', 'FAILED'],
    // Attachments or answers the platform holds it for.
    waiting: ['PENDING_ATTACHMENTS', 'ON_HOLD'],
  },
  signals: ['senderIdCallback'],
  updates: ['updateRegistration', 'attachmentUploaded', 'stopRegistration'],
  collection: { path: '/v1/senderid/registrations', tag: 'senderid' },
});
