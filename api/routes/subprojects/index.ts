// Subproject provisioning: start one, read it, list them.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Client } from '@temporalio/client';
import type { Config } from '../../../common/config.js';
import { startProcess } from '../../processes/start.js';
import { errorResponses } from '../../errors.js';
import type { ProcessService } from '../../processes/find.js';
import { STARTED_RESPONSES } from '../../schemas.js';
import { listRoute, readRoute } from '../process-routes.js';
import { subprojectInput } from './inputs.js';
import { StartSubproject } from './schemas.js';

export interface SubprojectRouteOptions {
  client: Client;
  processes: ProcessService;
  config: Pick<Config, 'taskQueue' | 'platform' | 'processes'>;
}

export const subprojectRoutes: FastifyPluginAsyncTypebox<SubprojectRouteOptions> = async (app, { client, processes, config }) => {
  app.post(
    '/v1/subprojects',
    {
      schema: {
        tags: ['subprojects'],
        summary: 'Create a subproject and wait until it is usable with its parent',
        body: StartSubproject,
        response: { ...STARTED_RESPONSES, ...errorResponses(400, 401) },
      },
    },
    async (req, reply) => {
      const { processId, workflowType, kind, input } = subprojectInput(req.body, 'body', { projectId: config.platform.credentials.projectId, config });
      // The same name is the same subproject: a completed process answers again; only a failed one starts anew.
      const started = await startProcess(client, {
        workflowType,
        kind,
        processId,
        taskQueue: config.taskQueue,
        args: [input],
        reuse: 'after-failure',
        self: (id) => `/v1/subprojects/${encodeURIComponent(id)}`,
      });
      return reply.status(started.status).send(started.body);
    },
  );

  readRoute(
    app,
    { client, processes },
    { path: '/v1/subprojects/:processId', tag: 'subprojects', kinds: ['subproject'], what: 'subproject', summary: 'Read a subproject process' },
  );

  listRoute(app, processes, { path: '/v1/subprojects', tag: 'subprojects', kind: 'subproject', summary: 'List subproject processes, optionally by state' });
};
