// relayflow's event deliveries, checked per the Standard Webhooks specification with its reference library.
import { Webhook } from 'standardwebhooks';
import type { operations } from './openapi.js';

/**
 * One change of a process as relayflow sends it (docs/events.md; the OpenAPI document's `webhooks.processEvent`):
 * `{type, timestamp, data}`, never a phone number or a code. Dedupe on `data.eventId` (the `webhook-id` header).
 */
export type RelayflowEvent = operations['receiveProcessEvent']['requestBody']['content']['application/json'];

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

/** The three webhook-* headers, from a fetch Headers or a node:http request's headers. */
function webhookHeaders(headers: HeaderBag): Record<string, string> {
  const get = (name: string) => {
    const value = headers instanceof Headers ? headers.get(name) : headers[name];
    return Array.isArray(value) ? value.join(' ') : (value ?? '');
  };
  return { 'webhook-id': get('webhook-id'), 'webhook-timestamp': get('webhook-timestamp'), 'webhook-signature': get('webhook-signature') };
}

/**
 * The event of a delivery whose signature matches `secret` (the subscription's `whsec_...`) over the raw body, sent
 * within the last five minutes; throws otherwise (a forged, altered or replayed delivery: answer it 4xx).
 */
export function verifyEvent(secret: string, rawBody: string | Buffer, headers: HeaderBag): RelayflowEvent {
  const payload = typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8');
  const event = new Webhook(secret).verify(payload, webhookHeaders(headers)) as Partial<RelayflowEvent> | null;
  if (!event || typeof event.type !== 'string' || typeof event.timestamp !== 'string' || typeof event.data !== 'object' || event.data === null) {
    throw new Error('relayflow event: the signed body is not an event envelope {type, timestamp, data}');
  }
  return event as RelayflowEvent;
}
