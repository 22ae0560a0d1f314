// One error handler: every failure leaves the API as the same ErrorBody, with the request ID to quote.
import type { FastifyError, FastifyInstance } from 'fastify';
import { ApiError, type ErrorBody } from '../errors.js';
import { validationDetails } from './validation.js';

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | ApiError, request, reply) => {
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
      body = { code, message: err.message };
    } else {
      request.log.error({ err }, 'request failed');
      body = { code: 'internal', message: 'internal error; quote the requestId when reporting it' };
    }
    if (status >= 500 && err instanceof ApiError) request.log.warn({ err }, err.message);
    return reply.status(status).send({ error: body, requestId } satisfies ErrorBody);
  });

  app.setNotFoundHandler((request, reply) =>
    reply.status(404).send({
      error: { code: 'not_found', message: `no route ${request.method} ${request.url.split('?')[0]}` },
      requestId: String(request.id),
    } satisfies ErrorBody),
  );
}
