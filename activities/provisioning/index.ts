// Every provisioning activity (area G): templates, RCS senders, CHATA / CHATB senders, webhooks.
// Each is idempotent under Temporal retries and maps platform errors through failures.ts.
import type { ProvisioningClient } from '../../platform/provisioning/client.js';
import { createProvisioningTemplateActivities } from './template-approval.js';
import { createProvisioningRcsActivities } from './rcs-sender-launch.js';
import { createProvisioningSenderActivities } from './chat-sender-onboarding.js';
import { createProvisioningWebhookActivities } from './webhooks.js';

export function createProvisioningActivities(clients: { provisioning: ProvisioningClient }) {
  return {
    ...createProvisioningTemplateActivities(clients),
    ...createProvisioningRcsActivities(clients),
    ...createProvisioningSenderActivities(clients),
    ...createProvisioningWebhookActivities(clients),
  };
}

export type ProvisioningActivities = ReturnType<typeof createProvisioningActivities>;

export type * from './template-approval.js';
export type * from './rcs-sender-launch.js';
export type * from './chat-sender-onboarding.js';
export type * from './webhooks.js';
