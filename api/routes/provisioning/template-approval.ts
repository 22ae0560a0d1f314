// CHATA / CHATB template approval: start, read, list, edit and resubmit, stop watching.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { ProcessKind } from '../../../contracts/ids.js';
import { resubmitUpdate, stopUpdate } from '../../../contracts/provisioning.js';
import { errorResponses, invalid } from '../../errors.js';
import { Outcome, ProcessId, ReasonBody, STARTED_RESPONSES } from '../../schemas.js';
import { listRoute, readRoute } from '../process-routes.js';
import { startProcess } from '../../processes/start.js';
import { handleOf, IdempotencyKey, operationId, runUpdate } from '../../processes/update.js';
import { acceptedOrThrow, type ProvisioningRouteOptions } from './common.js';
import { templateInput } from './inputs.js';
import { componentErrors, Resubmit, StartTemplate } from './schemas.js';

const CHANNELS = [
  ['chata', 'CHATA', 'chata-template'],
  ['chatb', 'CHATB', 'chatb-template'],
] as const;
const KINDS: readonly ProcessKind[] = ['chata-template', 'chatb-template'];
const self = (processId: string) => `/v1/templates/${encodeURIComponent(processId)}`;

export const provisioningTemplateRoutes: FastifyPluginAsyncTypebox<ProvisioningRouteOptions> = async (app, { client, processes, config }) => {
  const projectId = config.platform.credentials.projectId;

  for (const [segment, channel, kind] of CHANNELS) {
    app.post(
      `/v1/templates/${segment}`,
      {
        schema: {
          tags: ['templates'],
          summary: `Create a ${channel} template and follow its approval, then its quality, until it is deleted or you stop watching`,
          body: StartTemplate,
          response: { ...STARTED_RESPONSES, ...errorResponses(400, 401, 422) },
        },
      },
      async (req, reply) => {
        const built = templateInput(req.body, 'body', { projectId, config, channel });
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
      path: `/v1/templates/${segment}`,
      tag: 'templates',
      kind,
      summary: `List ${channel} template processes, optionally by state (IN_PROGRESS, APPROVED, REJECTED, PAUSED, ...)`,
    });
  }

  readRoute(
    app,
    { client, processes },
    {
      path: '/v1/templates/:processId',
      tag: 'templates',
      kinds: KINDS,
      what: 'template',
      summary: 'A template process: state, history of states with reasons, rejection code, quality score, reviewer comments, webhook events',
    },
  );

  app.post(
    '/v1/templates/:processId/resubmit',
    {
      schema: {
        tags: ['templates'],
        summary: 'Edit a REJECTED, APPROVED, PAUSED or DISABLED template and send it to review again',
        params: Type.Object({ processId: ProcessId }),
        headers: IdempotencyKey,
        body: Resubmit,
        response: { 200: Outcome, ...errorResponses(400, 401, 404, 409, 422) },
      },
    },
    async (req) => {
      const { processId } = req.params;
      if (req.body.components) {
        const errors = componentErrors(req.body.components, 'body.components');
        if (errors.length) throw invalid(errors);
      }
      const handle = handleOf(client, processId, KINDS, 'template');
      return acceptedOrThrow(await runUpdate(client, handle, resubmitUpdate, [{ operationId: operationId(req.headers), ...req.body }], { what: 'template' }));
    },
  );

  app.post(
    '/v1/templates/:processId/stop',
    {
      schema: {
        tags: ['templates'],
        summary: 'Stop watching the template (the template itself stays as it is)',
        params: Type.Object({ processId: ProcessId }),
        headers: IdempotencyKey,
        body: Type.Optional(ReasonBody),
        response: { 200: Outcome, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (req) => {
      const { processId } = req.params;
      const handle = handleOf(client, processId, KINDS, 'template');
      const reason = req.body?.reason;
      return acceptedOrThrow(
        await runUpdate(client, handle, stopUpdate, [{ operationId: operationId(req.headers), ...(reason ? { reason } : {}) }], { what: 'template' }),
      );
    },
  );
};
