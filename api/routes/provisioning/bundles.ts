// Bundle provisioning (docs/bundle-wire.md): start by the caller's key, read, list by state, delete (the
// `delete` update while the process runs; a delete-only run under the same key once it has ended).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { deleteUpdate, type BundleProvisioningInput, type CreateBundleRequest } from '../../../contracts/provisioning.js';
import { ApiError, errorResponses, invalid } from '../../errors.js';
import { Outcome, ProcessId, ReasonBody, Started, STARTED_RESPONSES } from '../../schemas.js';
import { listRoute, readRoute } from '../process-routes.js';
import { startProcess } from '../../processes/start.js';
import { handleOf, IdempotencyKey, operationId, runUpdate } from '../../processes/update.js';
import { acceptedOrThrow, followSettings, type ProvisioningRouteOptions } from './common.js';
import { bundleInput } from './inputs.js';
import { StartBundle } from './schemas.js';

const KIND = 'bundle-provisioning' as const;
const self = (processId: string) => `/v1/bundles/${encodeURIComponent(processId)}`;

export const provisioningBundleRoutes: FastifyPluginAsyncTypebox<ProvisioningRouteOptions> = async (app, { client, processes, config }) => {
  const projectId = config.platform.credentials.projectId;

  app.post(
    '/v1/bundles',
    {
      schema: {
        tags: ['bundles'],
        summary: 'Create a bundle (subproject, conversation app, SMS app in one region) and follow it to ACTIVE or FAILED',
        body: StartBundle,
        response: { ...STARTED_RESPONSES, ...errorResponses(400, 401, 422) },
      },
    },
    async (req, reply) => {
      const { key, ...fields } = req.body;
      const built = bundleInput(fields, 'body', { projectId, config, key });
      if (built.errors.length) throw invalid(built.errors);
      const started = await startProcess(client, {
        workflowType: built.workflowType,
        kind: built.kind,
        processId: built.processId,
        taskQueue: config.taskQueue,
        args: [built.input],
        reuse: 'after-final',
        self,
      });
      return reply.status(started.status).send(started.body);
    },
  );

  listRoute(app, processes, {
    path: '/v1/bundles',
    tag: 'bundles',
    kind: KIND,
    summary: 'List bundle processes, optionally by state (CREATING, IN_PROGRESS, ACTIVE, FAILED, DELETING, DELETED, STOPPED)',
  });

  readRoute(
    app,
    { client, processes },
    {
      path: '/v1/bundles/:processId',
      tag: 'bundles',
      kinds: [KIND],
      what: 'bundle',
      summary: "A bundle process: state, history with the platform's reasons, subproject and app IDs, SMS app status, webhook delivery statuses",
    },
  );

  app.post(
    '/v1/bundles/:processId/delete',
    {
      schema: {
        tags: ['bundles'],
        summary: 'Delete the bundle on the platform: 200 when the running process did it, 202 when a delete-only run was started for an ended one',
        params: Type.Object({ processId: ProcessId }),
        headers: IdempotencyKey,
        body: Type.Optional(ReasonBody),
        response: { 200: Outcome, 202: Started, ...errorResponses(400, 401, 404, 409, 422) },
      },
    },
    async (req, reply) => {
      const { processId } = req.params;
      const handle = handleOf(client, processId, [KIND], 'bundle');
      const reason = req.body?.reason;
      const view = await processes.get(processId);
      if (view.execution.status === 'RUNNING') {
        const outcome = await runUpdate(client, handle, deleteUpdate, [{ operationId: operationId(req.headers), ...(reason ? { reason } : {}) }], {
          what: 'bundle',
        });
        return reply.status(200).send(acceptedOrThrow(outcome));
      }
      const d = view.details as { bundleId?: string; key?: string; name?: string; region?: string };
      if (view.state === 'DELETED') throw new ApiError(409, 'not_allowed', 'the bundle has already been deleted');
      if (!d.bundleId || !d.key || !d.name || !d.region) throw new ApiError(409, 'not_allowed', `the ${view.state} bundle process made no bundle to delete`);
      const input: BundleProvisioningInput = {
        projectId,
        key: d.key,
        bundle: { name: d.name, region: d.region as CreateBundleRequest['region'] },
        deleteBundleId: d.bundleId,
        ...followSettings(config),
      };
      const started = await startProcess(client, {
        workflowType: 'bundleProvisioning',
        kind: KIND,
        processId,
        taskQueue: config.taskQueue,
        args: [input],
        reuse: 'after-final',
        initialState: 'DELETING',
        self,
      });
      return reply.status(202).send(started.body);
    },
  );
};
