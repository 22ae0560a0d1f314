// Control routes of the provisioning area under /_sandbox/provisioning (no authentication, like
// the rest of /_sandbox): the simulated reviewers, reviewer-made events, webhook faults, and the
// webhook body's shape (the full envelope, or only the trigger, comment and resource JSON).
import type { FastifyInstance } from 'fastify';
import { callbackFaultRoutes, type CallbackFaultSetting } from '../../core/callback-hub.js';
import type { ProvisioningDeps } from './context.js';
import { applyControlEvent } from './events.js';
import { chataAccountControl } from './chata-account.js';
import { chataVerificationControl } from './chata-verification.js';
import { senderHealthControl } from './sender-health.js';
import { checkEnvelope, fullEnvelope } from './envelope.js';
import { fields } from './validation.js';

function checkFaults(input: unknown): CallbackFaultSetting {
  const f = fields();
  const body = f.body(input ?? {}, ['delayMs', 'duplicate', 'reorder', 'drop']);
  const out: CallbackFaultSetting = {
    delayMs: f.integer(body, 'delayMs', '', { min: 0, max: 600_000 }) ?? 0,
    duplicate: f.integer(body, 'duplicate', '', { min: 0 }) ?? 0,
    reorder: f.boolean(body, 'reorder', '') ?? false,
    drop: f.integer(body, 'drop', '', { min: 0 }) ?? 0,
  };
  f.check();
  return out;
}

/** The area's control routes; the core mounts them under /_sandbox/provisioning. */
export function provisioningControlRoutes(app: FastifyInstance, deps: ProvisioningDeps): void {
  const { hub, reviewer } = deps;

  app.get('/reviewer', async () => reviewer.config);
  app.put('/reviewer', async (request) => reviewer.set(request.body ?? {}));

  app.get('/events', async () => ({ events: hub.events() }));
  app.post('/events', async (request) => applyControlEvent(deps, request.body));

  callbackFaultRoutes(app, '/webhook-faults', hub.hub, checkFaults);

  chataVerificationControl(app, (senderId) => deps.store.chataSenders.find(senderId)?.item);
  chataAccountControl(app, deps);
  senderHealthControl(app, deps);

  app.get('/webhook-envelope', async () => hub.envelope);
  // Like webhook-faults: fields left out return to the full envelope's defaults. Applies to events emitted after it.
  app.put('/webhook-envelope', async (request) => {
    hub.envelope = { ...fullEnvelope(), ...checkEnvelope(request.body) };
    return hub.envelope;
  });
}
