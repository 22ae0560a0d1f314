// GET /v1/processes/{processId}/timeline: the whole story of a process from its Temporal history (every run),
// decoded and told as entries; JSON or CSV, paged, phone numbers masked unless an allowed key asks otherwise.
// Once Temporal's retention has deleted the history, the same timeline from the store's audit archive. A tenant key
// reads its own customer's processes only: another's answers 404, as an unknown ID does.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Client } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import Type from 'typebox';
import { kindOfWorkflowId } from '../../../processes/kinds.js';
import { processStatusQuery } from '../../../contracts/process-status.js';
import { ApiError, badRequest, errorResponses, notFound } from '../../errors.js';
import { currentTenant, keyIdOf } from '../../plugins/actor.js';
import { presentedKey } from '../../plugins/auth.js';
import { ProcessId } from '../../schemas.js';
import { PROCESS_OPERATIONS } from '../process-routes.js';
import type { AuditArchive } from '../../../store/audit-archive.js';
import { toCsv } from './csv.js';
import { exportRoute } from './export.js';
import { Decoder, maskPhones, noMask } from '../../../processes/shared/audit/decode.js';
import { readRuns } from './history.js';
import { TimelinePageTokens } from './page-token.js';
import { ENTRY_KINDS, TimelineBuilder, type EntryKind, type TimelineEntry } from '../../../processes/shared/audit/timeline.js';

export interface AuditRoutesOptions {
  client: Client;
  codec: PayloadCodec;
  /** Key IDs allowed `?unmasked=true` (RELAYFLOW_AUDIT_UNMASK_KEY_IDS). */
  unmaskKeyIds: readonly string[];
  /** pageTokenKey(config.codecKeys): tokens valid on every API instance. */
  pageTokenKey: Buffer;
  /** The audit archive (workers/audit/): timelines of processes whose histories Temporal deleted. */
  archive?: AuditArchive;
}

const CSV_COLUMNS = ['at', 'runId', 'eventId', 'kind', 'summary', 'details'] as const;

const Entry = Type.Object({
  at: Type.String({ format: 'date-time' }),
  runId: Type.String(),
  eventId: Type.Integer({ description: "The event in the run's history the entry comes from" }),
  kind: Type.Unsafe<EntryKind>({ type: 'string', enum: [...ENTRY_KINDS] }),
  summary: Type.String(),
  details: Type.Record(Type.String(), Type.Unknown()),
});
const Source = Type.Union([Type.Literal('temporal'), Type.Literal('archive')], {
  description: "temporal: told from the process's history; archive: from relayflow's audit archive, the history deleted by Temporal's retention",
});
const Timeline = Type.Object({
  processId: Type.String(),
  entries: Type.Array(Entry),
  nextPageToken: Type.String({ description: 'Empty on the last page' }),
  source: Source,
});

/** How long the process may take to answer its status query (for the reasons of its state changes). */
const STATUS_WAIT_MS = 2_000;

