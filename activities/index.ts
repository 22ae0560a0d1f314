// All activities of a worker, built from its platform clients. Their signatures live in contracts/
// (workflows proxy those interfaces and never import this layer; lint enforces it).
import type { Client } from '@temporalio/client';
import type { ProvisioningActivities } from '../contracts/provisioning.js';
import type { SubprojectActivities } from '../contracts/subprojects.js';
import type { VerificationActivities } from '../contracts/verification.js';
import type { SenderIdActivities } from '../contracts/senderid.js';
import type { SenderIdLinkActivities } from '../contracts/senderid-registration.js';
import type { VoiceActivities } from '../contracts/voice.js';
import type { OnboardingActivities } from '../contracts/onboarding.js';
import type { PlatformClients } from '../platform/index.js';
import type { ResourceLinkStore } from '../store/resource-links.js';
import type { SmsReceiptStore } from '../store/verification-receipts.js';
import { createProvisioningActivities } from './provisioning/index.js';
import { createSubprojectActivities } from './subprojects/index.js';
import { createVerificationActivities } from './verification/index.js';
import { createSenderIdActivities } from './senderid/index.js';
import { createVoiceActivities } from './voice/index.js';
import { createOnboardingActivities } from './onboarding/index.js';

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
}

export type Activities = SubprojectActivities &
  VerificationActivities &
  ProvisioningActivities &
  SenderIdActivities &
  SenderIdLinkActivities &
  VoiceActivities &
  OnboardingActivities;

export function createActivities(deps: ActivityDeps): Activities {
  return {
    ...createSubprojectActivities(deps.clients),
    ...createProvisioningActivities({ provisioning: deps.clients.provisioning, temporal: deps.temporal, links: deps.links, inboxIdleMs: deps.inboxIdleMs }),
    ...createVerificationActivities(deps.clients, deps.receipts),
    ...createSenderIdActivities({ senderid: deps.clients.senderid, temporal: deps.temporal, links: deps.links }),
    ...createVoiceActivities(deps.clients),
    ...createOnboardingActivities({ provisioning: deps.clients.provisioning, senderid: deps.clients.senderid, temporal: deps.temporal }),
  };
}
