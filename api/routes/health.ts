// Liveness and readiness. Readiness means Temporal answers; without it no process can start.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Client } from '@temporalio/client';
import Type from 'typebox';

const Health = Type.Object({ status: Type.String(), checks: Type.Optional(Type.Record(Type.String(), Type.String())) });

export const healthRoutes: FastifyPluginAsyncTypebox<{ client: Client }> = async (app, { client }) => {
  app.get('/healthz', { config: { auth: 'public' }, schema: { tags: ['health'], response: { 200: Health } } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { config: { auth: 'public' }, schema: { tags: ['health'], response: { 200: Health, 503: Health } } }, async (_req, reply) => {
    try {
      await client.withDeadline(Date.now() + 2_000, () => client.workflowService.getSystemInfo({}));
      return { status: 'ready', checks: { temporal: 'ok' } };
    } catch (err) {
      return reply.status(503).send({ status: 'not ready', checks: { temporal: `unreachable: ${(err as Error).message}` } });
    }
  });
};
