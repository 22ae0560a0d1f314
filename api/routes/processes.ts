// Every process, whatever its kind: read one, list by kind, state, start time and business key.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { PROCESS_KINDS } from '../../contracts/ids.js';
import { errorResponses } from '../errors.js';
import type { ProcessService } from '../processes/find.js';
import { PROCESS_OPERATIONS } from './process-routes.js';
import { Paging, PROCESS_ID_MAX_LENGTH, ProcessId, ProcessList, ProcessView, StateFilter } from '../schemas.js';

export const processRoutes: FastifyPluginAsyncTypebox<{ processes: ProcessService }> = async (app, { processes }) => {
  app.get(
    '/v1/processes',
    {
      schema: {
        tags: ['processes'],
        operationId: 'listProcesses',
        summary: 'List processes by kind, state, start time and business key, newest first',
        querystring: Type.Object(
          {
            kind: Type.Optional(Type.Union(PROCESS_KINDS.map((k) => Type.Literal(k)))),
            state: Type.Optional(StateFilter),
            startedAfter: Type.Optional(Type.String({ format: 'date-time', description: 'Only processes started at or after this time' })),
            startedBefore: Type.Optional(Type.String({ format: 'date-time', description: 'Only processes started before this time' })),
            key: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: PROCESS_ID_MAX_LENGTH,
                pattern: '^[^\\u0000-\\u001F\\u007F]+$',
                description: 'The business key: a whole process ID, or with `kind` the part after `<kind>:` (no prefix matching)',
              }),
            ),
            ...Paging,
          },
          { additionalProperties: false },
        ),
        // 503 and 504: Temporal's visibility unreachable or too slow (ProcessService.list has a deadline).
        response: { 200: ProcessList, ...errorResponses(400, 401, 503, 504) },
      },
    },
    async (req) => processes.list({ ...req.query }),
  );

  app.get(
    '/v1/processes/:processId',
    {
      schema: {
        tags: ['processes'],
        operationId: PROCESS_OPERATIONS.read,
        summary: 'Where a process is, how it got there, and what it is waiting on',
        params: Type.Object({ processId: ProcessId }),
        response: { 200: ProcessView, ...errorResponses(401, 404) },
      },
    },
    async (req) => processes.get(req.params.processId),
  );
};
