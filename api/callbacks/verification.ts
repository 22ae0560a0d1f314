// The platform's verification callbacks: signed with the application secret, answered fast. Requests are
// allowed or denied by the geo rules and the per-number guard; results and Failed SMS receipts become signals to their
// process. A Successful receipt only needs recording: it is kept in the store (a 503 when the store does not take it,
// so the platform sends it again) until the next message the process gets anyway carries it, this intake's signals
// included (the API's updates too: routes/verification/index.ts). Without a store it is signalled like the rest.
// A verification relayflow did not start (an SDK's) is adopted: each of its events, the request with relayflow's
// answer, is handed to its own process (`sdk-verification:<id>`, signal-with-start) before the answer goes back.
// Schema-first: one TypeBox schema per event, checked after the signature (which covers the raw bytes).
// Extra fields are allowed: the platform may add some.
import { createHash } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { ErrorObject } from 'ajv';
import Type, { type Static, type TSchema } from 'typebox';
import { verifyApplicationCallback } from '../../common/signing.js';
import { verificationIdOfEvent } from '../../processes/verification/verification/kind.js';
import { platformEventSignal, type PlatformVerificationEvent } from '../../processes/verification/contract.js';
import type { RequestAnswer, SdkVerificationEvent } from '../../processes/verification/sdk-verification/contract.js';
import { VERIFICATION_CALLBACK_PATH } from '../../contracts/callbacks.js';
import { ApiError } from '../errors.js';
import { validationDetails, validatorCompiler } from '../plugins/validation.js';
import type { HandOffContext, IntakePipeline } from './intake.js';
import type { VerificationService } from '../../processes/verification/routes/service.js';

const Str = Type.String({ minLength: 1 });
const Common = {
  id: Str,
  method: Str,
  identity: Type.Object({ type: Type.Optional(Type.String()), endpoint: Str }),
  reference: Type.Optional(Type.String()),
  /** relayflow's routing token for verifications it started. */
  custom: Type.Optional(Type.String()),
};
const VerificationRequestEvent = Type.Object({ event: Type.Literal('VerificationRequestEvent'), ...Common });
const VerificationResultEvent = Type.Object({
  event: Type.Literal('VerificationResultEvent'),
  ...Common,
  status: Str,
  reason: Type.Optional(Type.String()),
  source: Type.Optional(Type.String()),
});
/** The spec names it SmsDeliveredEvent, the platform sends VerificationSmsDeliveredEvent: both are accepted. */
const SMS_DELIVERED_EVENTS = ['SmsDeliveredEvent', 'VerificationSmsDeliveredEvent'] as const;
const SmsDeliveredEvent = Type.Object({
  event: Type.Union(SMS_DELIVERED_EVENTS.map((e) => Type.Literal(e))),
  ...Common,
  smsResult: Type.Union([Type.Literal('Successful'), Type.Literal('Failed')]),
});
const Envelope = Type.Object({ event: Str });

type RequestEvent = Static<typeof VerificationRequestEvent>;
type ResultEvent = Static<typeof VerificationResultEvent>;
type DeliveredEvent = Static<typeof SmsDeliveredEvent>;

/** A check of one schema that throws 400 naming the broken fields (body.id, body.smsResult). */
function checker<S extends TSchema>(schema: S): (body: unknown) => Static<S> {
  const validate = validatorCompiler({ schema, method: 'POST', url: VERIFICATION_CALLBACK_PATH, httpPart: 'body' }) as ((b: unknown) => boolean) & {
    errors?: ErrorObject[] | null;
  };
  return (body) => {
    if (validate(body)) return body as Static<S>;
    const details = validationDetails(validate.errors ?? [], 'body');
    throw new ApiError(400, 'validation_failed', details.map((d) => `${d.field}: ${d.message}`).join('; '), details);
  };
}
const check = {
  envelope: checker(Envelope),
  request: checker(VerificationRequestEvent),
  result: checker(VerificationResultEvent),
  delivered: checker(SmsDeliveredEvent),
};

export interface VerificationCallbackOptions {
  intakes: IntakePipeline;
  client: Client;
  verifications: VerificationService;
  appKey: string;
  appSecret: string;
  /** How long the guard may take to decide a VerificationRequestEvent (the platform waits about 5 s). */
  decideWaitMs?: number;
}

const eventIdOf = (kind: string, b: { id: string; status?: string; reason?: string; smsResult?: string }) =>
  createHash('sha256')
    .update(JSON.stringify([kind, b.id, b.status ?? '', b.reason ?? '', b.smsResult ?? '']))
    .digest('base64url');

function toSignal(body: ResultEvent | DeliveredEvent): PlatformVerificationEvent {
  if ('smsResult' in body) return { eventId: eventIdOf('sms-delivered', body), kind: 'sms-delivered', verificationId: body.id, smsResult: body.smsResult };
  return { eventId: eventIdOf('result', body), kind: 'result', verificationId: body.id, status: body.status, ...(body.reason ? { reason: body.reason } : {}) };
}

/** An event of a verification relayflow did not start, for its adopted process; the same event always has the same ID. */
function toAdopted(body: RequestEvent | ResultEvent | DeliveredEvent, answer?: RequestAnswer): SdkVerificationEvent {
  const common = {
    at: new Date().toISOString(),
    verificationId: body.id,
    method: body.method,
    identity: body.identity.endpoint,
    ...(body.reference ? { reference: body.reference } : {}),
  };
  if (body.event === 'VerificationRequestEvent') return { ...common, eventId: eventIdOf('request', body), kind: 'request', ...(answer ? { answer } : {}) };
  if (body.event === 'VerificationResultEvent')
    return {
      ...common,
      eventId: eventIdOf('result', body),
      kind: 'result',
      status: body.status,
      ...(body.reason ? { reason: body.reason } : {}),
      ...(body.source ? { source: body.source } : {}),
    };
  const delivered = body as DeliveredEvent;
  return { ...common, eventId: eventIdOf('sms-delivered', delivered), kind: 'sms-delivered', smsResult: delivered.smsResult };
}

