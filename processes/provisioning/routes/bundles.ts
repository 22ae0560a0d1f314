// Bundle provisioning (docs/bundle-wire.md): start by the caller's key, read, list by state, delete (the
// `delete` update while the process runs; a delete-only run under the same key once it has ended).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { deleteUpdate, type BundleProvisioningInput, type CreateBundleRequest } from '../contract.js';
import { ApiError } from '../../../api/errors.js';
import { operationId, runUpdate } from '../../../api/processes/update.js';
import { Outcome, ReasonBody, Started } from '../../../api/schemas.js';
import { processRouter } from '../../../api/routes/process-routes.js';
import { acceptedOrThrow, followSettings, type ProvisioningRouteOptions } from './common.js';
import { bundleInput } from './inputs.js';
import { StartBundle } from './schemas.js';

export const provisioningBundleRoutes: FastifyPluginAsyncTypebox<ProvisioningRouteOptions> = async (app, { client, processes, config, customerProject }) => {
  const projectId = config.platform.credentials.projectId;
  const bundles = processRouter(app, { client, processes, taskQueue: config.taskQueue }, '/v1/bundles', 'bundle');

  bundles.start({
    summary: 'Create a bundle (subproject, conversation app, SMS app in one region) and follow it to ACTIVE or FAILED',
    body: StartBundle,
    // 502: a customer's key names a subproject, read from the platform.
    errors: [400, 401, 422, 502],
    build: async (req) => {
      const { key, ...fields } = req.body;
      // A customer's key names a subproject of its own customer's, if any.
      await customerProject('body.subprojectId', fields.subprojectId);
      return bundleInput(fields, 'body', { projectId, config, key });
    },
    reuse: 'after-final',
  });

  bundles.list({ summary: () => 'List bundle processes, optionally by state (CREATING, IN_PROGRESS, ACTIVE, FAILED, DELETING, DELETED, STOPPED)' });

  bundles.read({
    summary: "A bundle process: state, history with the platform's reasons, subproject and app IDs, SMS app status, webhook delivery statuses",
  });

  bundles.action({
    action: 'delete',
    summary: 'Delete the bundle on the platform: 200 when the running process did it, 202 when a delete-only run was started for an ended one',
    body: ReasonBody,
    optionalBody: true,
    responses: { 200: Outcome, 202: Started },
    errors: [400, 401, 404, 409, 422],
    act: async (req, reply, handle) => {
      const { processId } = req.params;
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
      const started = await bundles.startBuilt(
        { errors: [], kind: 'bundle-provisioning', processId, input },
        { reuse: 'after-final', initialState: 'DELETING' },
      );
      return reply.status(202).send(started.body);
    },
  });
};
