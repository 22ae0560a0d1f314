// RCS sender launch, CHATA sender onboarding (standard and embedded) and CHATB sender onboarding: start,
// read, list, relaunch (RCS), stop watching; the CHATB categories.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { workflowIds, type ProcessKind } from '../../../contracts/ids.js';
import { relaunchUpdate, stopUpdate, type ChataSenderInput } from '../../../contracts/provisioning.js';
import { errorResponses, invalid } from '../../errors.js';
import { e164, Outcome, ProcessId, ReasonBody, STARTED_RESPONSES } from '../../schemas.js';
import { listRoute, readRoute } from '../process-routes.js';
import { startProcess, type BuiltProcess } from '../../processes/start.js';
import { handleOf, IdempotencyKey, operationId, runUpdate } from '../../processes/update.js';
import { acceptedOrThrow, followSettings, lookup, type ProvisioningRouteOptions } from './common.js';
import { chataSenderInput, chatbSenderInput, contactErrors, launchContact, rcsSenderInput } from './inputs.js';
import { Relaunch, StartChataSender, StartChatbSender, StartEmbeddedChataSender, StartRcsSender } from './schemas.js';

const KINDS: readonly ProcessKind[] = ['rcs-sender', 'chata-sender', 'chatb-sender'];
const self = (processId: string) => `/v1/senders/${encodeURIComponent(processId)}`;

