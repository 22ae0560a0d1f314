// Phone-number verification: start (behind the geo permissions and the per-number guard), report, resend, cancel,
// read and look up; the geo permissions' own routes (geo-routes.ts). A report, resend or cancel carries the process's
// SMS receipts waiting in the store (service.ts), and a read shows one its process has not been handed yet.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import Type from 'typebox';
import type { Logger } from '../../../common/logger.js';
import type { VerificationClient } from '../../../platform/verification/client.js';
import { cancelUpdate, reportUpdate, resendUpdate, VERIFICATION_METHODS, type CarriesReceipts, type ReportOutcome } from '../contract.js';
import { ApiError, errorResponses, notFound, unprocessable } from '../../../api/errors.js';
import { onPlatform, PLATFORM_STATUSES } from '../../../api/platform-errors.js';
import { handleOf, IdempotencyKey, operationId, runUpdate } from '../../../api/processes/update.js';
import type { ProcessService } from '../../../api/processes/find.js';
import { e164, PhoneNumber, ProcessView } from '../../../api/schemas.js';
import { processRouter } from '../../../api/routes/process-routes.js';
import { checkCodeOptions, CodeOptions } from './code-options.js';
import { geoRuleRoutes } from './geo-routes.js';
import { limitRoutes, RateLimitKeys } from './limit-routes.js';
import type { VerificationService } from './service.js';
import { verification as verificationKind } from '../verification/kind.js';

const Method = Type.Union(
  VERIFICATION_METHODS.map((m) => Type.Literal(m)),
  { description: 'sms, flashcall, callout (Phone Call), seamless (Data) or whatsapp (accounts that have it)' },
);
const Identity = PhoneNumber();