/** What a verification callback is, once read. */
type VerificationCallback =
  | { kind: 'request'; body: RequestEvent }
  /** A result or receipt of a verification relayflow did not start: for its adopted process. */
  | { kind: 'adopted'; body: ResultEvent | DeliveredEvent }
  /** A result or receipt of one relayflow started: a signal to its process (a Successful receipt is kept in the store). */
  | { kind: 'signal'; processId: string; signal: PlatformVerificationEvent };

export const verificationCallbackRoutes: FastifyPluginAsync<VerificationCallbackOptions> = async (
  app,
  { intakes, client, verifications, appKey, appSecret, decideWaitMs = 4_000 },
) => {
  intakes.route<VerificationCallback>(app, {
    intake: 'verification',
    url: VERIFICATION_CALLBACK_PATH,
    verify: (req) => verifyApplicationCallback(req, appKey, appSecret),
    read: (req, _rawBody, log) => {
      const { event } = check.envelope(req.body);
      if (event === 'VerificationRequestEvent') {
        const body = check.request(req.body);
        // Verifications relayflow started (token in custom, or in reference before it moved) were admitted already.
        if (verificationIdOfEvent(body)) return { answer: { body: { action: 'allow' } } };
        return { eventId: eventIdOf('request', body), event: { kind: 'request', body }, dedupe: 'hand-off' };
      }
      let body: ResultEvent | DeliveredEvent;
      if (event === 'VerificationResultEvent') body = check.result(req.body);
      else if ((SMS_DELIVERED_EVENTS as readonly string[]).includes(event)) body = check.delivered(req.body);
      else {
        // Never guess: an event we do not know changes nothing, and is acknowledged so it is not resent.
        log.warn({ event }, 'unknown verification callback event acknowledged and ignored');
        return { answer: { body: {} } };
      }
      const processId = verificationIdOfEvent(body);
      // Not started by relayflow (an SDK verification): recorded by its adopted process, then acknowledged.
      if (!processId) return { eventId: toAdopted(body).eventId, event: { kind: 'adopted', body } };
      const signal = toSignal(body);
      // A Successful receipt's row in the store claims its event ID in the same statement.
      return { eventId: signal.eventId, event: { kind: 'signal', processId, signal }, dedupe: signal.smsResult === 'Successful' ? 'hand-off' : 'pipeline' };
    },
    handOff: async (cb, ctx) => {
      if (cb.kind === 'request') return { answer: { body: await decide(cb.body, ctx) } };
      if (cb.kind === 'adopted') {
        await verifications.adopt(toAdopted(cb.body), ctx.log);
        return { answer: { body: {} } };
      }
      const { processId, signal } = cb;
      if (signal.smsResult === 'Successful') {
        if (await verifications.recordReceipt(processId, { ...signal, smsResult: 'Successful' }, ctx.log)) return { answer: { body: {} } };
        // No store: signalled like the rest, claimed like the rest.
        if ((await ctx.claim()) !== 'new') return { answer: { body: { duplicate: true } }, duplicate: true };
      }
      try {
        await verifications.carrying(processId, ctx.log, (carried) =>
          client.workflow.getHandle(processId).signal(platformEventSignal, { ...signal, ...carried }),
        );
      } catch (err) {
        // A finished or unknown process has nothing left to learn; anything else (Temporal down) must be
        // retried by the platform, so it is not acknowledged.
        if (!(err instanceof WorkflowNotFoundError)) throw err;
        ctx.log.info({ processId, kind: signal.kind }, 'callback for a process that has ended');
      }
      return { answer: { body: {} } };
    },
  });

  /**
   * allow or deny, by the geo rules and the per-number guard. The admission is keyed by the platform's verification
   * ID, so a repeat (at any API instance) is admitted again without counting twice and gets the same answer; only the
   * delivery that claims the event hands it to the adopted process.
   */
  async function decide(body: RequestEvent, { log, claim }: HandOffContext): Promise<{ action: 'allow' | 'deny' }> {
    const deadline = Date.now() + decideWaitMs;
    const first = (await claim()) === 'new';
    // The hand-over shares the platform's wait with the decision, with a moment of its own if the decision took it all.
    const handOverBy = () => Math.max(deadline, Date.now() + 500);
    let admission: Awaited<ReturnType<VerificationService['admit']>>;
    try {
      admission = await verifications.admit(body.identity.endpoint, `platform:${body.id}`, [body.method], deadline);
    } catch (err) {
      // No answer in time: the platform refuses the verification ("Invalid callback"); the process says why.
      const why = `relayflow could not decide: ${(err as Error).message}`;
      if (first) await verifications.adopt(toAdopted(body, { action: 'error', why }), log, handOverBy()).catch(() => undefined);
      throw err;
    }
    const { admitted, refusedBy } = admission;
    if (!admitted) log.warn({ verificationId: body.id, refusedBy }, `verification request denied by the ${refusedBy ?? 'per-number guard'}`);
    const why = admitted ? 'within the geo rules and the per-number guard' : `refused by the ${refusedBy ?? 'per-number guard'}`;
    // Recorded before the answer: a verification relayflow could not record is refused (503), never let through unseen.
    if (first) await verifications.adopt(toAdopted(body, { action: admitted ? 'allow' : 'deny', why }), log, handOverBy());
    return { action: admitted ? 'allow' : 'deny' };
  }
};
