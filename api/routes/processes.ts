// Every process, whatever its kind: read one, list by kind, state, start time, business key and text, count them.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { TENANT_PATTERN, TENANT_RULE } from '../../common/api-keys.js';
import { PROCESS_KINDS } from '../../processes/kinds.js';
import { errorResponses } from '../errors.js';
import type { ProcessService } from '../processes/find.js';
import { PROCESS_OPERATIONS } from './process-routes.js';
import { Paging, PROCESS_ID_MAX_LENGTH, ProcessCounts, ProcessId, ProcessList, ProcessView, StateFilter } from '../schemas.js';

/** The filters the list and the counts share. */
const Filters = {
  kind: Type.Optional(Type.Union(PROCESS_KINDS.map((k) => Type.Literal(k)))),
  tenant: Type.Optional(
    Type.String({
      pattern: TENANT_PATTERN.source,
      description: `One customer's processes (${TENANT_RULE}); a tenant API key sees only its own customer's, whatever this says`,
    }),
  ),
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
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: PROCESS_ID_MAX_LENGTH,
      pattern: '^[^\\u0000-\\u001F\\u007F]*[^\\u0000-\\u0020\\u007F][^\\u0000-\\u001F\\u007F]*$',
      description: "Text: the start of a process ID or of a business key (under any kind, or `kind`'s), or a whole caller's reference",
    }),
  ),
};

export const processRoutes: FastifyPluginAsyncTypebox<{ processes: ProcessService }> = async (app, { processes }) => {
  app.get(
    '/v1/processes',
    {
      schema: {
        tags: ['processes'],
        operationId: 'listProcesses',
        summary: 'List processes by kind, state, start time, business key and text; newest first, or by last change',
        querystring: Type.Object(
          {
            ...Filters,
            state: Type.Optional(StateFilter),
            sort: Type.Optional(
              Type.Union([Type.Literal('started'), Type.Literal('lastChange')], {
                default: 'started',
                description:
                  "started: Temporal's order (running ones newest first, then closed ones last closed first), every match paged; " +
                  'lastChange: the last state change first, among the first 1,000 of that order (windowFull says when more matched)',
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
    '/v1/processes/counts',
    {
      schema: {
        tags: ['processes'],
        operationId: 'countProcesses',
        summary: 'How many processes match the filters: in all, waiting on a person, failed, by kind and by state',
        querystring: Type.Object(Filters, { additionalProperties: false }),
        // 503 and 504: as the list (ProcessService.counts has one deadline over all its queries).
        response: { 200: ProcessCounts, ...errorResponses(400, 401, 503, 504) },
      },
    },
    async (req) => processes.counts({ ...req.query }),
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
