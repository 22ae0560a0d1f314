// RCS sender launch, CHATA sender approval (standard and embedded) and CHATB sender approval: start,
// read, list, relaunch (RCS), stop watching; the CHATB categories.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { kindOfWorkflowId, workflowIds } from '../../kinds.js';
import { relaunchUpdate, stopUpdate, verifyPhoneUpdate, type ChataSenderInput, type OperationOutcome } from '../contract.js';
import { ApiError, errorResponses, invalid } from '../../../api/errors.js';
import { e164 } from '../../../api/schemas.js';
import { processRouter, reasonAction } from '../../../api/routes/process-routes.js';
import { acceptedOrThrow, followSettings, inProjectOf, lookup, type ProvisioningRouteOptions } from './common.js';
import { chataSenderInput, chatbSenderInput, contactErrors, launchContact, phoneVerificationSettings, rcsSenderInput } from './inputs.js';
import { inProject, Relaunch, StartChataSender, StartChatbSender, StartEmbeddedChataSender, StartRcsSender, UpdateSender, VerifyPhone } from './schemas.js';
import { senderChanges, updateSender } from './sender-update.js';
import { operationId } from '../../../api/processes/update.js';
import { retire } from './retire.js';
import { ReasonBody } from '../../../api/schemas.js';
import { chataSender } from '../chata-sender/kind.js';

/** A wrong code is the caller's to correct (422 wrong_otp, the process keeps waiting); other refusals as any action's. */
function verifiedOrThrow(outcome: OperationOutcome): OperationOutcome {
  if (!outcome.accepted && outcome.errorType === 'wrong_otp') throw new ApiError(422, 'wrong_otp', outcome.reason ?? 'wrong code');
  return acceptedOrThrow(outcome);
}

