// Every provisioning activity (area G): templates, RCS senders, CHATA / CHATB senders, webhooks.
// Each is idempotent under Temporal retries and maps platform errors through failures.ts.
import type { ProvisioningClient } from './platform/provisioning.js';
import { createProvisioningTemplateActivities } from './provisioning-templates.js';
import { createProvisioningRcsActivities } from './provisioning-rcs.js';
import { createProvisioningSenderActivities } from './provisioning-senders.js';
import { createProvisioningWebhookActivities } from './provisioning-webhooks.js';

export function createProvisioningActivities(clients: { provisioning: ProvisioningClient }) {
  return {
    ...createProvisioningTemplateActivities(clients),
    ...createProvisioningRcsActivities(clients),
    ...createProvisioningSenderActivities(clients),
    ...createProvisioningWebhookActivities(clients),
  };
}

export type ProvisioningActivities = ReturnType<typeof createProvisioningActivities>;

export type * from './provisioning-templates.js';
export type * from './provisioning-rcs.js';
export type * from './provisioning-senders.js';
export type * from './provisioning-webhooks.js';
