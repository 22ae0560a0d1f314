// Subproject provisioning: start one, read it, list them.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Client } from '@temporalio/client';
import Type from 'typebox';
import type { Config } from '../../../common/config.js';
import { startProcess } from '../../processes/start.js';
import { errorResponses } from '../../errors.js';
import type { ProcessService } from '../../processes/find.js';
import { Paging, ProcessId, ProcessList, ProcessView, STARTED_RESPONSES, StateFilter } from '../../schemas.js';
import { subprojectInput } from './inputs.js';
import { StartSubproject } from './schemas.js';

export interface SubprojectRouteOptions {
  client: Client;
  processes: ProcessService;
  config: Pick<Config, 'taskQueue' | 'platform' | 'processes'>;
}

export const subprojectRoutes: FastifyPluginAsyncTypebox<SubprojectRouteOptions> = async (app, { client, processes, config }) => {
  app.post('/v1/subprojects', {
    schema: {
      tags: ['subprojects'],
      summary: 'Create a subproject and wait until it is usable with its parent',
      body: StartSubproject,
      response: { ...STARTED_RESPONSES, ...errorResponses(400, 401) },
    },
  }, async (req, reply) => {
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
  });

  app.get('/v1/subprojects/:processId', {
    schema: {
      tags: ['subprojects'],
      summary: 'Read a subproject process',
      params: Type.Object({ processId: ProcessId }),
      response: { 200: ProcessView, ...errorResponses(401, 404) },
    },
  }, async (req) => processes.get(req.params.processId, 'subproject'));

  app.get('/v1/subprojects', {
    schema: {
      tags: ['subprojects'],
      summary: 'List subproject processes, optionally by state',
      querystring: Type.Object({ state: Type.Optional(StateFilter), ...Paging }, { additionalProperties: false }),
      response: { 200: ProcessList, ...errorResponses(400, 401) },
    },
  }, async (req) => processes.list({ kind: 'subproject', state: req.query.state, pageSize: req.query.pageSize, pageToken: req.query.pageToken }));
};
