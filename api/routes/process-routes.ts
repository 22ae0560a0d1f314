// The two routes every process family has, written once: list its processes by kind (optionally by state,
// paged), and read one process of its kinds. Each family passes its path, tag and words.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Client } from '@temporalio/client';
import Type from 'typebox';
import type { ProcessKind } from '../../contracts/ids.js';
import { errorResponses } from '../errors.js';
import type { ProcessService } from '../processes/find.js';
import { handleOf } from '../processes/update.js';
import { Paging, ProcessId, ProcessList, ProcessView, StateFilter } from '../schemas.js';

type App = Parameters<FastifyPluginAsyncTypebox>[0];

export interface ListRoute {
  path: string;
  tag: string;
  summary: string;
  kind: ProcessKind;
}

/** GET `path`: the processes of `kind`, newest first, optionally in one state, a page at a time. */
export function listRoute(app: App, processes: ProcessService, { path, tag, summary, kind }: ListRoute): void {
  app.get(
    path,
    {
      schema: {
        tags: [tag],
        summary,
        querystring: Type.Object({ state: Type.Optional(StateFilter), ...Paging }, { additionalProperties: false }),
        response: { 200: ProcessList, ...errorResponses(400, 401) },
      },
    },
    async (req) => processes.list({ kind, state: req.query.state, pageSize: req.query.pageSize, pageToken: req.query.pageToken }),
  );
}

export interface ReadRoute {
  /** With a `:processId` parameter. */
  path: string;
  tag: string;
  summary: string;
  /** The kinds this route reads; any other process ID is a 404 naming `what`, without asking Temporal. */
  kinds: readonly ProcessKind[];
  what: string;
}

/** GET `path`: one process of `kinds`, where it is, how it got there and what it waits on (ProcessView). */
export function readRoute(
  app: App,
  { client, processes }: { client: Client; processes: ProcessService },
  { path, tag, summary, kinds, what }: ReadRoute,
): void {
  app.get(
    path,
    {
      schema: {
        tags: [tag],
        summary,
        params: Type.Object({ processId: ProcessId }),
        response: { 200: ProcessView, ...errorResponses(401, 404) },
      },
    },
    async (req) => {
      handleOf(client, req.params.processId, kinds, what);
      return processes.get(req.params.processId);
    },
  );
}