export const provisioningSenderRoutes: FastifyPluginAsyncTypebox<ProvisioningRouteOptions> = async (
  app,
  { client, processes, config, provisioning, hashSubject },
) => {
  const projectId = config.platform.credentials.projectId;
  const start = ({ kind, workflowType, processId, input }: Omit<BuiltProcess, 'errors'>) =>
    startProcess(client, { workflowType, kind, processId, taskQueue: config.taskQueue, args: [input], reuse: 'after-final', self });

  app.post(
    '/v1/senders/rcs',
    {
      schema: {
        tags: ['senders'],
        summary: 'Create an RCS sender, answer its questionnaire, launch it and follow it to LAUNCHED in every country',
        body: StartRcsSender,
        response: { ...STARTED_RESPONSES, ...errorResponses(400, 401, 422) },
      },
    },
    async (req, reply) => {
      const b = req.body;
      const questionnaire = await lookup(req.log, 'the RCS questionnaire', () => provisioning.rcs.getQuestionnaire(b.useCase, b.countries));
      const built = rcsSenderInput(b, 'body', { projectId, config, questionnaire });
      if (built.errors.length) throw invalid(built.errors);
      const started = await start(built);
      return reply.status(started.status).send(started.body);
    },
  );

  app.post(
    '/v1/senders/chata',
    {
      schema: {
        tags: ['senders'],
        summary: 'Create a CHATA sender for a phone number and follow it to ACTIVE',
        body: StartChataSender,
        response: { ...STARTED_RESPONSES, ...errorResponses(400, 401, 422) },
      },
    },
    async (req, reply) => {
      const built = chataSenderInput(req.body, 'body', { projectId, config, hashSubject });
      if (built.errors.length) throw invalid(built.errors);
      const started = await start(built);
      return reply.status(started.status).send(started.body);
    },
  );

  app.post(
    '/v1/senders/chata/embedded',
    {
      schema: {
        tags: ['senders'],
        summary: 'Create a CHATA sender by embedded sign-up (business account ID and phoneNumberId) and follow it to ACTIVE',
        body: StartEmbeddedChataSender,
        response: { ...STARTED_RESPONSES, ...errorResponses(400, 401, 422) },
      },
    },
    async (req, reply) => {
      const { overdueAfterSeconds, ...sender } = req.body;
      const phoneNumber = sender.phoneNumber !== undefined ? e164(sender.phoneNumber, 'body.phoneNumber') : undefined;
      const input: ChataSenderInput = {
        projectId,
        mode: 'embedded',
        sender: { ...sender, ...(phoneNumber ? { phoneNumber } : {}) },
        ...followSettings(config, overdueAfterSeconds),
      };
      const started = await start({
        kind: 'chata-sender',
        workflowType: 'chataSenderOnboarding',
        processId: workflowIds['chata-sender'](projectId, `pnid-${sender.phoneNumberId}`),
        input,
      });
      return reply.status(started.status).send(started.body);
    },
  );

  app.get(
    '/v1/senders/chatb/categories',
    {
      schema: {
        tags: ['senders'],
        summary: 'The CHATB sender categories and subcategories (from the platform)',
        response: { 200: Type.Object({ categories: Type.Array(Type.Unknown()) }), ...errorResponses(401) },
      },
    },
    async () => ({ categories: await provisioning.chatbSenders.categories() }),
  );

  app.post(
    '/v1/senders/chatb',
    {
      schema: {
        tags: ['senders'],
        summary: 'Create a CHATB sender in a category and follow it to ACTIVE',
        body: StartChatbSender,
        response: { ...STARTED_RESPONSES, ...errorResponses(400, 401, 422) },
      },
    },
    async (req, reply) => {
      const categories = await lookup(req.log, 'the CHATB categories', () => provisioning.chatbSenders.categories());
      const built = chatbSenderInput(req.body, 'body', { projectId, config, categories });
      if (built.errors.length) throw invalid(built.errors);
      const started = await start(built);
      return reply.status(started.status).send(started.body);
    },
  );

  for (const [segment, kind] of [
    ['rcs', 'rcs-sender'],
    ['chata', 'chata-sender'],
    ['chatb', 'chatb-sender'],
  ] as const) {
    listRoute(app, processes, {
      path: `/v1/senders/${segment}`,
      tag: 'senders',
      kind,
      summary: `List ${segment.toUpperCase()} sender processes, optionally by state`,
    });
  }

  readRoute(
    app,
    { client, processes },
    {
      path: '/v1/senders/:processId',
      tag: 'senders',
      kinds: KINDS,
      what: 'sender',
      summary: 'A sender process: state, history with reasons, errorCode, country and operator status, comments, webhook events',
    },
  );

  app.post(
    '/v1/senders/:processId/relaunch',
    {
      schema: {
        tags: ['senders'],
        summary: 'Relaunch a REJECTED or PARTIALLY_LAUNCHED RCS sender (optionally with new answers or contact)',
        params: Type.Object({ processId: ProcessId }),
        headers: IdempotencyKey,
        body: Relaunch,
        response: { 200: Outcome, ...errorResponses(400, 401, 404, 409, 422) },
      },
    },
    async (req) => {
      const { processId } = req.params;
      const errors = contactErrors(req.body.contact, 'body.contact');
      if (errors.length) throw invalid(errors);
      const handle = handleOf(client, processId, ['rcs-sender'], 'RCS sender');
      const { contact, answers } = req.body;
      const request = {
        operationId: operationId(req.headers),
        ...(contact ? { contact: launchContact(contact) } : {}),
        ...(answers ? { answers } : {}),
      };
      return acceptedOrThrow(await runUpdate(client, handle, relaunchUpdate, [request], { what: 'RCS sender' }));
    },
  );

  app.post(
    '/v1/senders/:processId/stop',
    {
      schema: {
        tags: ['senders'],
        summary: 'Stop following the sender (the sender itself stays as it is)',
        params: Type.Object({ processId: ProcessId }),
        headers: IdempotencyKey,
        body: Type.Optional(ReasonBody),
        response: { 200: Outcome, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (req) => {
      const { processId } = req.params;
      const handle = handleOf(client, processId, KINDS, 'sender');
      const reason = req.body?.reason;
      return acceptedOrThrow(
        await runUpdate(client, handle, stopUpdate, [{ operationId: operationId(req.headers), ...(reason ? { reason } : {}) }], { what: 'sender' }),
      );
    },
  );
};
