// A CHATA sender: created (or adopted by embedded sign-up), its number verified, followed until active.
import { CHATA_SENDER_STATES, CHATA_SENDER_UPDATABLE } from '../../../common/wire/provisioning.js';
import { defineKind } from '../../descriptor.js';
import { ACCOUNT_BANNED, PROVISIONING_OWN_STATES, PROVISIONING_SIGNALS } from '../states.js';

export const chataSender = defineKind<string>()({
  kind: 'chata-sender',
  family: 'provisioning',
  workflowType: 'chataSenderApproval',
  versioning: 'auto-upgrade',
  /** `senderKey`: the keyed hash of the phone number (common/subject-hash.ts), or `pnid-<phoneNumberId>`. */
  id: (projectId: string, senderKey: string) => `chata-sender:${projectId}:${senderKey}`,
  states: {
    all: [...PROVISIONING_OWN_STATES, ...CHATA_SENDER_STATES, 'DRAFT_SAVED', 'WAITING_FOR_CALLER', ACCOUNT_BANNED],
    initial: 'CREATING',
    final: ['ACTIVE', 'DRAFT_SAVED', 'STOPPED', 'FAILED'],
    succeeded: ['ACTIVE', 'DRAFT_SAVED'],
    // ERROR is on the way: the platform retries.
    failed: ['FAILED'],
    // A draft the platform kept, a number waiting for its code, a banned business account: the caller acts.
    waiting: ['DRAFT_SAVED', 'WAITING_FOR_CALLER', ACCOUNT_BANNED],
  },
  signals: PROVISIONING_SIGNALS,
  updates: ['stop', 'verifyPhone', 'updateSender'],
  change: { fields: CHATA_SENDER_UPDATABLE, live: 'ACTIVE', name: 'CHATA sender' },
  collection: { path: '/v1/senders', tag: 'senders', styles: ['chata'] },
});
