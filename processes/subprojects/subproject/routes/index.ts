// Subproject provisioning: start one, read it, list them.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Client } from '@temporalio/client';
import type { Config } from '../../../../common/config.js';
import type { ProcessService } from '../../../../api/processes/find.js';
import { processRouter } from '../../../../api/routes/process-routes.js';
import { subprojectInput } from './inputs.js';
import { StartSubproject } from './schemas.js';

export interface SubprojectRouteOptions {
  client: Client;
  processes: ProcessService;
  config: Pick<Config, 'taskQueue' | 'platform' | 'processes'>;
}

export const subprojectRoutes: FastifyPluginAsyncTypebox<SubprojectRouteOptions> = async (app, { client, processes, config }) => {
  const subprojects = processRouter(app, { client, processes, taskQueue: config.taskQueue }, '/v1/subprojects', 'subproject');

  subprojects.start({
    summary: 'Create a subproject and wait until it is usable with its parent',
    body: StartSubproject,
    errors: [400, 401],
    build: (req) => subprojectInput(req.body, 'body', { projectId: config.platform.credentials.projectId, config }),
    // The same name is the same subproject: a completed process answers again; only a failed one starts anew.
    reuse: 'after-failure',
  });
  subprojects.read({ summary: 'Read a subproject process' });
  subprojects.list({ summary: () => 'List subproject processes, optionally by state' });
};