export const provisioningSenderRoutes: FastifyPluginAsyncTypebox<ProvisioningRouteOptions> = async (
  app,
  { client, processes, config, provisioning, hashSubject, customerProject },
) => {
  const projectId = config.platform.credentials.projectId;
  const senders = processRouter(app, { client, processes, taskQueue: config.taskQueue }, '/v1/senders', 'sender');
  // 502: a customer's key names a subproject, read from the platform.
  const byKey = { errors: [400, 401, 422, 502], reuse: 'after-final' } as const;

  senders.start({
    ...byKey,
    segment: 'rcs',
    summary: 'Create an RCS sender, answer its questionnaire, launch it and follow it to LAUNCHED in every country',
    body: inProject(StartRcsSender),
    build: ({ body: { projectId: into, ...b }, log }) =>
      inProjectOf(customerProject, into, async () => {
        const questionnaire = await lookup(log, 'the RCS questionnaire', () => provisioning.rcs.getQuestionnaire(b.useCase, b.countries));
        return rcsSenderInput(b, 'body', { projectId, config, questionnaire });
      }),
  });

  senders.start({
    ...byKey,
    segment: 'chata',
    summary: 'Create a CHATA sender for a phone number and follow it to ACTIVE',
    body: inProject(StartChataSender),
    build: ({ body: { projectId: into, ...b } }) => inProjectOf(customerProject, into, () => chataSenderInput(b, 'body', { projectId, config, hashSubject })),
  });

  senders.start({
    ...byKey,
    segment: 'chata/embedded',
    summary: 'Create a CHATA sender by embedded sign-up (business account ID and phoneNumberId) and follow it to ACTIVE',
    body: inProject(StartEmbeddedChataSender),
    build: ({ body: { projectId: into, ...body } }) =>
      inProjectOf(customerProject, into, () => {
        const { overdueAfterSeconds, phoneVerification, ...sender } = body;
        const phoneNumber = sender.phoneNumber !== undefined ? e164(sender.phoneNumber, 'body.phoneNumber') : undefined;
        const input: ChataSenderInput = {
          projectId,
          mode: 'embedded',
          sender: { ...sender, ...(phoneNumber ? { phoneNumber } : {}) },
          phoneVerification: phoneVerificationSettings(phoneVerification),
          ...followSettings(config, overdueAfterSeconds),
        };
        return { errors: [], kind: 'chata-sender', processId: workflowIds['chata-sender'](projectId, `pnid-${sender.phoneNumberId}`), input };
      }),
  });

  app.get(
    '/v1/senders/chatb/categories',
    {
      schema: {
        tags: [chataSender.collection.tag],
        summary: 'The CHATB sender categories and subcategories (from the platform)',
        response: { 200: Type.Object({ categories: Type.Array(Type.Unknown()) }), ...errorResponses(401) },
      },
    },
    async () => ({ categories: await provisioning.chatbSenders.categories() }),
  );

  senders.start({
    ...byKey,
    segment: 'chatb',
    summary: 'Create a CHATB sender in a category and follow it to ACTIVE',
    body: inProject(StartChatbSender),
    build: ({ body: { projectId: into, ...body }, log }) =>
      inProjectOf(customerProject, into, async () => {
        const categories = await lookup(log, 'the CHATB categories', () => provisioning.chatbSenders.categories());
        return chatbSenderInput(body, 'body', { projectId, config, categories });
      }),
  });

  senders.list({ summary: (segment) => `List ${segment?.toUpperCase()} sender processes, optionally by state` });

  senders.read({ summary: 'A sender process: state, history with reasons, errorCode, country and operator status, comments, webhook events' });

  senders.action({
    action: 'relaunch',
    summary: 'Relaunch a REJECTED or PARTIALLY_LAUNCHED RCS sender (optionally with new answers or contact)',
    body: Relaunch,
    errors: [400, 401, 404, 409, 422],
    kinds: ['rcs-sender'],
    what: 'RCS sender',
    update: relaunchUpdate,
    request: (req, operationId) => {
      const errors = contactErrors(req.body.contact, 'body.contact');
      if (errors.length) throw invalid(errors);
      const { contact, answers } = req.body;
      return { operationId, ...(contact ? { contact: launchContact(contact) } : {}), ...(answers ? { answers } : {}) };
    },
    answer: acceptedOrThrow,
  });

  senders.action({
    action: 'verify-phone',
    summary:
      "Submit the code a CHATA sender's number received, while the process waits for it (WAITING_FOR_CALLER, phone verification); a wrong code is 422 wrong_otp and the process keeps waiting",
    body: VerifyPhone,
    errors: [400, 401, 404, 409, 422],
    kinds: ['chata-sender'],
    what: 'CHATA sender',
    update: verifyPhoneUpdate,
    request: (req, operationId) => ({ operationId, code: req.body.code }),
    answer: verifiedOrThrow,
  });

  senders.action({
    action: 'update',
    summary:
      'Change a live sender (only the fields given). A running process takes it; one that ended with its sender ACTIVE (RCS: LAUNCHED) runs again for it. Where the platform reviews the change the sender goes back to review, then live with or without it',
    body: UpdateSender,
    errors: [400, 401, 404, 409, 422],
    what: 'sender',
    act: async (req, _reply, handle) => {
      const changes = senderChanges(kindOfWorkflowId(handle.workflowId)!, req.body as Record<string, unknown>);
      return updateSender({ client, config, provisioning }, handle, { operationId: operationId(req.headers), changes });
    },
  });

  senders.action({
    action: 'retire',
    summary:
      'Retire a CHATA or CHATB sender: delete it on the platform (a live one too) and end its process RETIRED. The same Idempotency-Key answers the same after the end; another retire of an ended process is 409',
    body: ReasonBody,
    optionalBody: true,
    errors: [400, 401, 404, 409, 422],
    kinds: ['chata-sender', 'chatb-sender'],
    what: 'sender',
    act: async (req, _reply, handle) => {
      const reason = (req.body as { reason?: string } | undefined)?.reason;
      return retire(client, handle, operationId(req.headers), reason, 'sender');
    },
  });

  senders.action(
    reasonAction({ action: 'stop', summary: 'Stop following the sender (the sender itself stays as it is)', update: stopUpdate, answer: acceptedOrThrow }),
  );
};
