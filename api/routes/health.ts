// Liveness and readiness. Readiness means Temporal answers; without it no process can start. When the
// deployment has a public URL, readiness also shows whether the platform holds relayflow's callbacks
// (informational: it never turns /readyz into a 503, processes fall back to polling).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Client } from '@temporalio/client';
import Type from 'typebox';

const Health = Type.Object({ status: Type.String(), checks: Type.Optional(Type.Record(Type.String(), Type.String())) });

export interface HealthOptions {
  client: Client;
  /** Extra checks shown in /readyz (callback wiring: api/routes/readiness.ts). */
  callbacks?: () => Promise<Record<string, string>>;
}

export const healthRoutes: FastifyPluginAsyncTypebox<HealthOptions> = async (app, { client, callbacks }) => {
  app.get('/healthz', { config: { auth: 'public' }, schema: { tags: ['health'], response: { 200: Health } } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { config: { auth: 'public' }, schema: { tags: ['health'], response: { 200: Health, 503: Health } } }, async (_req, reply) => {
    try {
      await client.withDeadline(Date.now() + 2_000, () => client.workflowService.getSystemInfo({}));
      return { status: 'ready', checks: { temporal: 'ok', ...(await callbacks?.()) } };
    } catch (err) {
      return reply.status(503).send({ status: 'not ready', checks: { temporal: `unreachable: ${(err as Error).message}` } });
    }
  });
};
