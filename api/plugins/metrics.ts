// GET /metrics (Prometheus text; public like /healthz, and left out of the OpenAPI document: it is for the
// scraper, not for API clients), and one hook that counts every answer: requests by route pattern and
// status, and the platform's callbacks by kind and outcome (every signed intake at once, by its route's
// `auth: 'signature'`, so no intake counts for itself).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { callbacks, httpRequestDuration, httpRequests, registry } from '../metrics/series.js';
import fp from 'fastify-plugin';

const duplicates = new WeakSet<FastifyRequest>();

/** For an intake that knows the delivery was recorded before (campaign delivery reports): counted `duplicate`. */
export function noteDuplicateCallback(request: FastifyRequest): void {
  duplicates.add(request);
}

/** `/callbacks/<kind>` (MMS: `/callbacks/mms/:token`). */
const callbackKind = (route: string) => /^\/callbacks\/([a-z]+)/.exec(route)?.[1];

function callbackOutcome(request: FastifyRequest, status: number): string {
  // 5xx: not recorded (Temporal or the store unreachable); the platform delivers it again.
  if (status >= 500) return 'failed';
  // 4xx: a bad signature, a replayed nonce, a body that breaks the schema, a wrong MMS token.
  if (status >= 400) return 'refused';
  return duplicates.has(request) ? 'duplicate' : 'accepted';
}

export const metricsPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('onResponse', async (request, reply) => {
      // No route (404, 405): one series for all of them, whatever the URL.
      const route = request.is404 ? 'unmatched' : (request.routeOptions.url ?? 'unmatched');
      const labels = { method: request.method, route, status: String(reply.statusCode) };
      httpRequests.inc(labels);
      httpRequestDuration.observe(labels, reply.elapsedTime / 1000);
      if (request.routeOptions.config?.auth !== 'signature') return;
      const kind = callbackKind(route);
      if (kind) callbacks.inc({ kind, outcome: callbackOutcome(request, reply.statusCode) });
    });

    app.get('/metrics', { config: { auth: 'public' }, schema: { hide: true } as never }, async (_request, reply) => {
      reply.type(registry.contentType);
      return registry.metrics();
    });
  },
  { name: 'relayflow-metrics' },
);
