// One error handler: every failure leaves the API as the same ErrorBody, with the request ID to quote.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ulid } from 'ulid';
import { ApiError, type ErrorBody } from '../errors.js';
import { indexRoutes } from './route-index.js';
import { validationDetails } from './validation.js';
import fp from 'fastify-plugin';

export const errorHandlerPlugin = fp(
  async (app: FastifyInstance) => {
    // Every route registered after this plugin is indexed, for the 405s' Allow.
    const routes = indexRoutes(app);
    /** No route for this method and path: 405 with Allow when the path is known, else 404; OPTIONS just gets Allow. */
    const noRoute = (request: FastifyRequest, reply: FastifyReply) => {
      const path = request.url.split('?')[0]!;
      const allowed = routes.allowed(path);
      if (allowed) reply.header('allow', allowed.join(', '));
      if (allowed && request.method === 'OPTIONS') return reply.status(204).send();
      const [status, code, message] = allowed
        ? [405, 'method_not_allowed', `${request.method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`]
        : [404, 'not_found', `no route ${request.method} ${path}`];
      return reply.status(status).send({ error: { code, message }, requestId: String(request.id) } satisfies ErrorBody);
    };

    app.setErrorHandler((err: FastifyError | ApiError, request, reply) => {
      // Fastify checks some things before routing a request nowhere (QUERY needs a Content-Type, a body must
      // parse): for a request no route answers, that it has no route is the answer.
      if (request.is404 && !(err instanceof ApiError) && ((err as FastifyError).statusCode ?? 500) < 500) return noRoute(request, reply);
      const requestId = String(request.id);
      let status = 500;
      let body: ErrorBody['error'];
      if (err instanceof ApiError) {
        status = err.statusCode;
        if (err.retryAfterMs !== undefined) reply.header('retry-after', String(Math.max(1, Math.ceil(err.retryAfterMs / 1000))));
        body = { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) };
      } else if ((err as FastifyError).validation) {
        const details = validationDetails((err as FastifyError).validation as never, (err as FastifyError).validationContext ?? 'body');
        status = 400;
        body = { code: 'validation_failed', message: details.map((d) => `${d.field}: ${d.message}`).join('; '), details };
      } else if ((err as FastifyError).statusCode && (err as FastifyError).statusCode! < 500) {
        status = (err as FastifyError).statusCode!;
        const code = status === 415 ? 'unsupported_media_type' : status === 413 ? 'payload_too_large' : 'bad_request';
        // Tell the caller the route's limit: it differs per route (api/app.ts DEFAULT_BODY_LIMIT, route bodyLimit).
        const message = status === 413 ? `the request body is larger than this route's limit of ${request.routeOptions.bodyLimit} bytes` : err.message;
        body = { code, message };
      } else {
        request.log.error({ err }, 'request failed');
        body = { code: 'internal', message: 'internal error; quote the requestId when reporting it' };
      }
      if (status >= 500 && err instanceof ApiError) request.log.warn({ err }, err.message);
      return reply.status(status).send({ error: body, requestId } satisfies ErrorBody);
    });

    app.setNotFoundHandler(noRoute);
  },
  { name: 'relayflow-error-handler' },
);

/**
 * Requests Node's parser rejects before Fastify sees them, answered with the same ErrorBody. A request line
 * and headers over Node's 16 KiB are a 400 (Fastify's default is 431, which no route documents and which
 * says nothing about which part was too long: usually a query string of many repeated parameters).
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, message] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'request_timeout', 'the request was not received in time']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [400, 'request_too_large', 'the request line and headers must fit in 16 KiB: send fewer or shorter parameters']
        : [400, 'bad_request', 'malformed HTTP request'];
  const body = JSON.stringify({ error: { code, message }, requestId: ulid() } satisfies ErrorBody);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
