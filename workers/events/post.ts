// One delivery attempt: the event's JSON POSTed to the subscription's URL, signed per the Standard Webhooks
// specification (webhook-id, webhook-timestamp, webhook-signature with every secret still valid). Redirects are
// not followed (a 3xx fails the attempt), and without `allowPrivate` no connection reaches a non-public address.
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import ipaddr from 'ipaddr.js';
import { Webhook } from 'standardwebhooks';
import { isPublicAddress, publicOnlyLookup } from '../../common/url-guard.js';
import type { DeliveryJob, StoredEvent, SubscriptionSecret } from '../../store/event-subscriptions.js';

export interface AttemptResult {
  ok: boolean;
  statusCode?: number;
  latencyMs: number;
  error?: string;
}

/** The body every receiver gets: Standard Webhooks' recommended envelope around relayflow's event. */
export function eventBody(event: StoredEvent): string {
  const businessKey = event.processId.slice(event.processId.indexOf(':') + 1);
  return JSON.stringify({
    type: event.previousState === undefined ? 'process.started' : 'process.state_changed',
    timestamp: event.at,
    data: { ...event, businessKey },
  });
}

/** One `v1,<base64>` signature per secret still valid at `now`, space-separated (the specification's form for rotation). */
function signatures(secrets: readonly SubscriptionSecret[], eventId: string, now: Date, body: string): string {
  return secrets
    .filter((s) => !s.expiresAt || new Date(s.expiresAt) > now)
    .map((s) => new Webhook(s.secret).sign(eventId, now, body))
    .join(' ');
}

/** How much of a receiver's answer is read (and dropped): enough to finish the exchange, not to hold a large body. */
const MAX_ANSWER_BYTES = 64 * 1024;

export function postEvent(job: DeliveryJob, opts: { timeoutMs: number; allowPrivate: boolean; now?: Date }): Promise<AttemptResult> {
  const now = opts.now ?? new Date();
  const body = eventBody(job.event);
  const url = new URL(job.url);
  const started = performance.now();
  const done = (r: Omit<AttemptResult, 'latencyMs'>): AttemptResult => ({ ...r, latencyMs: performance.now() - started });
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // An address in the URL is connected to without a lookup: checked here instead.
  if (!opts.allowPrivate && ipaddr.isValid(host) && !isPublicAddress(host)) {
    return Promise.resolve(done({ ok: false, error: `refused: ${host} is not a public address` }));
  }
  const options: RequestOptions = {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      'user-agent': 'relayflow-events',
      'webhook-id': job.event.eventId,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': signatures(job.secrets, job.event.eventId, now, body),
    },
    signal: AbortSignal.timeout(opts.timeoutMs),
    ...(opts.allowPrivate ? {} : { lookup: publicOnlyLookup }),
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const req = send(url, options, (res) => {
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_ANSWER_BYTES) res.destroy();
      });
      const settle = () => {
        const statusCode = res.statusCode ?? 0;
        const ok = statusCode >= 200 && statusCode < 300;
        const error = ok
          ? undefined
          : statusCode >= 300 && statusCode < 400
            ? `redirect to ${res.headers.location ?? '?'} not followed`
            : `answered ${statusCode}`;
        resolve(done({ ok, statusCode, ...(error ? { error } : {}) }));
      };
      res.on('end', settle);
      res.on('close', settle);
      res.on('error', settle);
    });
    req.on('error', (err: NodeJS.ErrnoException) =>
      resolve(done({ ok: false, error: err.name === 'AbortError' || err.name === 'TimeoutError' ? `no answer within ${opts.timeoutMs} ms` : err.message })),
    );
    req.end(body);
  });
}
