// Sender ID registrations (area F): start a registration process by the caller's key, read and list them,
// update the registration, upload attachments (size and MIME checked before anything is sent; the bytes go
// to the platform from here and never enter Temporal's history), stop or delete; read-only look-ups of
// markets and policies. The policy pre-check answers 422 naming the field the way the platform would.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Client } from '@temporalio/client';
import Type from 'typebox';
import type { Config } from '../../../common/config.js';
import { workflowIds, type ProcessKind } from '../../../contracts/ids.js';
import {
  attachmentUploadedUpdate, FINAL_PROCESS_STATES, stopRegistrationUpdate, updateRegistrationUpdate,
  type SenderIdOperationOutcome, type SenderIdProcessState, type SenderIdRegistrationInput,
} from '../../../contracts/senderid-registration.js';
import { SENDERID_CALLBACK_PATH } from '../../../contracts/callbacks.js';
import { PlatformConflictError, PlatformError, PlatformNotFoundError, PlatformValidationError } from '../../../platform/errors.js';
import { REGISTRATION_TYPES, senderIdViolations, validateAttachment, validateRequestDetails, type Policy, type SenderIdClient } from '../../../platform/senderid/client.js';
import { ApiError, errorResponses, notFound, type ErrorDetail } from '../../errors.js';
import type { ProcessService } from '../../processes/find.js';
import { startProcess } from '../../processes/start.js';
import { handleOf, IdempotencyKey, operationId, runUpdate } from '../../processes/update.js';
import { Paging, ProcessId, ProcessList, ProcessView, StateFilter } from '../../schemas.js';

export interface SenderIdRouteOptions {
  client: Client;
  processes: ProcessService;
  config: Pick<Config, 'taskQueue' | 'platform' | 'processes' | 'api'>;
  senderId: SenderIdClient;
}

const KIND = 'senderid-registration' satisfies ProcessKind;
const KINDS: readonly ProcessKind[] = [KIND];
const self = (processId: string) => `/v1/senderid/registrations/${encodeURIComponent(processId)}`;

// Bounded so that no body the document allows exceeds the API's 1 MiB JSON limit, even all \u-escaped.
const Value = Type.String({ maxLength: 256 });
/** The platform's IDs (policies, attachment definitions): the characters and length its paths take. */
const PlatformId = (description?: string) => Type.String({ pattern: '^[A-Za-z0-9._-]{1,100}$', ...(description ? { description } : {}) });
const Section = Type.Array(Type.Record(Type.String({ minLength: 1, maxLength: 64 }), Value, { maxProperties: 10 }), { maxItems: 3 });
const RequestDetails = Type.Array(Type.Object({
  senderIdDetails: Type.Optional(Section),
  additionalDetails: Type.Optional(Section),
}, { additionalProperties: false }), { minItems: 1, maxItems: 3, description: 'As the platform takes them: inside each entry the objects of each array are merged' });
const Contacts = Type.Array(Type.String({ minLength: 1, maxLength: 320 }), { maxItems: 20 });
const RegistrationTypeSchema = Type.Enum([...REGISTRATION_TYPES]);

const StartRegistration = Type.Object({
  key: Type.String({ pattern: '^[A-Za-z0-9._-]{1,64}$', description: 'Your key for this registration: the business key of the process (may not start with reg-)' }),
  policyId: PlatformId('The policy (scope) the market requirements led to'),
  marketCode: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$', description: "Checked against the policy's" })),
  registrationType: Type.Optional(RegistrationTypeSchema),
  requestDetails: RequestDetails,
  notificationContacts: Type.Optional(Contacts),
  tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: 20 })),
  overdueGraceSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 31_536_000, description: "Report overdue this long after the platform's etaDate (default RELAYFLOW_SENDERID_OVERDUE_GRACE_MS)" })),
}, { additionalProperties: false });

const UpdateBody = Type.Object({
  requestDetails: Type.Optional(RequestDetails),
  notificationContacts: Type.Optional(Contacts),
}, { additionalProperties: false, minProperties: 1 });

const UploadBody = Type.Object({
  attachmentDefinitionId: PlatformId("The policy's attachment definition"),
  fileName: Type.String({ minLength: 1, maxLength: 255 }),
  mimeType: Type.String({ minLength: 1, maxLength: 255, pattern: '^[a-zA-Z0-9!#$&^_.+-]+/[a-zA-Z0-9!#$&^_.+-]+$' }),
  content: Type.String({ minLength: 4, maxLength: 1_000_000, pattern: '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$', description: 'The file, base64 (the JSON body is limited to 1 MiB)' }),
  documentType: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
}, { additionalProperties: false });

