// Sender ID registrations (area F): start a registration process by the caller's key, read and list them,
// update the registration, upload attachments (size and MIME checked before anything is sent; the bytes go
// to the platform from here and never enter Temporal's history), stop or delete; read-only look-ups of
// markets and policies. The policy pre-check answers 422 naming the field the way the platform would.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Client } from '@temporalio/client';
import Type from 'typebox';
import type { Config } from '../../../../common/config.js';
import type { ProcessKind } from '../../../kinds.js';
import { senderIdRegistration } from '../kind.js';
import {
  attachmentUploadedUpdate,
  stopRegistrationUpdate,
  updateRegistrationUpdate,
  type SenderIdOperationOutcome,
  type SenderIdProcessState,
} from '../contract.js';
import type { Policy } from '../../../../common/wire/senderid.js';
import { validateAttachment, validateRequestDetails, type SenderIdClient } from '../../../../platform/senderid/client.js';
import { ApiError, errorResponses, invalid } from '../../../../api/errors.js';
import { onPlatform, passThroughSchema, PLATFORM_STATUSES, platformIds } from '../../../../api/platform-errors.js';
import type { ProcessService } from '../../../../api/processes/find.js';
import { handleOf } from '../../../../api/processes/update.js';
import { Outcome } from '../../../../api/schemas.js';
import { processRouter, reasonAction } from '../../../../api/routes/process-routes.js';
import { fromViolations, registrationInput, reservedKeyErrors, unknownPolicy } from './inputs.js';
import { readPolicy } from './policy.js';
import { ATTACHMENT_BODY_LIMIT, PlatformId, RegistrationTypeSchema, StartRegistration, UpdateBody, UploadBody } from './schemas.js';

export interface SenderIdRouteOptions {
  client: Client;
  processes: ProcessService;
  config: Pick<Config, 'taskQueue' | 'platform' | 'processes' | 'api'>;
  senderid: SenderIdClient;
}

const KIND = 'senderid-registration' satisfies ProcessKind;

const UploadOutcome = Type.Object({ ...Outcome.properties, attachment: Type.Record(Type.String(), Type.Unknown()) });

function acceptedOrThrow(o: SenderIdOperationOutcome): SenderIdOperationOutcome {
  if (o.accepted) return { accepted: true, state: o.state };
  if (o.violations?.length) throw invalid(fromViolations(o.violations));
  if (o.errorType === 'PlatformValidationError') throw new ApiError(422, 'platform_rejected', o.reason ?? 'the platform refused the change');
  throw new ApiError(409, 'not_allowed', o.reason ?? 'not allowed in the current state');
}

