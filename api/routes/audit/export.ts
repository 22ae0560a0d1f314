// GET /v1/audit/export: the audit archive as JSON Lines, one archived run a line (its summary and timeline), for a
// range of close times, a kind and a customer (a tenant key's own, whatever it asks). Streamed as the store reads it, a batch at a time: the API holds one batch
// however many runs the range has.
import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import Type from 'typebox';
import { TENANT_PATTERN, TENANT_RULE } from '../../../common/api-keys.js';
import { maskPhoneNumbers } from '../../../common/logger.js';
import { PROCESS_KINDS } from '../../../processes/kinds.js';
import type { ArchivedRun, AuditArchive } from '../../../store/audit-archive.js';
import { errorResponses, storeRequired, unprocessable } from '../../errors.js';
import { currentTenant } from '../../plugins/actor.js';

export interface ExportRouteOptions {
  archive?: AuditArchive;
  /** A 403 unless the request's key may see phone numbers (the timeline's rule). */
  checkUnmask: (req: FastifyRequest) => void;
}

/** One line: the run's summary as the list shows it, and its timeline as the timeline route does. */
function line(run: ArchivedRun, unmasked: boolean): string {
  const { timeline, summary, ...listing } = run;
  const reason = summary.reason ? (unmasked ? summary.reason : maskPhoneNumbers(summary.reason)) : undefined;
  const entries = unmasked ? timeline.unmasked : timeline.masked;
  return `${JSON.stringify({ ...listing, lastChangeAt: summary.lastChangeAt, ...(reason ? { reason } : {}), entries })}\n`;
}

async function* lines(runs: AsyncIterable<ArchivedRun>, unmasked: boolean): AsyncGenerator<string> {
  for await (const run of runs) yield line(run, unmasked);
}

export const exportRoute: FastifyPluginAsyncTypebox<ExportRouteOptions> = async (app, { archive: maybeArchive, checkUnmask }) => {
  const archive = storeRequired(maybeArchive, 'audit_archive_unavailable', 'the audit archive needs the SQL store');
  app.get(
    '/v1/audit/export',
    {
      schema: {
        tags: ['processes'],
        operationId: 'exportAuditArchive',
        summary: 'The audit archive as JSON Lines: every archived run closed in a time range, with its summary and timeline',
        description:
          'One line per archived run (a process that continued as new has one per run: `firstRunId` joins them), oldest closed ' +
          'first: processId, runId, firstRunId, kind, state, executionStatus, startedAt, closedAt, businessKey, lastChangeAt, ' +
          'reason, entries (as the timeline route tells them). Runs are archived by the workers once they close; phone numbers ' +
          'masked unless `unmasked=true` is asked by a key listed in RELAYFLOW_AUDIT_UNMASK_KEY_IDS. A tenant API key exports its own ' +
          "customer's runs only; a key of every customer may name one with `tenant` (runs archived before customers were kept have none).",
        querystring: Type.Object(
          {
            from: Type.String({ format: 'date-time', description: 'Runs closed at or after this time' }),
            to: Type.String({ format: 'date-time', description: 'Runs closed before this time' }),
            kind: Type.Optional(Type.Union(PROCESS_KINDS.map((k) => Type.Literal(k)))),
            tenant: Type.Optional(
              Type.String({
                pattern: TENANT_PATTERN.source,
                description: `One customer's runs (${TENANT_RULE}); a tenant API key exports only its own customer's, whatever this says`,
              }),
            ),
            unmasked: Type.Optional(Type.Boolean({ description: 'Show phone numbers: only for keys allowed to (RELAYFLOW_AUDIT_UNMASK_KEY_IDS)' })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: {
            description: 'JSON Lines, one archived run a line',
            content: { 'application/jsonl': { schema: Type.String({ description: 'One JSON object a line' }) } },
          },
          ...errorResponses(400, 401, 403, 422, 503),
        },
      },
    },
    async (req, reply) => {
      const { from, to, kind, unmasked = false } = req.query;
      if (Date.parse(from) >= Date.parse(to)) throw unprocessable('query.to', 'after_from', 'must be later than from');
      if (unmasked) checkUnmask(req);
      const tenant = currentTenant() ?? req.query.tenant;
      const runs = archive().export({
        from: new Date(from).toISOString(),
        to: new Date(to).toISOString(),
        ...(kind ? { kind } : {}),
        ...(tenant ? { tenant } : {}),
      });
      reply.header('cache-control', 'no-store');
      // A stream is sent as it is (the schema's string types the document, not the stream).
      return reply.type('application/jsonl; charset=utf-8').send(Readable.from(lines(runs, unmasked)) as unknown as string);
    },
  );
};
