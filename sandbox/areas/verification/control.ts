// Test controls under /_sandbox/verification (no authentication, like the core's /_sandbox routes):
// what a phone received, the callee answering a Phone Call, the per-sandbox settings, and pumping-like traffic.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { AreaError } from '../../core/errors.js';
import { statusView } from './store.js';
import { patchProblem, SMS_DELIVERED_EVENT_NAMES } from './config.js';
import type { VerificationArea } from './state.js';
import { registerPumpingTraffic } from './pumping-traffic.js';

const Polling = Type.Object(
  {
    startPollingAfter: Type.Number({ minimum: 0 }),
    stopPollingAfter: Type.Number({ exclusiveMinimum: 0 }),
    pollingInterval: Type.Number({ exclusiveMinimum: 0 }),
  },
  { additionalProperties: false },
);

const ConfigBody = Type.Object(
  {
    callbackUrl: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Null()])),
    defaultLanguage: Type.Optional(Type.String({ minLength: 1 })),
    undeliverableNumbers: Type.Optional(Type.Array(Type.String())),
    unreachableNumbers: Type.Optional(Type.Array(Type.String())),
    expiryMs: Type.Optional(Type.Integer({ minimum: 1 })),
    carrierLanguageOverrides: Type.Optional(Type.Record(Type.String(), Type.String())),
    callout: Type.Optional(Polling),
    smsDeliveredEventName: Type.Optional(Type.Union(SMS_DELIVERED_EVENT_NAMES.map((n) => Type.Literal(n)))),
    whatsappEnabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const AnsweredBody = Type.Object({ code: Type.String() }, { additionalProperties: false });
const IdParams = Type.Object({ id: Type.String({ minLength: 1 }) });
const PhoneParams = Type.Object({ endpoint: Type.String({ minLength: 1 }) });

/** The area's control routes; the core mounts them under /_sandbox/verification. */
export function registerVerificationControl(scope: FastifyInstance, s: VerificationArea): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/phones/:endpoint', { schema: { params: PhoneParams } }, async (request) => ({
    messages: s.phones.messages(request.params.endpoint),
  }));

  app.post('/:id/callout-answered', { schema: { params: IdParams, body: AnsweredBody } }, async (request) => {
    const v = s.store.getAnyApp(request.params.id);
    if (!v) throw new AreaError(404, `Verification not found: id ${request.params.id}`);
    s.service.answerCallout(v, request.body.code);
    return statusView(v);
  });

  app.get('/config', async () => s.config.view());

  app.put('/config', { schema: { body: ConfigBody } }, async (request) => {
    const problem = patchProblem(request.body);
    if (problem) {
      throw new AreaError(400, `Invalid request: field '${problem.field}' ${problem.description}`, { details: [problem] });
    }
    s.config.update(request.body);
    return s.config.view();
  });

  registerPumpingTraffic(scope);
}
