// Subproject provisioning: start one, read it, list them.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Client } from '@temporalio/client';
import Type from 'typebox';
import type { Config } from '../../../common/config.js';
import { workflowIds } from '../../../contracts/ids.js';
import type { SubprojectInput } from '../../../contracts/subprojects.js';
import { startProcess } from '../../processes/start.js';
import { errorResponses } from '../../errors.js';
import type { ProcessService } from '../../processes/find.js';
import { Paging, ProcessId, ProcessList, ProcessView, StateFilter } from '../../schemas.js';

const StartSubproject = Type.Object({
  parentProjectId: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$', description: 'Defaults to the configured project (PLATFORM_PROJECT_ID)' })),
  displayName: Type.String({ minLength: 1, maxLength: 100, pattern: '^[^\\u0000-\\u001f]+$', description: 'Unique per parent: starting twice with the same name returns the same process' }),
}, { additionalProperties: false });

const Started = Type.Object({ processId: Type.String(), kind: Type.String(), created: Type.Boolean(), links: Type.Object({ self: Type.String() }) });

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
      response: { 202: Started, 200: Started, ...errorResponses(400, 401) },
    },
  }, async (req, reply) => {
    const parentProjectId = req.body.parentProjectId ?? config.platform.credentials.projectId;
    const processId = workflowIds.subproject(parentProjectId, req.body.displayName);
    const input: SubprojectInput = { parentProjectId, displayName: req.body.displayName, ...config.processes.subproject };
    // The same name is the same subproject: a completed process answers again; only a failed one starts anew.
    const started = await startProcess(client, {
      workflowType: 'subprojectProvisioning',
      kind: 'subproject',
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