export const senderIdRoutes: FastifyPluginAsyncTypebox<SenderIdRouteOptions> = async (app, { client, processes, config, senderid }) => {
  const projectId = config.platform.credentials.projectId;
  const what = 'sender ID registration';
  const registrations = processRouter(app, { client, processes, taskQueue: config.taskQueue }, '/v1/senderid/registrations', what);

  /** The policy, or a 422 naming `field` when the platform does not know it. */
  async function policyFor(policyId: string, field: string): Promise<Policy> {
    const policy = await readPolicy(senderid, policyId);
    if (!policy) throw invalid([unknownPolicy(field, policyId)]);
    return policy;
  }

  /** The running process's details, or 404 / 409 when it has ended. */
  async function running(processId: string) {
    handleOf(client, processId, [KIND], what);
    const view = await processes.get(processId, KIND);
    if (view.execution.status !== 'RUNNING' || senderIdRegistration.states.final.includes(view.state as SenderIdProcessState)) {
      throw new ApiError(409, 'process_ended', `the sender ID registration process ${processId} has already ended (${view.state})`);
    }
    return view.details as { registrationId?: string; policyId?: string };
  }

  registrations.start({
    summary: 'Check a sender ID registration against its policy, create it and follow it to APPROVED or REJECTED',
    body: StartRegistration,
    errors: [400, 401, ...PLATFORM_STATUSES],
    build: async ({ body: b }) => {
      // A reserved key is refused before the policy is read (which may fail or be unknown).
      const reserved = reservedKeyErrors(b.key, 'body.key');
      if (reserved.length) throw invalid(reserved);
      const policy = await policyFor(b.policyId, 'body.policyId');
      return registrationInput(b, 'body', { projectId, config, policy });
    },
    // The same key is the same registration: only a failed process may start again.
    reuse: 'after-failure',
    initialState: 'VALIDATING',
  });

  registrations.list({
    summary: () => 'List sender ID registration processes, optionally by state (IN_PROGRESS, PENDING_ATTACHMENTS, APPROVED, ...)',
  });

  registrations.read({
    summary: "A registration process: state, history with the platform's log messages and etaDate, sender ID, attachments, what is missing",
  });

  registrations.action({
    action: 'update',
    summary: 'Update the registration (details checked against the policy first); a PENDING one goes back to review',
    body: UpdateBody,
    errors: [400, 401, ...PLATFORM_STATUSES],
    update: updateRegistrationUpdate,
    request: async (req, operationId) => {
      const details = await running(req.params.processId);
      if (req.body.requestDetails && details.policyId) {
        const policy = await policyFor(details.policyId, 'body.requestDetails');
        const errors = fromViolations(validateRequestDetails(policy, req.body.requestDetails));
        if (errors.length) throw invalid(errors);
      }
      return { operationId, ...req.body };
    },
    answer: acceptedOrThrow,
  });

  registrations.action({
    action: 'attachments',
    operationId: 'uploadRegistrationAttachment',
    bodyLimit: ATTACHMENT_BODY_LIMIT,
    summary:
      "Upload an attachment (MIME type and size checked against the policy's definition before anything is sent); the process waits until its upload is final",
    body: UploadBody,
    responses: { 200: UploadOutcome },
    errors: [400, 401, ...PLATFORM_STATUSES],
    update: attachmentUploadedUpdate,
    request: async ({ params, body: b }, operationId) => {
      const content = Buffer.from(b.content, 'base64');
      const details = await running(params.processId);
      if (!details.registrationId || !details.policyId) throw new ApiError(409, 'not_allowed', 'the registration has not been created yet; retry in a moment');
      const policy = await policyFor(details.policyId, 'body.attachmentDefinitionId');
      const def = policy.attachmentDefinitions.find((d) => d.id === b.attachmentDefinitionId);
      if (!def)
        throw invalid([
          {
            field: 'body.attachmentDefinitionId',
            rule: 'enum',
            message: `must be one of ${policy.attachmentDefinitions.map((d) => d.id).join(', ') || '(none: the policy takes no attachments)'}`,
          },
        ]);
      const violations = validateAttachment(def, { mimeType: b.mimeType, sizeBytes: content.length }).map((v) => ({
        field: v.field === 'file.mimeType' ? 'body.mimeType' : 'body.content',
        rule: v.rule,
        message: v.description,
      }));
      if (violations.length) throw invalid(violations);
      const attachment = await onPlatform(`registration ${details.registrationId}`, () =>
        senderid.uploadAttachment(details.registrationId!, def.id, {
          fileName: b.fileName,
          mimeType: b.mimeType,
          content,
          ...(b.documentType ? { documentType: b.documentType } : {}),
        }),
      );
      return { operationId, attachment };
    },
    answer: (outcome, { attachment }) => ({ ...acceptedOrThrow(outcome), attachment: { ...attachment } }),
  });

  for (const [action, deleteRegistration, summary] of [
    ['delete', true, 'Delete the registration on the platform (refused once APPROVED) and end the process as DELETED'],
    ['stop', false, 'Stop following the registration (it stays on the platform as it is)'],
  ] as const) {
    registrations.action(
      reasonAction({
        action,
        summary,
        update: stopRegistrationUpdate,
        with: { deleteRegistration },
        answer: (outcome) => {
          if (!outcome.accepted) throw new ApiError(409, 'not_allowed', outcome.reason ?? 'not allowed in the current state');
          return { accepted: true, state: outcome.state };
        },
      }),
    );
  }

  app.get(
    '/v1/senderid/markets',
    {
      schema: passThroughSchema(
        'senderid',
        "Markets open for a registration type; with marketCode, the market's requirements (the questions that lead to a policy)",
        {
          querystring: Type.Object(
            { marketCode: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })), registrationType: Type.Optional(RegistrationTypeSchema) },
            { additionalProperties: false },
          ),
        },
        { 200: Type.Record(Type.String(), Type.Unknown()) },
      ),
    },
    async (req) => {
      const { marketCode, registrationType } = req.query;
      const type = registrationType ? { registrationType } : {};
      if (marketCode) return { ...(await onPlatform(`market ${marketCode}`, () => senderid.marketRequirements({ marketCode, ...type }))) };
      return { markets: await onPlatform('markets', () => senderid.marketAvailability(type)) };
    },
  );

  app.get(
    '/v1/senderid/policies/:policyId',
    {
      schema: passThroughSchema(
        'senderid',
        "A policy's requirements: fields with their validations, attachment definitions (MIME types, size, template)",
        { params: Type.Object({ policyId: PlatformId() }) },
        { 200: Type.Record(Type.String(), Type.Unknown()) },
      ),
    },
    async (req) => {
      platformIds({ policy: req.params.policyId });
      return { ...(await onPlatform(`policy ${req.params.policyId}`, () => senderid.policyRequirements(req.params.policyId))) };
    },
  );

  app.get(
    '/v1/senderid/policies/:policyId/attachments/:attachmentDefinitionId/template',
    {
      schema: {
        tags: [senderIdRegistration.collection.tag],
        summary: "The template of an attachment definition, to fill in and upload (the platform's file, passed through)",
        params: Type.Object({ policyId: PlatformId(), attachmentDefinitionId: PlatformId() }),
        response: {
          200: { description: 'The file, with its Content-Type and Content-Disposition', content: { '*/*': { schema: { type: 'string', format: 'binary' } } } },
          ...errorResponses(400, 401, ...PLATFORM_STATUSES),
        },
      },
    },
    async (req, reply) => {
      const { policyId, attachmentDefinitionId } = req.params;
      platformIds({ policy: policyId, 'attachment definition': attachmentDefinitionId });
      const file = await onPlatform(`template of ${policyId} ${attachmentDefinitionId}`, () => senderid.downloadTemplate(policyId, attachmentDefinitionId));
      const name = file.fileName.replace(/[^A-Za-z0-9._-]/g, '_') || 'template';
      return reply
        .header('content-type', file.contentType)
        .header('content-disposition', `attachment; filename="${name}"`)
        .send(file.content as unknown as string); // bytes: Fastify sends a Buffer as it is
    },
  );
};
