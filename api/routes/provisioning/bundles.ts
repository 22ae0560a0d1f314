// Bundle provisioning (docs/bundle-wire.md): start by the caller's key, read, list by state, delete (the
// `delete` update while the process runs; a delete-only run under the same key once it has ended).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { CAMPAIGN_KEY_PATTERN, workflowIds } from '../../../contracts/ids.js';
import { deleteUpdate, type BundleProvisioningInput, type CreateBundleRequest } from '../../../contracts/provisioning.js';
import { ApiError, errorResponses, type ErrorDetail } from '../../errors.js';
import { Paging, ProcessId, ProcessList, ProcessView, StateFilter } from '../../schemas.js';
import { startProcess } from '../../processes/start.js';
import { handleOf, IdempotencyKey, operationId, runUpdate } from '../../processes/update.js';
import { acceptedOrThrow, followSettings, Outcome, Started, type ProvisioningRouteOptions } from './common.js';

const KIND = 'bundle-provisioning' as const;
const self = (processId: string) => `/v1/bundles/${encodeURIComponent(processId)}`;

export const StartBundle = Type.Object({
  key: Type.String({ pattern: CAMPAIGN_KEY_PATTERN.source, description: 'Your key for the bundle (1..64 of A-Za-z0-9._-): the same key answers the same process' }),
  displayName: Type.String({ minLength: 1, maxLength: 128, description: 'The bundle\'s name, and the default name of the apps (and subproject) it creates' }),
  region: Type.Enum(['US', 'EU', 'BR']),
  subprojectId: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9-]{1,64}$', description: 'Put the apps in this existing subproject (e.g. one a subproject process made)' })),
  createSubproject: Type.Optional(Type.Boolean({ description: 'Let the bundle create a new subproject (not with subprojectId). Neither: the apps go in the project' })),
  subprojectName: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Name of the new subproject (createSubproject)' })),
  conversationApp: Type.Optional(Type.Boolean({ description: 'Create the conversation app (default true)' })),
  processingMode: Type.Optional(Type.Enum(['DISPATCH', 'CONVERSATION'], { description: 'The conversation app\'s processing mode (default DISPATCH)' })),
  retentionPolicy: Type.Optional(Type.Object({
    retentionType: Type.Enum(['MESSAGE_EXPIRE_POLICY', 'CONVERSATION_EXPIRE_POLICY', 'PERSIST_RETENTION_POLICY']),
    ttlDays: Type.Integer({ minimum: 1, maximum: 3650 }),
  }, { additionalProperties: false, description: 'The conversation app\'s retention policy (default MESSAGE_EXPIRE_POLICY, 180 days)' })),
  smsApp: Type.Optional(Type.Boolean({ description: 'Create the SMS app (default true)' })),
  smsAppName: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  overdueAfterSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 31_536_000, description: 'Report the provisioning overdue after this long (default from RELAYFLOW_PROVISIONING_OVERDUE_AFTER_MS)' })),
}, { additionalProperties: false });

const DeleteBody = Type.Object({ reason: Type.Optional(Type.String({ maxLength: 512 })) }, { additionalProperties: false });

/** A rule between fields the document allows one by one: 422, as every route answers such a request. */
function fieldRuleError(details: ErrorDetail[]): ApiError {
  return new ApiError(422, 'validation_failed', details.map((d) => `${d.field}: ${d.message}`).join('; '), details);
}

