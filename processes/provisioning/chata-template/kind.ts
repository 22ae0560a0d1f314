// A CHATA template: submitted, then watched for the platform's verdict and later changes of its quality.
import { TEMPLATE_STATES } from '../../../common/wire/provisioning.js';
import { defineKind } from '../../descriptor.js';
import { ACCOUNT_BANNED, PROVISIONING_OWN_STATES, PROVISIONING_SIGNALS } from '../states.js';

export const chataTemplate = defineKind<string>()({
  kind: 'chata-template',
  family: 'provisioning',
  workflowType: 'templateApproval',
  versioning: 'auto-upgrade',
  id: (projectId: string, name: string, language: string) => `chata-template:${projectId}:${name}:${language}`,
  states: {
    all: [...PROVISIONING_OWN_STATES, ...TEMPLATE_STATES, ACCOUNT_BANNED],
    initial: 'CREATING',
    final: ['DELETED', 'STOPPED', 'FAILED'],
    succeeded: ['APPROVED'],
    failed: ['REJECTED', 'DISABLED', 'FAILED'],
    waiting: ['PAUSED', ACCOUNT_BANNED],
  },
  signals: [...PROVISIONING_SIGNALS, 'resubmitRequested'],
  updates: ['resubmit', 'stop', 'deleteTemplateChange'],
  retryInPlace: { update: 'resubmit', from: ['REJECTED'] },
  collection: { path: '/v1/templates', tag: 'templates', styles: ['chata'] },
});
