// Control routes under /_sandbox/senderid (no authentication, like the rest of /_sandbox):
//   GET|PUT /reviewer          review outcome, step delay, PENDING_APPROVAL, stop for attachments, uploads
//   GET|PUT /callback-faults   {delayMs, duplicate, reorder, drop} (PUT replaces: fields left out clear)
//   GET|PUT /callback-url      {url: string | null}: where callbacks go for registrations without callbackUrl
//   GET /callbacks             every callback the area made, with its fate (sent, dropped, held, no-url)
//   POST /registrations/{id}/state {state, message?}: force a state (e.g. ON_HOLD), with its log and callback
import type { FastifyInstance } from 'fastify';
import type { SenderIdDeps } from './context.js';
import { callbackFaultRoutes, noCallbackFaults, type CallbackFaultSetting } from '../../core/callback-hub.js';
import { REGISTRATION_STATES, type RegistrationState } from '../../../common/wire/senderid.js';
import { isObject } from '../../core/fields.js';
import { bodyObject, notFound, unknownKeys, violations } from './validate.js';

function checkFaults(input: unknown): CallbackFaultSetting {
  const body = input === undefined ? {} : bodyObject(input);
  const v = violations();
  unknownKeys(v, body, ['delayMs', 'duplicate', 'reorder', 'drop']);
  const out = noCallbackFaults();
  for (const key of ['delayMs', 'duplicate', 'drop'] as const) {
    const value = body[key];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || (value as number) < 0 || (key === 'delayMs' && (value as number) > 600_000))
      v.add(key, `${key} must be a non-negative integer`, 'range');
    else out[key] = value as number;
  }
  if (body.reorder !== undefined) {
    if (typeof body.reorder !== 'boolean') v.add('reorder', 'reorder must be a boolean', 'type');
    else out.reorder = body.reorder;
  }
  v.check('Invalid callback faults');
  return out;
}

export function senderIdControlRoutes(app: FastifyInstance, deps: SenderIdDeps): void {
  const { hub, reviewer, store } = deps;

  app.get('/reviewer', async () => reviewer.config);
  app.put('/reviewer', async (request) => reviewer.set(request.body ?? {}));

  callbackFaultRoutes(app, '/callback-faults', hub.hub, checkFaults);

  app.get('/callback-url', async () => ({ url: hub.defaultUrl ?? null }));
  app.put('/callback-url', async (request) => {
    const body = bodyObject(request.body);
    const v = violations();
    unknownKeys(v, body, ['url']);
    if (body.url !== null && (typeof body.url !== 'string' || !/^https?:\/\/\S+$/.test(body.url)))
      v.add('url', 'url must be an http(s) URL or null', 'pattern');
    v.check('Invalid request');
    hub.defaultUrl = (body.url as string | null) ?? undefined;
    return { url: hub.defaultUrl ?? null };
  });

  app.get('/callbacks', async () => ({ callbacks: hub.events() }));

  app.post<{ Params: { registrationId: string } }>('/registrations/:registrationId/state', async (request) => {
    const r = store.byId(request.params.registrationId);
    if (!r) throw notFound('Registration', request.params.registrationId);
    const body = isObject(request.body) ? request.body : {};
    const v = violations();
    unknownKeys(v, body, ['state', 'message']);
    if (!(REGISTRATION_STATES as readonly string[]).includes(body.state as string))
      v.add('state', `state must be one of ${REGISTRATION_STATES.join(', ')}`, 'enum');
    if (body.message !== undefined && typeof body.message !== 'string') v.add('message', 'message must be a string', 'type');
    v.check('Invalid request');
    reviewer.move(r, body.state as RegistrationState, (body.message as string | undefined) ?? `State set to ${String(body.state)} by the sandbox.`);
    return r;
  });
}