export const provisioningBundleRoutes: FastifyPluginAsyncTypebox<ProvisioningRouteOptions> = async (app, { client, processes, config }) => {
  const projectId = config.platform.credentials.projectId;

  app.post('/v1/bundles', {
    schema: {
      tags: ['bundles'],
      summary: 'Create a bundle (subproject, conversation app, SMS app in one region) and follow it to ACTIVE or FAILED',
      body: StartBundle,
      response: { 202: Started, 200: Started, ...errorResponses(400, 401, 422) },
    },
  }, async (req, reply) => {
    const b = req.body;
    const errors: ErrorDetail[] = [];
    const conv = b.conversationApp ?? true;
    const sms = b.smsApp ?? true;
    if (b.createSubproject && b.subprojectId !== undefined) errors.push({ field: 'body.createSubproject', rule: 'exclusive', message: 'cannot be true together with subprojectId' });
    if (b.subprojectName !== undefined && !b.createSubproject) errors.push({ field: 'body.subprojectName', rule: 'requires', message: 'needs createSubproject: true' });
    if (!conv && (b.processingMode !== undefined || b.retentionPolicy !== undefined)) {
      errors.push({ field: b.processingMode !== undefined ? 'body.processingMode' : 'body.retentionPolicy', rule: 'requires', message: 'needs the conversation app (conversationApp not false)' });
    }
    if (!sms && b.smsAppName !== undefined) errors.push({ field: 'body.smsAppName', rule: 'requires', message: 'needs the SMS app (smsApp not false)' });
    if (!conv && !sms && !b.createSubproject) errors.push({ field: 'body.smsApp', rule: 'required', message: 'a bundle needs at least one of conversationApp, smsApp, createSubproject' });
    if (errors.length) throw fieldRuleError(errors);
    const bundle: CreateBundleRequest = {
      name: b.displayName,
      region: b.region,
      ...(b.subprojectId !== undefined ? { subprojectId: b.subprojectId } : {}),
      ...(b.createSubproject ? { subproject: { name: b.subprojectName ?? b.displayName } } : {}),
      ...(conv ? { convApp: { processingMode: b.processingMode ?? 'DISPATCH', ...(b.retentionPolicy ? { retentionPolicy: b.retentionPolicy } : {}) } } : {}),
      ...(sms ? { smsApp: b.smsAppName !== undefined ? { name: b.smsAppName } : {} } : {}),
    };
    const input: BundleProvisioningInput = { projectId, key: b.key, bundle, ...followSettings(config, b.overdueAfterSeconds) };
    const started = await startProcess(client, {
      workflowType: 'bundleProvisioning', kind: KIND, processId: workflowIds[KIND](projectId, b.key), taskQueue: config.taskQueue, args: [input], reuse: 'after-final', self,
    });
    return reply.status(started.status).send(started.body);
  });

  app.get('/v1/bundles', {
    schema: {
      tags: ['bundles'],
      summary: 'List bundle processes, optionally by state (CREATING, IN_PROGRESS, ACTIVE, FAILED, DELETING, DELETED, STOPPED)',
      querystring: Type.Object({ state: Type.Optional(StateFilter), ...Paging }, { additionalProperties: false }),
      response: { 200: ProcessList, ...errorResponses(400, 401) },
    },
  }, async (req) => processes.list({ kind: KIND, state: req.query.state, pageSize: req.query.pageSize, pageToken: req.query.pageToken }));

  app.get('/v1/bundles/:processId', {
    schema: {
      tags: ['bundles'],
      summary: 'A bundle process: state, history with the platform\'s reasons, subproject and app IDs, SMS app status, webhook delivery statuses',
      params: Type.Object({ processId: ProcessId }),
      response: { 200: ProcessView, ...errorResponses(401, 404) },
    },
  }, async (req) => {
    handleOf(client, req.params.processId, [KIND], 'bundle');
    return processes.get(req.params.processId);
  });

  app.post('/v1/bundles/:processId/delete', {
    schema: {
      tags: ['bundles'],
      summary: 'Delete the bundle on the platform: 200 when the running process did it, 202 when a delete-only run was started for an ended one',
      params: Type.Object({ processId: ProcessId }),
      headers: IdempotencyKey,
      body: Type.Optional(DeleteBody),
      response: { 200: Outcome, 202: Started, ...errorResponses(400, 401, 404, 409, 422) },
    },
  }, async (req, reply) => {
    const { processId } = req.params;
    const handle = handleOf(client, processId, [KIND], 'bundle');
    const reason = req.body?.reason;
    const view = await processes.get(processId);
    if (view.execution.status === 'RUNNING') {
      const outcome = await runUpdate(client, handle, deleteUpdate, [{ operationId: operationId(req.headers), ...(reason ? { reason } : {}) }], { what: 'bundle' });
      return reply.status(200).send(acceptedOrThrow(outcome));
    }
    const d = view.details as { bundleId?: string; key?: string; name?: string; region?: string };
    if (view.state === 'DELETED') throw new ApiError(409, 'not_allowed', 'the bundle has already been deleted');
    if (!d.bundleId || !d.key || !d.name || !d.region) throw new ApiError(409, 'not_allowed', `the ${view.state} bundle process made no bundle to delete`);
    const input: BundleProvisioningInput = {
      projectId, key: d.key, bundle: { name: d.name, region: d.region as CreateBundleRequest['region'] }, deleteBundleId: d.bundleId, ...followSettings(config),
    };
    const started = await startProcess(client, { workflowType: 'bundleProvisioning', kind: KIND, processId, taskQueue: config.taskQueue, args: [input], reuse: 'after-final', initialState: 'DELETING', self });
    return reply.status(202).send(started.body);
  });
};
