// Every provisioning activity (area G): template approval, RCS sender launch, CHATA / CHATB sender
// onboarding, a sender's change, bundle provisioning, and the link of a process to its resource. Each is idempotent under Temporal retries and maps platform errors
// through shared/failures.ts.
import type { Client } from '@temporalio/client';
import type { ProvisioningActivities } from '../contract.js';
import type { ProvisioningClient } from '../../../platform/provisioning/client.js';
import type { ResourceLinkStore } from '../../../store/resource-links.js';
import { createBundleActivities } from './bundles.js';
import { createChatSenderApprovalActivities } from './chat-sender-approval.js';
import { createRcsSenderLaunchActivities } from './rcs-sender-launch.js';
import { createResourceLinkActivities } from './resource-link.js';
import { createSenderChangeActivities } from './sender-change.js';
import { createTemplateApprovalActivities } from './template-approval.js';

export function createProvisioningActivities(deps: {
  provisioning: ProvisioningClient;
  temporal?: Client | undefined;
  links?: ResourceLinkStore | undefined;
  inboxIdleMs?: number | undefined;
}): ProvisioningActivities {
  return {
    ...createTemplateApprovalActivities(deps),
    ...createRcsSenderLaunchActivities(deps),
    ...createChatSenderApprovalActivities(deps),
    ...createSenderChangeActivities(deps),
    ...createResourceLinkActivities(deps),
    ...createBundleActivities(deps),
  };
}