const StartBody = Type.Object(
  {
    identity: Identity,
    method: Type.Optional(Method),
    fallback: Type.Optional(
      Type.Array(
        Type.Object({ method: Method, timeoutSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400 })) }, { additionalProperties: false }),
        { minItems: 1, maxItems: 4, description: 'Methods tried in order, each for its timeout' },
      ),
    ),
    reference: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 128,
        pattern: '^[A-Za-z0-9._:-]+$',
        description: 'Your reference; NOT encrypted (it is searchable): no personal data',
      }),
    ),
    custom: Type.Optional(Type.String({ maxLength: 4096 })),
    rateLimits: Type.Optional(RateLimitKeys),
    language: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$',
        description: "The message's language, e.g. es-ES: sent as Accept-Language, and as the SMS template's locale",
      }),
    ),
    code: Type.Optional(CodeOptions),
    policy: Type.Optional(
      Type.Object(
        {
          codeExpirySeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400 })),
          maxReportAttempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 20 })),
          resendCooldownSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 3_600 })),
          maxResends: Type.Optional(Type.Integer({ minimum: 0, maximum: 10 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

const Code = Type.Object(
  { code: Type.String({ minLength: 1, maxLength: 32, pattern: '^[A-Za-z0-9+]+$', description: 'The SMS or Phone Call code, or the FlashCall CLI' }) },
  { additionalProperties: false },
);

export interface VerificationRouteOptions {
  client: Client;
  processes: ProcessService;
  verifications: VerificationService;
  platform: VerificationClient;
}

const reportReply = async (outcome: ReportOutcome, service: VerificationService) => {
  if (!outcome.accepted) throw new ApiError(409, 'report_not_accepted', outcome.reason ?? 'not accepted');
  const { pumping, ...answer } = outcome;
  // The process names its prefix's guard (the prefix; a `...:<prefix>` form is read the same way).
  if (pumping) await service.pumping.succeeded(pumping.guardId.slice(pumping.guardId.lastIndexOf(':') + 1));
  return answer;
};

/** How often an instance sweeps the guards' idle rows out of the store (store/verification-*.ts). */
const SWEEP_EVERY_MS = 60_000;

export const verificationRoutes: FastifyPluginAsyncTypebox<VerificationRouteOptions> = async (app, { client, processes, verifications: service, platform }) => {
  // Its start goes through the guards (VerificationService), not a start by key: no task queue.
  const verifications = processRouter(app, { client, processes }, '/v1/verifications', 'verification');

  verifications.start({
    summary: 'Start verifying a phone number; answers once the platform accepted it',
    description:
      'Answers within the API deadline (20 s): 201 with the state (PENDING; ERROR with reason platform_unavailable when the platform did not accept the start in time; DENIED), ' +
      "403 geo_blocked naming the rule when the geo permissions refuse a step's method for the number (nothing is started or sent; a fallback chain is refused whole), " +
      '429 rate_limited naming the limit (by a key in rateLimits, by country or by prefix) and 429 pumping_suspected when the SMS-pumping guard blocked the ' +
      "number's prefix, each with Retry-After (nothing is started or sent); 429 too_many_verifications past the per-number limit. " +
      'With an Idempotency-Key (per number), a retried start reaches the same process and answers its state without sending again; 409 once that process has ended. ' +
      '504 process_timeout naming the processId when the process did not answer (read it later: it never sends once the deadline has passed, it ends ABANDONED), 503 when Temporal is unreachable.',
    idempotencyKey: true,
    body: StartBody,
    responses: {
      201: Type.Object({ processId: Type.String(), state: Type.String(), reason: Type.Optional(Type.String()), current: Type.Optional(Type.Unknown()) }),
    },
    errors: [400, 401, 403, 409, 422, 429, 503, 504],
    start: async ({ body: b, headers }) => {
      if (!b.method === !b.fallback) throw unprocessable('body.method', 'one_of', 'give exactly one of method or fallback');
      const identity = e164(b.identity, 'body.identity');
      const steps = b.fallback ?? [{ method: b.method! }];
      if (b.code) checkCodeOptions(steps);
      const { processId, outcome } = await service.start({
        identity,
        steps,
        ...(b.reference ? { reference: b.reference } : {}),
        ...(b.custom ? { custom: b.custom } : {}),
        ...(b.language ? { language: b.language } : {}),
        ...(b.code ? { code: b.code } : {}),
        ...(b.policy ? { policy: b.policy } : {}),
        ...(headers['idempotency-key'] ? { idempotencyKey: headers['idempotency-key'] } : {}),
        ...(b.fallback ? { fallback: true } : {}),
        ...(b.rateLimits ? { rateLimits: b.rateLimits } : {}),
      });
      return { status: 201, body: { processId, ...outcome } };
    },
  });

  verifications.read({ summary: 'A verification process' });

  await app.register(geoRuleRoutes, { geo: service.geo, waitMs: service.waitMs });
  await app.register(limitRoutes, { limits: service.limits, pumping: service.pumping, waitMs: service.waitMs });
  service.pumping.log ??= app.log;
  processes.addPendingDetails('verification', (processId, details) => service.withPendingReceipt(processId, details, app.log));
  /** Runs an update of the process carrying its receipts waiting in the store (service.ts). */
  const updateCarrying = <R, A extends CarriesReceipts>(
    handle: WorkflowHandle,
    update: UpdateDefinition<R, [A]>,
    arg: Omit<A, 'receipts'>,
    log: Pick<Logger, 'warn'>,
  ) => service.carrying(handle.workflowId, log, (carried) => runUpdate(client, handle, update, [{ ...arg, ...carried } as A], { what: 'verification' }));
  // Each instance sweeps on its own timer: the DELETEs are idempotent, and the guards are right whether or not a row
  // was swept yet (every admission and count prunes what aged out of its window).
  const sweeping = setInterval(() => {
    service.sweep().catch((err: unknown) => app.log.warn({ err }, 'the verification guards could not be swept; the next sweep tries again'));
  }, SWEEP_EVERY_MS);
  sweeping.unref();
  app.addHook('onClose', async () => clearInterval(sweeping));

  verifications.action({
    action: 'report',
    summary: 'Report the code (SMS, Phone Call) or CLI (FlashCall); a wrong one counts as an attempt',
    body: Code,
    responses: { 200: Type.Unknown() },
    errors: [400, 401, 404, 409],
    act: async (req, _reply, handle) =>
      reportReply(await updateCarrying(handle, reportUpdate, { code: req.body.code, operationId: operationId(req.headers) }, req.log), service),
  });

  app.post(
    '/v1/verifications/by-identity/:identity/report',
    {
      schema: {
        tags: [verificationKind.collection.tag],
        summary: "Report a code for the number's newest verification",
        params: Type.Object({ identity: Identity }),
        headers: IdempotencyKey,
        body: Code,
        response: { 200: Type.Unknown(), ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (req) => {
      const identity = e164(req.params.identity, 'path.identity');
      const newest = (await service.recent(identity))[0];
      if (!newest) throw notFound('a verification for this number');
      const handle = handleOf(client, newest.processId, ['verification'], 'verification');
      const request = { code: req.body.code, operationId: operationId(req.headers) };
      return reportReply(await updateCarrying(handle, reportUpdate, request, req.log), service);
    },
  );

  verifications.action({
    action: 'resend',
    summary: 'Send the code again (cooldown and limit apply)',
    responses: { 200: Type.Unknown() },
    errors: [401, 404, 409, 429],
    act: async (req, _reply, handle) => {
      const outcome = await updateCarrying(handle, resendUpdate, { operationId: operationId(req.headers) }, req.log);
      if (!outcome.resent && outcome.retryAfterMs)
        throw new ApiError(429, 'resend_too_soon', outcome.reason ?? 'try again later', undefined, outcome.retryAfterMs);
      if (!outcome.resent) throw new ApiError(409, 'resend_not_allowed', outcome.reason ?? 'not allowed');
      return outcome;
    },
  });

  verifications.action({
    action: 'cancel',
    summary: 'Cancel a verification',
    responses: { 200: Type.Object({ state: Type.String() }) },
    errors: [401, 404, 409],
    act: async (req, _reply, handle) => updateCarrying(handle, cancelUpdate, { operationId: operationId(req.headers) }, req.log),
  });

  app.get(
    '/v1/verifications',
    {
      schema: {
        tags: [verificationKind.collection.tag],
        summary: 'Status by identity and method, or by reference: from the process, else from the platform',
        querystring: Type.Object(
          {
            identity: Type.Optional(Identity),
            method: Type.Optional(Method),
            reference: Type.Optional(
              Type.String({ minLength: 1, maxLength: 128, pattern: '^[^\\u0000-\\u001F\\u007F]+$', description: 'No control characters' }),
            ),
          },
          { additionalProperties: false },
        ),
        // 503 and 504: Temporal's visibility unreachable or too slow for the look-up by reference.
        response: {
          200: Type.Object({ source: Type.String(), process: Type.Optional(ProcessView), platform: Type.Optional(Type.Unknown()) }),
          ...errorResponses(400, 401, ...PLATFORM_STATUSES, 503, 504),
        },
      },
    },
    async (req) => {
      const q = req.query;
      if (q.reference && !q.identity) {
        const processId = await service.byReference(q.reference);
        if (processId) return { source: 'process', process: await processes.get(processId, 'verification') };
        return { source: 'platform', platform: await onPlatform('a verification', () => platform.statusByReference(q.reference!)) };
      }
      if (!q.identity || !q.method) throw unprocessable('query.identity', 'required', 'give identity and method, or reference');
      const identity = e164(q.identity, 'query.identity');
      const match = (await service.recent(identity)).find((a) => a.methods.includes(q.method!));
      if (match) return { source: 'process', process: await processes.get(match.processId, 'verification') };
      return { source: 'platform', platform: await onPlatform('a verification', () => platform.statusByIdentity(q.method!, identity)) };
    },
  );
};