const StopBody = Type.Object({ reason: Type.Optional(Type.String({ maxLength: 512 })) }, { additionalProperties: false });

const Started = Type.Object({ processId: Type.String(), kind: Type.String(), created: Type.Boolean(), links: Type.Object({ self: Type.String() }) });
const Outcome = Type.Object({ accepted: Type.Boolean(), state: Type.String(), reason: Type.Optional(Type.String()) });
const UploadOutcome = Type.Object({ accepted: Type.Boolean(), state: Type.String(), reason: Type.Optional(Type.String()), attachment: Type.Record(Type.String(), Type.Unknown()) });

const invalid = (details: ErrorDetail[]) => new ApiError(422, 'validation_failed', details.map((d) => `${d.field}: ${d.message}`).join('; '), details);
const fromViolations = (vs: { field: string; rule: string; description: string }[], prefix = 'body.') =>
  vs.map((v) => ({ field: `${prefix}${v.field}`, rule: v.rule, message: v.description }));

/** A platform answer, in the API's words: 404, 409, 422, else 503 (the platform could not answer now). */
function platformError(err: unknown, what: string): unknown {
  if (err instanceof ApiError || !(err instanceof PlatformError)) return err;
  if (err instanceof PlatformNotFoundError) return notFound(what);
  if (err instanceof PlatformConflictError) return new ApiError(409, 'not_allowed', err.message);
  if (err instanceof PlatformValidationError) {
    const vs = senderIdViolations(err);
    return vs.length ? invalid(fromViolations(vs)) : new ApiError(422, 'platform_rejected', err.message);
  }
  // Any other refusal no retry can change (a 4xx): the request, as the platform read it.
  if (!err.retryable && err.httpStatus !== undefined && err.httpStatus >= 400 && err.httpStatus < 500) return new ApiError(422, 'platform_rejected', err.message);
  return new ApiError(503, 'platform_unavailable', `the platform did not answer: ${err.message}`, undefined, 5_000);
}

async function onPlatform<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw platformError(err, what);
  }
}

function acceptedOrThrow(o: SenderIdOperationOutcome): SenderIdOperationOutcome {
  if (o.accepted) return { accepted: true, state: o.state };
  if (o.violations?.length) throw invalid(fromViolations(o.violations));
  if (o.errorType === 'PlatformValidationError') throw new ApiError(422, 'platform_rejected', o.reason ?? 'the platform refused the change');
  throw new ApiError(409, 'not_allowed', o.reason ?? 'not allowed in the current state');
}

