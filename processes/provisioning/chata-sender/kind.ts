// A CHATA sender: created (or adopted by embedded sign-up), its number verified, followed until active, then watched
// (quality rating, messaging limit, state) until it is retired (RETIRED: deleted on the platform through the API).
import { CHATA_SENDER_STATES, CHATA_SENDER_UPDATABLE } from '../../../common/wire/provisioning.js';
import { senderKind } from '../provisioning-kinds.js';
import { ACCOUNT_BANNED } from '../states.js';

export const chataSender = senderKind('chata', {
  workflowType: 'chataSenderApproval',
  states: {
    all: [...CHATA_SENDER_STATES, 'DRAFT_SAVED', 'WAITING_FOR_CALLER', ACCOUNT_BANNED, 'RETIRED'],
    // ACTIVE ends only the processes started before the watch after it (their runs completed there).
    final: ['ACTIVE', 'DRAFT_SAVED', 'STOPPED', 'FAILED', 'RETIRED'],
    succeeded: ['ACTIVE', 'DRAFT_SAVED'],
    // ERROR is on the way: the platform retries.
    failed: ['FAILED'],
    // A draft the platform kept, a number waiting for its code, a banned business account: the caller acts.
    waiting: ['DRAFT_SAVED', 'WAITING_FOR_CALLER', ACCOUNT_BANNED],
  },
  updates: ['stop', 'verifyPhone', 'updateSender', 'retire'],
  change: { fields: CHATA_SENDER_UPDATABLE, live: 'ACTIVE' },
});
