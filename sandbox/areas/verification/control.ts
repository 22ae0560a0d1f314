// Test controls under /_sandbox/verification (no authentication, like the core's /_sandbox routes):
// what a phone received, the callee answering a Phone Call, the per-sandbox settings, pumping-like traffic, and the
// app's SDK on a device (a verification started and reported without the application's backend).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import { AreaError } from '../../core/errors.js';
import { statusView } from './store.js';
import { patchProblem, SMS_DELIVERED_EVENT_NAMES } from './config.js';
import { parseStart, type ReportInput } from './validate.js';
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
const SdkStartBody = Type.Object(
  {
    identity: Type.String({ minLength: 1, description: 'E.164' }),
    method: Type.Optional(Type.String({ minLength: 1, description: 'sms (default), flashcall, callout, seamless, whatsapp' })),
    reference: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);
const SdkReportBody = Type.Object(
  { code: Type.String({ minLength: 1, description: 'The code, or the CLI of a flash call' }) },
  { additionalProperties: false },
);
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

  // The SDK starts as the platform's start does (its VerificationRequestEvent asks the application first: a deny is a
  // 403 40300 here too), for the sandbox's first account; it answers the verification's status.
  app.post('/sdk/verifications', { schema: { body: SdkStartBody } }, async (request) => {
    const b = request.body;
    const input = parseStart({
      identity: { type: 'number', endpoint: b.identity },
      method: b.method ?? 'sms',
      ...(b.reference ? { reference: b.reference } : {}),
    });
    return statusView(await s.service.start(input, s.ctx.accounts.all[0]!, []));
  });

  // The SDK reports the code (or the flash call's CLI) it read on the device, by the verification's ID.
  app.post('/sdk/verifications/:id/report', { schema: { params: IdParams, body: SdkReportBody } }, async (request) => {
    const v = s.store.getAnyApp(request.params.id);
    if (!v) throw new AreaError(404, `Verification not found: id ${request.params.id}`);
    if (v.method === 'seamless') throw new AreaError(400, `Verification ${v.id} is a Data verification: it completes on the device, not by a code`);
    const { code } = request.body;
    const report: ReportInput = v.method === 'flashcall' ? { method: v.method, cli: code } : { method: v.method, code };
    return s.service.report(v, report);
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