export const senderIdRoutes: FastifyPluginAsyncTypebox<SenderIdRouteOptions> = async (app, { client, processes, config, senderId }) => {
  const projectId = config.platform.credentials.projectId;
  const settings = config.processes.senderid;

  /** The policy, or a 422 naming `field` when the platform does not know it. */
  async function policyFor(policyId: string, field: string): Promise<Policy> {
    try {
      return await onPlatform(`policy ${policyId}`, () => senderId.policyRequirements(policyId));
    } catch (err) {
      if (err instanceof ApiError && err.statusCode === 404) throw invalid([{ field, rule: 'notFound', message: `policy ${policyId} does not exist` }]);
      throw err;
    }
  }

  /** The running process's details, or 404 / 409 when it has ended. */
  async function running(processId: string) {
    handleOf(client, processId, KINDS, 'sender ID registration');
    const view = await processes.get(processId, KIND);
    if (view.execution.status !== 'RUNNING' || FINAL_PROCESS_STATES.includes(view.state as SenderIdProcessState)) {
      throw new ApiError(409, 'process_ended', `the sender ID registration process ${processId} has already ended (${view.state})`);
    }
    return view.details as { registrationId?: string; policyId?: string };
  }

  app.post('/v1/senderid/registrations', {
    schema: {
      tags: ['senderid'],
      summary: 'Check a sender ID registration against its policy, create it and follow it to APPROVED or REJECTED',
      body: StartRegistration,
      response: { 202: Started, 200: Started, ...errorResponses(400, 401, 422) },
    },
  }, async (req, reply) => {
    const b = req.body;
    if (b.key.startsWith('reg-')) throw invalid([{ field: 'body.key', rule: 'reserved', message: 'keys starting with reg- name adopted registrations' }]);
    const policy = await policyFor(b.policyId, 'body.policyId');
    const errors: ErrorDetail[] = [];
    if (b.marketCode && b.marketCode !== policy.marketCode) errors.push({ field: 'body.marketCode', rule: 'policy', message: `policy ${policy.id} is for market ${policy.marketCode}` });
    if (b.registrationType && b.registrationType !== policy.registrationType) errors.push({ field: 'body.registrationType', rule: 'policy', message: `policy ${policy.id} is for ${policy.registrationType}` });
    errors.push(...fromViolations(validateRequestDetails(policy, b.requestDetails)));
    if (errors.length) throw invalid(errors);
    const input: SenderIdRegistrationInput = {
      projectId,
      key: b.key,
      create: {
        policyId: policy.id,
        marketCode: policy.marketCode,
        registrationType: policy.registrationType,
        requestDetails: b.requestDetails,
        ...(b.notificationContacts ? { notificationContacts: b.notificationContacts } : {}),
        ...(b.tags ? { tags: b.tags } : {}),
        ...(config.api.publicUrlExplicit ? { callbackUrl: `${config.api.publicUrl}${SENDERID_CALLBACK_PATH}` } : {}),
      },
      pollIntervalMs: settings.pollIntervalMs,
      overdueGraceMs: b.overdueGraceSeconds !== undefined ? b.overdueGraceSeconds * 1000 : settings.overdueGraceMs,
    };
    const started = await startProcess(client, {
      workflowType: 'senderIdRegistration',
      kind: KIND,
      processId: workflowIds[KIND](projectId, b.key),
      taskQueue: config.taskQueue,
      args: [input],
      // The same key is the same registration: only a failed process may start again.
      reuse: 'after-failure',
      initialState: 'VALIDATING',
      self,
    });
    return reply.status(started.status).send(started.body);
  });

  app.get('/v1/senderid/registrations', {
    schema: {
      tags: ['senderid'],
      summary: 'List sender ID registration processes, optionally by state (IN_PROGRESS, PENDING_ATTACHMENTS, APPROVED, ...)',
      querystring: Type.Object({ state: Type.Optional(StateFilter), ...Paging }, { additionalProperties: false }),
      response: { 200: ProcessList, ...errorResponses(400, 401) },
    },
  }, async (req) => processes.list({ kind: KIND, state: req.query.state, pageSize: req.query.pageSize, pageToken: req.query.pageToken }));

  app.get('/v1/senderid/registrations/:processId', {
    schema: {
      tags: ['senderid'],
      summary: "A registration process: state, history with the platform's log messages and etaDate, sender ID, attachments, what is missing",
      params: Type.Object({ processId: ProcessId }),
      response: { 200: ProcessView, ...errorResponses(401, 404) },
    },
  }, async (req) => {
    handleOf(client, req.params.processId, KINDS, 'sender ID registration');
    return processes.get(req.params.processId, KIND);
  });

  app.post('/v1/senderid/registrations/:processId/update', {
    schema: {
      tags: ['senderid'],
      summary: 'Update the registration (details checked against the policy first); a PENDING one goes back to review',
      params: Type.Object({ processId: ProcessId }),
      headers: IdempotencyKey,
      body: UpdateBody,
      response: { 200: Outcome, ...errorResponses(400, 401, 404, 409, 422) },
    },
  }, async (req) => {
    const { processId } = req.params;
    const details = await running(processId);
    if (req.body.requestDetails && details.policyId) {
      const policy = await policyFor(details.policyId, 'body.requestDetails');
      const errors = fromViolations(validateRequestDetails(policy, req.body.requestDetails));
      if (errors.length) throw invalid(errors);
    }
    const handle = handleOf(client, processId, KINDS, 'sender ID registration');
    return acceptedOrThrow(await runUpdate(client, handle, updateRegistrationUpdate, [{ operationId: operationId(req.headers), ...req.body }], { what: 'sender ID registration' }));
  });

  app.post('/v1/senderid/registrations/:processId/attachments', {
    schema: {
      tags: ['senderid'],
      summary: "Upload an attachment (MIME type and size checked against the policy's definition before anything is sent); the process waits until its upload is final",
      params: Type.Object({ processId: ProcessId }),
      headers: IdempotencyKey,
      body: UploadBody,
      response: { 200: UploadOutcome, ...errorResponses(400, 401, 404, 409, 422) },
    },
  }, async (req) => {
    const { processId } = req.params;
    const b = req.body;
    const content = Buffer.from(b.content, 'base64');
    const details = await running(processId);
    if (!details.registrationId || !details.policyId) throw new ApiError(409, 'not_allowed', 'the registration has not been created yet; retry in a moment');
    const policy = await policyFor(details.policyId, 'body.attachmentDefinitionId');
    const def = policy.attachmentDefinitions.find((d) => d.id === b.attachmentDefinitionId);
    if (!def) throw invalid([{ field: 'body.attachmentDefinitionId', rule: 'enum', message: `must be one of ${policy.attachmentDefinitions.map((d) => d.id).join(', ') || '(none: the policy takes no attachments)'}` }]);
    const violations = validateAttachment(def, { mimeType: b.mimeType, sizeBytes: content.length })
      .map((v) => ({ field: v.field === 'file.mimeType' ? 'body.mimeType' : 'body.content', rule: v.rule, message: v.description }));
    if (violations.length) throw invalid(violations);
    const attachment = await onPlatform(`registration ${details.registrationId}`, () => senderId.uploadAttachment(details.registrationId!, def.id, {
      fileName: b.fileName, mimeType: b.mimeType, content, ...(b.documentType ? { documentType: b.documentType } : {}),
    }));
    const handle = handleOf(client, processId, KINDS, 'sender ID registration');
    const outcome = await runUpdate(client, handle, attachmentUploadedUpdate, [{ operationId: operationId(req.headers), attachment }], { what: 'sender ID registration' });
    return { ...acceptedOrThrow(outcome), attachment: { ...attachment } };
  });

  for (const [segment, deleteRegistration, summary] of [
    ['delete', true, 'Delete the registration on the platform (refused once APPROVED) and end the process as DELETED'],
    ['stop', false, 'Stop following the registration (it stays on the platform as it is)'],
  ] as const) {
    app.post(`/v1/senderid/registrations/:processId/${segment}`, {
      schema: {
        tags: ['senderid'],
        summary,
        params: Type.Object({ processId: ProcessId }),
        headers: IdempotencyKey,
        body: Type.Optional(StopBody),
        response: { 200: Outcome, ...errorResponses(400, 401, 404, 409) },
      },
    }, async (req) => {
      const handle = handleOf(client, req.params.processId, KINDS, 'sender ID registration');
      const reason = req.body?.reason;
      const outcome = await runUpdate(client, handle, stopRegistrationUpdate, [{ operationId: operationId(req.headers), deleteRegistration, ...(reason ? { reason } : {}) }], { what: 'sender ID registration' });
      if (!outcome.accepted) throw new ApiError(409, 'not_allowed', outcome.reason ?? 'not allowed in the current state');
      return { accepted: true, state: outcome.state };
    });
  }

  app.get('/v1/senderid/markets', {
    schema: {
      tags: ['senderid'],
      summary: "Markets open for a registration type; with marketCode, the market's requirements (the questions that lead to a policy)",
      querystring: Type.Object({
        marketCode: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
        registrationType: Type.Optional(RegistrationTypeSchema),
      }, { additionalProperties: false }),
      response: { 200: Type.Record(Type.String(), Type.Unknown()), ...errorResponses(400, 401, 422) },
    },
  }, async (req) => {
    const { marketCode, registrationType } = req.query;
    const type = registrationType ? { registrationType } : {};
    if (marketCode) return { ...(await onPlatform(`market ${marketCode}`, () => senderId.marketRequirements({ marketCode, ...type }))) };
    return { markets: await onPlatform('markets', () => senderId.marketAvailability(type)) };
  });

  app.get('/v1/senderid/policies/:policyId', {
    schema: {
      tags: ['senderid'],
      summary: "A policy's requirements: fields with their validations, attachment definitions (MIME types, size, template)",
      params: Type.Object({ policyId: PlatformId() }),
      response: { 200: Type.Record(Type.String(), Type.Unknown()), ...errorResponses(400, 401, 404, 422) },
    },
  }, async (req) => ({ ...(await onPlatform(`policy ${req.params.policyId}`, () => senderId.policyRequirements(req.params.policyId))) }));

  app.get('/v1/senderid/policies/:policyId/attachments/:attachmentDefinitionId/template', {
    schema: {
      tags: ['senderid'],
      summary: 'The template of an attachment definition, to fill in and upload (the platform\'s file, passed through)',
      params: Type.Object({ policyId: PlatformId(), attachmentDefinitionId: PlatformId() }),
      response: {
        200: { description: 'The file, with its Content-Type and Content-Disposition', content: { '*/*': { schema: { type: 'string', format: 'binary' } } } },
        ...errorResponses(400, 401, 404, 422),
      },
    },
  }, async (req, reply) => {
    const { policyId, attachmentDefinitionId } = req.params;
    const file = await onPlatform(`template of ${policyId} ${attachmentDefinitionId}`, () => senderId.downloadTemplate(policyId, attachmentDefinitionId));
    const name = file.fileName.replace(/[^A-Za-z0-9._-]/g, '_') || 'template';
    return reply.header('content-type', file.contentType).header('content-disposition', `attachment; filename="${name}"`).send(file.content as unknown as string); // bytes: Fastify sends a Buffer as it is
  });
};
