// Body parsers that keep the exact bytes received (signatures and Content-MD5 are computed over
// them) and never fail: an unparseable body is remembered and rejected later, after fault
// injection and authentication, with the area's own 400.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AreaError } from './errors.js';
import { requestState } from './request-state.js';

export function installBodyParsers(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body: Buffer, done) => {
    const state = requestState(request);
    state.rawBody = body;
    if (body.length === 0) return done(null, undefined);
    try {
      done(null, JSON.parse(body.toString('utf8')));
    } catch (err) {
      state.bodyParseError = err instanceof Error ? err.message : String(err);
      done(null, undefined);
    }
  });
  // The token endpoint's grant_type=client_credentials form.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (request, body: Buffer, done) => {
    requestState(request).rawBody = body;
    done(null, Object.fromEntries(new URLSearchParams(body.toString('utf8'))));
  });
}

/** The parsed body, or the raw text when it could not be parsed (for the request log). */
export function loggableBody(request: FastifyRequest): unknown {
  const s = requestState(request);
  if (s.bodyParseError !== undefined) return s.rawBody?.toString('utf8');
  return request.body;
}

/** Throws the area's 400 for a body that claimed to be JSON and was not (MMS: E108). */
export function assertBodyParsed(request: FastifyRequest): void {
  const s = requestState(request);
  if (s.bodyParseError === undefined) return;
  const mms = s.area?.errors.name === 'mms';
  throw new AreaError(400, `Invalid JSON payload: ${s.bodyParseError}`, mms ? { code: 'E108' } : {});
}

/** preValidation hook form of assertBodyParsed; put it after the area's authentication hook. */
export async function rejectUnparsedBody(request: FastifyRequest): Promise<void> {
  assertBodyParsed(request);
}
