// The descriptors of templates and senders, which differ by channel only where the platform does: a template of
// either channel is the same process (`templateApproval`), and every sender shares its name, key, collection and
// relayflow's own states around the platform's.
import { TEMPLATE_STATES } from '../../common/wire/provisioning.js';
import { defineKind, type ProcessDescriptor } from '../descriptor.js';
import { PROVISIONING_OWN_STATES, PROVISIONING_SIGNALS } from './states.js';

/** A template of `channel`; `accountStates`, the states its business account's ban can hold it in (CHATA's). */
export const templateKind = <C extends 'chata' | 'chatb'>(channel: C, accountStates: readonly string[] = []) =>
  defineKind<string>()({
    kind: `${channel}-template`,
    family: 'provisioning',
    workflowType: 'templateApproval',
    id: (projectId: string, name: string, language: string) => `${channel}-template:${projectId}:${name}:${language}`,
    states: {
      // RETIRED: deleted on the platform through the API (retire).
      all: [...PROVISIONING_OWN_STATES, ...TEMPLATE_STATES, ...accountStates, 'RETIRED'],
      initial: 'CREATING',
      final: ['DELETED', 'STOPPED', 'FAILED', 'RETIRED'],
      succeeded: ['APPROVED'],
      failed: ['REJECTED', 'DISABLED', 'FAILED'],
      waiting: ['PAUSED', ...accountStates],
    },
    signals: [...PROVISIONING_SIGNALS, 'resubmitRequested'],
    updates: ['resubmit', 'stop', 'deleteTemplateChange', 'retire'],
    retryInPlace: { update: 'resubmit', from: ['REJECTED'] },
    collection: { path: '/v1/templates', tag: 'templates', styles: [channel] },
  });

/** What a sender kind says of itself: its workflow, the platform's states and its own beyond CREATING, FAILED, STOPPED. */
interface SenderSpec extends Pick<ProcessDescriptor, 'workflowType' | 'updates' | 'retryInPlace'> {
  states: Omit<ProcessDescriptor['states'], 'initial' | 'waiting'> & { waiting?: readonly string[] };
  /** Beyond the platform's events. */
  signals?: readonly string[];
  /** A change (POST .../update): the fields it takes, the state it ends in while live. */
  change: { fields: readonly string[]; live: string };
}

export const senderKind = <C extends 'chata' | 'chatb' | 'rcs'>(channel: C, { states, signals = [], change, ...rest }: SenderSpec) =>
  defineKind<string>()({
    kind: `${channel}-sender`,
    family: 'provisioning',
    ...rest,
    /** `senderKey`: CHATA's the keyed hash of its phone number (common/subject-hash.ts) or `pnid-<phoneNumberId>`, else its display name. */
    id: (projectId: string, senderKey: string) => `${channel}-sender:${projectId}:${senderKey}`,
    states: { ...states, all: [...PROVISIONING_OWN_STATES, ...states.all], initial: 'CREATING' },
    signals: [...PROVISIONING_SIGNALS, ...signals],
    change: { ...change, name: `${channel.toUpperCase()} sender` },
    collection: { path: '/v1/senders', tag: 'senders', styles: [channel] },
  });
