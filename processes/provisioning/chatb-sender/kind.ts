// A CHATB sender: created and followed until active.
import { CHATB_SENDER_STATES, CHATB_SENDER_UPDATABLE } from '../../../common/wire/provisioning.js';
import { defineKind } from '../../descriptor.js';
import { PROVISIONING_OWN_STATES, PROVISIONING_SIGNALS } from '../states.js';

export const chatbSender = defineKind<string>()({
  kind: 'chatb-sender',
  family: 'provisioning',
  workflowType: 'chatbSenderApproval',
  versioning: 'auto-upgrade',
  id: (projectId: string, displayName: string) => `chatb-sender:${projectId}:${displayName}`,
  states: {
    all: [...PROVISIONING_OWN_STATES, ...CHATB_SENDER_STATES, 'DRAFT_SAVED'],
    initial: 'CREATING',
    final: ['ACTIVE', 'DRAFT_SAVED', 'STOPPED', 'FAILED'],
    succeeded: ['ACTIVE', 'DRAFT_SAVED'],
    failed: ['FAILED'],
    waiting: ['DRAFT_SAVED'],
  },
  signals: PROVISIONING_SIGNALS,
  updates: ['stop', 'updateSender'],
  change: { fields: CHATB_SENDER_UPDATABLE, live: 'ACTIVE', name: 'CHATB sender' },
  collection: { path: '/v1/senders', tag: 'senders', styles: ['chatb'] },
});
