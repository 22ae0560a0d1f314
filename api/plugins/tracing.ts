// A server span per API request (`METHOD /route/:pattern`, with http.method, http.route, http.status_code),
// active for the whole request: the Temporal client's start/signal spans and the platform calls a handler
// makes are its children, and through the workflow's headers so is everything the process then does. A
// `traceparent` from the caller is continued. Probes and scrapes (/healthz, /readyz, /metrics) are not traced.
// Only while the API's tracing runs (common/tracing.ts): otherwise the hooks pass straight through.
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isTracing, tracerOf } from '../../common/tracing.js';
import fp from 'fastify-plugin';

export const API_SERVICE = 'relayflow-api';

const UNTRACED_ROUTES = new Set(['/healthz', '/readyz', '/metrics']);

const spans = new WeakMap<FastifyRequest, Span>();

/** The route's pattern (/v1/processes/:processId), never the URL: IDs and phone numbers stay out of span names. */
const routeOf = (request: FastifyRequest) => (request.is404 ? 'unmatched' : (request.routeOptions.url ?? 'unmatched'));

/** Before any other onRequest hook (auth, rate limit, actor), so the span covers them and they run inside it. */
export const requestTracingPlugin = fp(
  async (app: FastifyInstance) => {
    const tracer = tracerOf(API_SERVICE);
    app.addHook('onRequest', (request, _reply, done) => {
      const route = routeOf(request);
      if (!isTracing(API_SERVICE) || UNTRACED_ROUTES.has(route)) return done();
      const parent = propagation.extract(ROOT_CONTEXT, request.headers);
      const span = tracer.startSpan(
        `${request.method} ${route}`,
        {
          kind: SpanKind.SERVER,
          attributes: { 'http.method': request.method, 'http.route': route },
        },
        parent,
      );
      spans.set(request, span);
      // A callback-style hook: the rest of the request (hooks, handler, its Temporal and platform calls) runs in it.
      context.with(trace.setSpan(parent, span), done);
    });
    app.addHook('onResponse', async (request, reply) => {
      const span = spans.get(request);
      if (!span) return;
      spans.delete(request);
      span.setAttribute('http.status_code', reply.statusCode);
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    app.addHook('onRequestAbort', async (request) => {
      const span = spans.get(request);
      if (!span) return;
      spans.delete(request);
      span.setStatus({ code: SpanStatusCode.ERROR, message: 'client aborted the request' });
      span.end();
    });
  },
  { name: 'relayflow-request-tracing' },
);
