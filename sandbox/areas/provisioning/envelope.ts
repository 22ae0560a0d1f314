// What a webhook delivery's body looks like. 'full' is the envelope docs/provisioning-wire.md describes
// (eventId, sequence, eventTime, details...); 'minimal' is only what the spec promises: the trigger, the
// comment and the resource's JSON as it is at the event, so receivers can be tested without the rest.
import type { ProvisioningStore } from './store.js';
import type { WebhookEvent } from './model.js';
import { fields } from './validation.js';

const ENVELOPE_SHAPES = ['full', 'minimal'] as const;
/** Where a minimal body carries the resource: under `resource`, `payload`, its type's name, or as the body. */
const RESOURCE_PLACES = ['resource', 'payload', 'type', 'top'] as const;

export interface EnvelopeSetting {
  shape: (typeof ENVELOPE_SHAPES)[number];
  resourceAt: (typeof RESOURCE_PLACES)[number];
}

export const fullEnvelope = (): EnvelopeSetting => ({ shape: 'full', resourceAt: 'resource' });

export function checkEnvelope(input: unknown): EnvelopeSetting {
  const f = fields();
  const body = f.body(input ?? {}, ['shape', 'resourceAt']);
  const out = { shape: f.oneOf(body, 'shape', '', ENVELOPE_SHAPES) ?? 'full', resourceAt: f.oneOf(body, 'resourceAt', '', RESOURCE_PLACES) ?? 'resource' };
  f.check();
  return out;
}

/** The resource's JSON now (a copy: later changes must not reach an event already emitted). */
function resourceJson(store: ProvisioningStore, e: WebhookEvent): Record<string, unknown> {
  const item =
    e.resourceType === 'TEMPLATE'
      ? (e.channel === 'CHATA' ? store.chataTemplates : store.chatbTemplates).find(e.resourceId)?.item
      : e.resourceType === 'SENDER'
        ? (e.channel === 'RCS' ? store.rcsSenders : e.channel === 'CHATA' ? store.chataSenders : store.chatbSenders).find(e.resourceId)?.item
        : e.channel === 'CHATA'
          ? store.chataAccounts.find(e.resourceId)?.item
          : undefined;
  return structuredClone((item ?? { id: e.resourceId, projectId: e.projectId }) as Record<string, unknown>);
}

/** The body to send for an event under the setting. */
export function wireBody(setting: EnvelopeSetting, store: ProvisioningStore, e: WebhookEvent): Record<string, unknown> {
  if (setting.shape === 'full') return { ...e };
  const json = resourceJson(store, e);
  const head = { trigger: e.trigger, ...(e.comment !== undefined ? { comment: e.comment } : {}) };
  if (setting.resourceAt === 'top') return { ...json, ...head };
  const key = setting.resourceAt === 'type' ? e.resourceType.toLowerCase() : setting.resourceAt;
  return { ...head, [key]: json };
}
