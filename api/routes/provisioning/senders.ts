// RCS sender launch, CHATA sender onboarding (standard and embedded) and CHATB sender onboarding: start,
// read, list, relaunch (RCS), stop watching; the CHATB categories.
import type { FastifyBaseLogger } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { workflowIds, type ProcessKind } from '../../../contracts/ids.js';
import { relaunchUpdate, stopUpdate, type ChataSenderInput, type ChatbSenderInput, type RcsSenderLaunchInput } from '../../../contracts/provisioning.js';
import { errorResponses, type ErrorDetail } from '../../errors.js';
import { e164, Paging, ProcessId, ProcessList, ProcessView, StateFilter } from '../../schemas.js';
import { startProcess } from '../../processes/start.js';
import { handleOf, IdempotencyKey, operationId, runUpdate } from '../../processes/update.js';
import { acceptedOrThrow, followSettings, invalid, Outcome, Started, type ProvisioningRouteOptions } from './common.js';
import { bannerErrors, Relaunch, StartChataSender, StartChatbSender, StartEmbeddedChataSender, StartRcsSender } from './schemas.js';

const KINDS: readonly ProcessKind[] = ['rcs-sender', 'chata-sender', 'chatb-sender'];
const self = (processId: string) => `/v1/senders/${encodeURIComponent(processId)}`;
const StopBody = Type.Object({ reason: Type.Optional(Type.String({ maxLength: 512 })) }, { additionalProperties: false });

/** A platform read used only to make errors precise: when it fails, the process reports the platform's answer later. */
async function lookup<T>(log: FastifyBaseLogger, what: string, read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (err) {
    log.warn({ err }, `${what} could not be read; validated by the platform later`);
    return undefined;
  }
}

function contactErrors(contact: { email?: string; phoneNumber?: string } | undefined, field: string): ErrorDetail[] {
  if (!contact) return [];
  const given = [contact.email, contact.phoneNumber].filter((v) => v !== undefined).length;
  return given === 1 ? [] : [{ field, rule: 'one_of', message: 'must have exactly one of email, phoneNumber' }];
}

