// Keeps the exact bytes of JSON bodies: callback signatures are computed over them, not over re-serialized JSON.
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyRequest {
    rawBody?: Buffer;
  }
}

export const rawBodyPlugin = fp(
  async (app: FastifyInstance) => {
    app.removeContentTypeParser(['application/json']);
    // No bodyLimit of its own: the app's default (DEFAULT_BODY_LIMIT in api/app.ts) or the route's applies.
    app.addContentTypeParser(/^application\/(.+\+)?json/, { parseAs: 'buffer' }, (req, body, done) => {
      const raw = body as Buffer;
      req.rawBody = raw;
      if (raw.length === 0) return done(null, undefined);
      try {
        done(null, JSON.parse(raw.toString('utf8')));
      } catch {
        done(new ApiError(400, 'validation_failed', 'body: is not valid JSON', [{ field: 'body', rule: 'json', message: 'is not valid JSON' }]), undefined);
      }
    });
  },
  { name: 'relayflow-raw-body' },
);
