// Control routes of the provisioning area under /_sandbox/provisioning (no authentication, like
// the rest of /_sandbox): the simulated reviewers, reviewer-made events, webhook faults.
import type { FastifyInstance } from 'fastify';
import { noWebhookFaults, type WebhookFaults } from './delivery.js';
import type { ProvisioningDeps } from './context.js';
import { applyControlEvent } from './events.js';
import { Fields } from './validation.js';

export const CONTROL_PREFIX = '/_sandbox/provisioning';

function checkFaults(input: unknown): WebhookFaults {
  const f = new Fields();
  const body = f.body(input ?? {}, ['delayMs', 'duplicate', 'reorder', 'drop']);
  const out: WebhookFaults = {
    delayMs: f.integer(body, 'delayMs', '', { min: 0, max: 600_000 }) ?? 0,
    duplicate: f.integer(body, 'duplicate', '', { min: 0 }) ?? 0,
    reorder: f.boolean(body, 'reorder', '') ?? false,
    drop: f.integer(body, 'drop', '', { min: 0 }) ?? 0,
  };
  f.check();
  return out;
}

/**
 * Area routes are mounted under the area's prefix; these belong under /_sandbox, so they are added
 * on the root instance (an encapsulated Fastify instance inherits from its parent's prototype).
 */
export function rootOf(app: FastifyInstance): FastifyInstance {
  let current = app;
  while (current.prefix !== '') current = Object.getPrototypeOf(current) as FastifyInstance;
  return current;
}

export function provisioningControlRoutes(app: FastifyInstance, deps: ProvisioningDeps): void {
  const { hub, reviewer } = deps;
  const p = CONTROL_PREFIX;

  app.get(`${p}/reviewer`, async () => reviewer.config);
  app.put(`${p}/reviewer`, async (request) => reviewer.set(request.body ?? {}));

  app.get(`${p}/events`, async () => ({ events: hub.events() }));
  app.post(`${p}/events`, async (request) => applyControlEvent(deps, request.body));

  app.get(`${p}/webhook-faults`, async () => hub.faults);
  // PUT replaces the whole setting: fields left out are cleared.
  app.put(`${p}/webhook-faults`, async (request) => {
    hub.faults = { ...noWebhookFaults(), ...checkFaults(request.body) };
    return hub.faults;
  });
}
