// A CHATB sender: created, followed until active, then watched until it is retired through the API (RETIRED: deleted
// on the platform) or the platform makes it INACTIVE (FAILED).
import { CHATB_SENDER_STATES, CHATB_SENDER_UPDATABLE } from '../../../common/wire/provisioning.js';
import { senderKind } from '../provisioning-kinds.js';

export const chatbSender = senderKind('chatb', {
  workflowType: 'chatbSenderApproval',
  states: {
    all: [...CHATB_SENDER_STATES, 'DRAFT_SAVED', 'RETIRED'],
    // ACTIVE ends only the processes started before the watch after it (their runs completed there).
    final: ['ACTIVE', 'DRAFT_SAVED', 'STOPPED', 'FAILED', 'RETIRED'],
    succeeded: ['ACTIVE', 'DRAFT_SAVED'],
    failed: ['FAILED'],
    waiting: ['DRAFT_SAVED'],
  },
  updates: ['stop', 'updateSender', 'retire'],
  change: { fields: CHATB_SENDER_UPDATABLE, live: 'ACTIVE' },
});
