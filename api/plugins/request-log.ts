// One log line per request, when its answer is sent: method, URL, status, milliseconds, and the request's own
// bindings (reqId, and keyId for a known API key). Fastify's own pair of lines ("incoming request", "request
// completed") is replaced through its LogController: npm start prints each record through pino-pretty, and the pair
// came to about twelve lines a request. The URL is logged with what it may carry of secrets or phone numbers taken
// out: the values of query and path parameters whose names are sensitive (the MMS postback's token, an identity) and
// anything shaped like a number.
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { isSensitiveName, maskPhoneNumbers } from '../../common/logger.js';

const REDACTED = '[redacted]';

/** Percent-decoded; in a query (`form`), a `+` is a space. */
const decoded = (text: string, form = false) => {
  try {
    return decodeURIComponent(form ? text.replace(/\+/g, ' ') : text);
  } catch {
    return text; // a malformed escape: logged as it came, still masked below
  }
};

/** The request's URL as a log may show it. */
export function loggedUrl(request: Pick<FastifyRequest, 'url' | 'params'>): string {
  const [rawPath = '', rawQuery] = request.url.split(/\?(.*)/s, 2);
  let path = decoded(rawPath);
  const params = (request.params ?? {}) as Record<string, unknown>;
  for (const [name, value] of Object.entries(params)) {
    if (isSensitiveName(name) && typeof value === 'string' && value) path = path.split(value).join(REDACTED);
  }
  const query = rawQuery
    ?.split('&')
    .filter(Boolean)
    .map((pair) => {
      const [name = '', value] = pair.split(/=(.*)/s, 2);
      const key = decoded(name, true);
      return value === undefined ? key : `${key}=${isSensitiveName(key) ? REDACTED : decoded(value, true)}`;
    })
    .join('&');
  return maskPhoneNumbers(query ? `${path}?${query}` : path);
}

/** Fastify's request lines, as one line per request (the app's `logController`). */
export class RequestLogController extends LogController {
  override incomingRequest(): void {}

  // The app's own not-found handler answers, and this request's line says 404 with its URL masked.
  override routeNotFound(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = { method: request.method, url: loggedUrl(request), status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 };
    // An error here is the response's own (the client went away, a write failed): the handler's errors are logged by the error handler.
    if (error) request.log.warn({ ...line, err: error }, 'request');
    else request.log.info(line, 'request');
  }
}