export const provisioningSenderRoutes: FastifyPluginAsyncTypebox<ProvisioningRouteOptions> = async (app, { client, processes, config, provisioning, hashSubject }) => {
  const projectId = config.platform.credentials.projectId;
  const start = (kind: ProcessKind, workflowType: string, processId: string, input: unknown) =>
    startProcess(client, { workflowType, kind, processId, taskQueue: config.taskQueue, args: [input], reuse: 'after-final', self });

  app.post('/v1/senders/rcs', {
    schema: { tags: ['senders'], summary: 'Create an RCS sender, answer its questionnaire, launch it and follow it to LAUNCHED in every country', body: StartRcsSender, response: { 202: Started, 200: Started, ...errorResponses(400, 401, 422) } },
  }, async (req, reply) => {
    const b = req.body;
    const errors = [...bannerErrors(b.banner), ...contactErrors(b.contact, 'body.contact')];
    const questionnaire = await lookup(req.log, 'the RCS questionnaire', () => provisioning.rcs.getQuestionnaire(b.useCase, b.countries));
    if (questionnaire) {
      const ids = questionnaire.questions.map((q) => q.id);
      for (const q of questionnaire.questions) {
        if (q.required && !b.answers[q.id]?.trim()) errors.push({ field: `body.answers.${q.id}`, rule: 'required', message: `is required: ${q.text}` });
      }
      for (const id of Object.keys(b.answers)) {
        if (!ids.includes(id)) errors.push({ field: `body.answers.${id}`, rule: 'unknown_question', message: `is not a question of the ${b.useCase} questionnaire for ${b.countries.join(', ')}; questions: ${ids.join(', ')}` });
      }
    }
    if (errors.length) throw invalid(errors);
    const { answers, contact, testNumbers, overdueAfterSeconds, ...sender } = b;
    const input: RcsSenderLaunchInput = {
      projectId,
      sender,
      answers,
      contact: contact.email !== undefined ? { email: contact.email } : { phoneNumber: contact.phoneNumber! },
      ...(testNumbers ? { testNumbers } : {}),
      ...followSettings(config, overdueAfterSeconds),
    };
    const started = await start('rcs-sender', 'rcsSenderLaunch', workflowIds['rcs-sender'](projectId, b.displayName), input);
    return reply.status(started.status).send(started.body);
  });

  app.post('/v1/senders/chata', {
    schema: { tags: ['senders'], summary: 'Create a CHATA sender for a phone number and follow it to ACTIVE', body: StartChataSender, response: { 202: Started, 200: Started, ...errorResponses(400, 401, 422) } },
  }, async (req, reply) => {
    const { overdueAfterSeconds, ...sender } = req.body;
    const phoneNumber = e164(sender.phoneNumber, 'body.phoneNumber');
    const input: ChataSenderInput = { projectId, mode: 'standard', sender: { ...sender, phoneNumber }, ...followSettings(config, overdueAfterSeconds) };
    const started = await start('chata-sender', 'chataSenderOnboarding', workflowIds['chata-sender'](projectId, hashSubject(`+${phoneNumber.replace(/\D/g, '')}`)), input);
    return reply.status(started.status).send(started.body);
  });

  app.post('/v1/senders/chata/embedded', {
    schema: { tags: ['senders'], summary: 'Create a CHATA sender by embedded sign-up (business account ID and phoneNumberId) and follow it to ACTIVE', body: StartEmbeddedChataSender, response: { 202: Started, 200: Started, ...errorResponses(400, 401, 422) } },
  }, async (req, reply) => {
    const { overdueAfterSeconds, ...sender } = req.body;
    const phoneNumber = sender.phoneNumber !== undefined ? e164(sender.phoneNumber, 'body.phoneNumber') : undefined;
    const input: ChataSenderInput = { projectId, mode: 'embedded', sender: { ...sender, ...(phoneNumber ? { phoneNumber } : {}) }, ...followSettings(config, overdueAfterSeconds) };
    const started = await start('chata-sender', 'chataSenderOnboarding', workflowIds['chata-sender'](projectId, `pnid-${sender.phoneNumberId}`), input);
    return reply.status(started.status).send(started.body);
  });

  app.get('/v1/senders/chatb/categories', {
    schema: { tags: ['senders'], summary: 'The CHATB sender categories and subcategories (from the platform)', response: { 200: Type.Object({ categories: Type.Array(Type.Unknown()) }), ...errorResponses(401) } },
  }, async () => ({ categories: await provisioning.chatbSenders.categories() }));

  app.post('/v1/senders/chatb', {
    schema: { tags: ['senders'], summary: 'Create a CHATB sender in a category and follow it to ACTIVE', body: StartChatbSender, response: { 202: Started, 200: Started, ...errorResponses(400, 401, 422) } },
  }, async (req, reply) => {
    const { overdueAfterSeconds, ...sender } = req.body;
    const categories = await lookup(req.log, 'the CHATB categories', () => provisioning.chatbSenders.categories());
    const category = categories?.find((c) => c.code === sender.categoryCode);
    if (categories && !category) throw invalid([{ field: 'body.categoryCode', rule: 'enum', message: `must be one of ${categories.map((c) => c.code).join(', ')}` }]);
    if (category && sender.subcategoryCode !== undefined && !category.subcategories.some((s) => s.code === sender.subcategoryCode)) {
      throw invalid([{ field: 'body.subcategoryCode', rule: 'enum', message: `for category ${category.code} must be one of ${category.subcategories.map((s) => s.code).join(', ')}` }]);
    }
    const input: ChatbSenderInput = { projectId, sender, ...followSettings(config, overdueAfterSeconds) };
    const started = await start('chatb-sender', 'chatbSenderOnboarding', workflowIds['chatb-sender'](projectId, sender.displayName), input);
    return reply.status(started.status).send(started.body);
  });

  for (const [segment, kind] of [['rcs', 'rcs-sender'], ['chata', 'chata-sender'], ['chatb', 'chatb-sender']] as const) {
    app.get(`/v1/senders/${segment}`, {
      schema: {
        tags: ['senders'],
        summary: `List ${segment.toUpperCase()} sender processes, optionally by state`,
        querystring: Type.Object({ state: Type.Optional(StateFilter), ...Paging }, { additionalProperties: false }),
        response: { 200: ProcessList, ...errorResponses(400, 401) },
      },
    }, async (req) => processes.list({ kind, state: req.query.state, pageSize: req.query.pageSize, pageToken: req.query.pageToken }));
  }

  app.get('/v1/senders/:processId', {
    schema: { tags: ['senders'], summary: 'A sender process: state, history with reasons, errorCode, country and operator status, comments, webhook events', params: Type.Object({ processId: ProcessId }), response: { 200: ProcessView, ...errorResponses(401, 404) } },
  }, async (req) => {
    handleOf(client, req.params.processId, KINDS, 'sender');
    return processes.get(req.params.processId);
  });

  app.post('/v1/senders/:processId/relaunch', {
    schema: { tags: ['senders'], summary: 'Relaunch a REJECTED or PARTIALLY_LAUNCHED RCS sender (optionally with new answers or contact)', params: Type.Object({ processId: ProcessId }), headers: IdempotencyKey, body: Relaunch, response: { 200: Outcome, ...errorResponses(400, 401, 404, 409, 422) } },
  }, async (req) => {
    const { processId } = req.params;
    const errors = contactErrors(req.body.contact, 'body.contact');
    if (errors.length) throw invalid(errors);
    const handle = handleOf(client, processId, ['rcs-sender'], 'RCS sender');
    const { contact, answers } = req.body;
    const request = {
      operationId: operationId(req.headers),
      ...(contact ? { contact: contact.email !== undefined ? { email: contact.email } : { phoneNumber: contact.phoneNumber! } } : {}),
      ...(answers ? { answers } : {}),
    };
    return acceptedOrThrow(await runUpdate(client, handle, relaunchUpdate, [request], { what: 'RCS sender' }));
  });

  app.post('/v1/senders/:processId/stop', {
    schema: { tags: ['senders'], summary: 'Stop following the sender (the sender itself stays as it is)', params: Type.Object({ processId: ProcessId }), headers: IdempotencyKey, body: Type.Optional(StopBody), response: { 200: Outcome, ...errorResponses(400, 401, 404, 409) } },
  }, async (req) => {
    const { processId } = req.params;
    const handle = handleOf(client, processId, KINDS, 'sender');
    const reason = req.body?.reason;
    return acceptedOrThrow(await runUpdate(client, handle, stopUpdate, [{ operationId: operationId(req.headers), ...(reason ? { reason } : {}) }], { what: 'sender' }));
  });
};
