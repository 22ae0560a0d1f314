// Provisioning interface (area G): the client's own helpers over the webhook triggers. The wire shapes (states,
// enums, trigger names, the event's details: docs/provisioning-wire.md) are in common/wire/provisioning.ts,
// shared with the sandbox.
import {
  BUNDLE_TRIGGERS,
  CHATA_TRIGGERS,
  CHATB_TRIGGERS,
  RCS_TRIGGERS,
  type ProvisioningChannel,
  type ProvisioningResourceType,
  type ProvisioningTrigger,
} from '../../common/wire/provisioning.js';

export const PROVISIONING_TRIGGERS: readonly ProvisioningTrigger[] = [...CHATA_TRIGGERS, ...RCS_TRIGGERS, ...CHATB_TRIGGERS, ...BUNDLE_TRIGGERS];

export function isProvisioningTrigger(value: unknown): value is ProvisioningTrigger {
  return typeof value === 'string' && (PROVISIONING_TRIGGERS as readonly string[]).includes(value);
}

/**
 * The channel and resource type a trigger names, or undefined for triggers of no provisioning resource
 * (the conversation ones). CHATA_WABA_ACCOUNT_CHANGED reports a CHATA sender's state, so it names a SENDER.
 */
export function triggerTarget(trigger: string): { channel: ProvisioningChannel; resourceType: ProvisioningResourceType } | undefined {
  if (trigger === 'CHATA_WABA_ACCOUNT_CHANGED') return { channel: 'CHATA', resourceType: 'SENDER' };
  // A bundle belongs to no channel: its inbox is resource:PROJECT:BUNDLE:<bundleId> (docs/bundle-wire.md).
  if ((BUNDLE_TRIGGERS as readonly string[]).includes(trigger)) return { channel: 'PROJECT', resourceType: 'BUNDLE' };
  const m = /^(CHATA|CHATB|RCS)_(TEMPLATE|SENDER|ACCOUNT)_/.exec(trigger);
  return m ? { channel: m[1] as ProvisioningChannel, resourceType: m[2] as ProvisioningResourceType } : undefined;
}
