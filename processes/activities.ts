// All activities of a worker, built from its platform clients. Their signatures live in contracts/
// (workflows proxy those interfaces and never import this layer; lint enforces it).
import type { Client } from '@temporalio/client';
import type { Logger } from '../common/logger.js';
import type { ProvisioningActivities } from './provisioning/contract.js';
import type { SubprojectActivities } from './subprojects/subproject/contract.js';
import type { VerificationActivities } from './verification/contract.js';
import type { SenderIdActivities } from './senderid/senderid-registration/activity-contract.js';
import type { SenderIdLinkActivities } from './senderid/senderid-registration/contract.js';
import type { VoiceActivities } from './voice/contract.js';
import type { OnboardingActivities } from './onboarding/onboarding/contract.js';
import type { PlatformClients } from '../platform/index.js';
import type { ResourceLinkStore } from '../store/resource-links.js';
import type { SmsReceiptStore } from '../store/verification-receipts.js';
import type { ProcessEventStore } from '../store/process-events.js';
import type { ProcessEventActivities } from '../contracts/process-events.js';
import { createProcessEventActivities } from './shared/activities/process-events.js';
import { createProvisioningActivities } from './provisioning/activities/index.js';
import { createSubprojectActivities } from './subprojects/subproject/activities/index.js';
import { createVerificationActivities } from './verification/activities/index.js';
import { createSenderIdActivities } from './senderid/senderid-registration/activities/index.js';
import { createVoiceActivities } from './voice/activities/index.js';
import { createOnboardingActivities } from './onboarding/onboarding/activities/index.js';

export interface ActivityDeps {
  clients: PlatformClients;
  /** For the activities that signal or query other workflows (provisioning inboxes, sender ID callbacks, onboarding undo); the worker passes one. */
  temporal?: Client;
  /** How long an idle provisioning inbox lives (RELAYFLOW_INBOX_IDLE_MS), given to the inboxes these activities start. */
  inboxIdleMs?: number;
  /** Which process follows a platform resource (written when a process creates or adopts it); without it, the inboxes route. */
  links?: ResourceLinkStore;
  /** The verifications' SMS receipts the callback intake recorded; without it a verification reads none. */
  receipts?: SmsReceiptStore;
  /** The event outbox every process writes its state changes to; without it they are not kept. */
  events?: ProcessEventStore;
  /** relayflow's provisioning webhook (its public URL and secret), registered in each customer's subproject it acts in. */
  provisioningWebhook?: { target: string; secret: string };
  logger?: Logger;
}

export type Activities = SubprojectActivities &
  VerificationActivities &
  ProvisioningActivities &
  SenderIdActivities &
  SenderIdLinkActivities &
  VoiceActivities &
  OnboardingActivities &
  ProcessEventActivities;

export function createActivities(deps: ActivityDeps): Activities {
  return {
    ...createSubprojectActivities(deps.clients),
    ...createProvisioningActivities({
      provisioning: deps.clients.provisioning,
      temporal: deps.temporal,
      links: deps.links,
      inboxIdleMs: deps.inboxIdleMs,
      ownWebhook: deps.provisioningWebhook,
      logger: deps.logger,
    }),
    ...createVerificationActivities(deps.clients, deps.receipts),
    ...createSenderIdActivities({ senderid: deps.clients.senderid, temporal: deps.temporal, links: deps.links }),
    ...createVoiceActivities(deps.clients),
    ...createOnboardingActivities({ provisioning: deps.clients.provisioning, senderid: deps.clients.senderid, temporal: deps.temporal }),
    ...createProcessEventActivities(deps.events),
  };
}