export const auditRoutes: FastifyPluginAsyncTypebox<AuditRoutesOptions> = async (app, { client, codec, unmaskKeyIds, pageTokenKey, archive }) => {
  const decoder = new Decoder(codec);
  const pageTokens = new TimelinePageTokens(pageTokenKey);
  const allowedUnmask = new Set(unmaskKeyIds);
  /** A 403 unless the request's key may see phone numbers. */
  const checkUnmask = (req: FastifyRequest) => {
    const key = presentedKey(req);
    if (!key || !allowedUnmask.has(keyIdOf(key))) {
      throw new ApiError(403, 'forbidden', 'query.unmasked: this API key may not see phone numbers (RELAYFLOW_AUDIT_UNMASK_KEY_IDS)', [
        { field: 'query.unmasked', rule: 'forbidden', message: 'this API key may not see phone numbers' },
      ]);
    }
  };
  await app.register(exportRoute, { checkUnmask, ...(archive ? { archive } : {}) });

  app.get(
    '/v1/processes/:processId/timeline',
    {
      schema: {
        tags: ['processes'],
        operationId: PROCESS_OPERATIONS.timeline,
        summary: 'The whole story of a process: state changes, callbacks, platform calls, caller actions, children',
        description:
          "From the process's Temporal history, every run (continue-as-new) joined in order. Phone numbers are masked " +
          'unless `unmasked=true` is asked by an API key listed in RELAYFLOW_AUDIT_UNMASK_KEY_IDS (others get 403). ' +
          'CSV with `format=csv` or `Accept: text/csv` (columns at,runId,eventId,kind,summary,details; details as JSON). ' +
          "Once Temporal's retention has deleted the history, the timeline archived when the process closed (`source: archive`; " +
          'the CSV says so in the X-Timeline-Source header).',
        params: Type.Object({ processId: ProcessId }),
        querystring: Type.Object(
          {
            pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
            pageToken: Type.Optional(Type.String({ format: 'page-token', maxLength: 4096, description: 'The nextPageToken of the previous page, as given' })),
            format: Type.Optional(
              Type.Union([Type.Literal('json'), Type.Literal('csv')], { description: 'Default: JSON, or CSV when Accept asks for text/csv' }),
            ),
            unmasked: Type.Optional(Type.Boolean({ description: 'Show phone numbers: only for keys allowed to (RELAYFLOW_AUDIT_UNMASK_KEY_IDS)' })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: {
            description: 'One page of the timeline',
            content: {
              'application/json': { schema: Timeline },
              'text/csv': { schema: Type.String({ description: 'A header row, then one row per entry (RFC 4180)' }) },
            },
          },
          ...errorResponses(403, 404, 503, 504),
        },
      },
    },
    async (req, reply) => {
      const { processId } = req.params;
      const { pageSize = 100, pageToken, unmasked = false } = req.query;
      if (!kindOfWorkflowId(processId)) throw notFound(`process ${processId}`);
      if (unmasked) checkUnmask(req);
      const tenant = currentTenant();
      const told = (await fromTemporal(processId, unmasked, tenant)) ?? (await fromArchive(processId, unmasked, tenant));
      if (!told) throw notFound(`process ${processId}`);
      const { firstRunId, all, source } = told;
      let offset = 0;
      if (pageToken) {
        const at = pageTokens.decode(pageToken, processId, firstRunId);
        if (at === undefined)
          throw badRequest('query.pageToken', 'page_token', 'is not a token of this timeline: pass the nextPageToken of the previous page as it is');
        offset = at;
      }

      const entries = all.slice(offset, offset + pageSize);
      const end = offset + entries.length;
      const nextPageToken = end < all.length ? pageTokens.encode({ processId, firstRunId, offset: end }) : '';
      reply.header('cache-control', 'no-store');
      if (wantsCsv(req.query.format, req.headers.accept)) {
        if (nextPageToken) reply.header('x-next-page-token', nextPageToken);
        reply.header('x-timeline-source', source);
        return reply.type('text/csv; charset=utf-8').send(toCsv(CSV_COLUMNS, entries.map(csvRow)));
      }
      return { processId, entries, nextPageToken, source };
    },
  );

  type Told = { firstRunId: string; all: TimelineEntry[]; source: 'temporal' | 'archive' };

  /**
   * The timeline told from the process's history (an earlier run retention deleted from the archive); undefined when
   * Temporal has none, or (for a tenant key) it is another customer's: readRuns describes the process through the
   * client first, and the tenant interceptor answers that describe as not found (the history read is not intercepted).
   */
  async function fromTemporal(processId: string, unmasked: boolean, tenant: string | undefined): Promise<Told | undefined> {
    const archived = async (runId: string) => {
      const run = await archive?.run(runId, tenant);
      return run ? ((unmasked ? run.timeline.unmasked : run.timeline.masked) as TimelineEntry[]) : undefined;
    };
    const runs = await readRuns(client, processId, archived);
    if (!runs?.length) return undefined;
    const timeline = new TimelineBuilder(decoder, unmasked ? noMask : maskPhones);
    for (const run of runs) {
      if (run.told) timeline.entries.push(...run.told);
      else await timeline.addRun(run);
    }
    const status = await client
      .withDeadline(Date.now() + STATUS_WAIT_MS, () => client.workflow.getHandle(processId).query(processStatusQuery))
      .catch(() => undefined);
    if (status?.history) timeline.mergeReasons(status.history);
    return { firstRunId: runs[0]!.runId, all: timeline.entries, source: 'temporal' };
  }

  /** The newest chain's timeline as archived when its runs closed (of the tenant key's customer); undefined when none is. */
  async function fromArchive(processId: string, unmasked: boolean, tenant: string | undefined): Promise<Told | undefined> {
    const chain = (await archive?.chainOf(processId, tenant)) ?? [];
    if (chain.length === 0) return undefined;
    const all = chain.flatMap((run) => (unmasked ? run.timeline.unmasked : run.timeline.masked) as TimelineEntry[]);
    return { firstRunId: chain[0]!.firstRunId, all, source: 'archive' };
  }
};

/** `format` decides; without it, an Accept that names text/csv (and not JSON first) gets CSV. */
function wantsCsv(format: 'json' | 'csv' | undefined, accept: string | undefined): boolean {
  if (format) return format === 'csv';
  const types = (accept ?? '').split(',').map((t) => t.split(';')[0]!.trim().toLowerCase());
  const csv = types.indexOf('text/csv');
  const json = types.indexOf('application/json');
  return csv >= 0 && (json < 0 || csv < json);
}

const csvRow = (e: TimelineEntry) => [e.at, e.runId, String(e.eventId), e.kind, e.summary, JSON.stringify(e.details)];
