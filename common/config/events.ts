// Event subscriptions: where deliveries may go, how long they are retried and how many are on their way at once.
import Type, { type Static } from 'typebox';
import { millis, oneOf, whole } from './fields.js';

export interface EventSettings {
  /** A subscription's URL may name a loopback or private address (the machine's own network): off in production. */
  allowPrivateUrls: boolean;
  /** A delivery is retried (with exponential backoff) for this long; past it its subscription is disabled. */
  retryForMs: number;
  /** Deliveries a worker has on their way at once. */
  concurrency: number;
  /** A receiver that has not answered within this long has failed the attempt. */
  timeoutMs: number;
  /** Events (and delivered deliveries) are kept this long: a replay reaches back this far. */
  keepMs: number;
  /** The wait before a failed delivery's first retry; each next one waits twice as long, at most an hour. */
  firstRetryMs: number;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export const EVENT_VARIABLES = Type.Object({
  RELAYFLOW_EVENTS_ALLOW_PRIVATE_URLS: oneOf(
    ['on', 'off'],
    'off',
    'whether a subscription may deliver to a loopback, private or link-local address (`npm start` turns it on); off, such a URL is refused so a subscription cannot reach inside the network',
  ),
  RELAYFLOW_EVENTS_RETRY_FOR_MS: millis(
    3 * DAY,
    1_000,
    30 * DAY,
    'a failing delivery is retried with exponential backoff for this long; then its subscription is disabled',
  ),
  RELAYFLOW_EVENTS_CONCURRENCY: whole(16, 1, 256, 'event deliveries a worker has on their way at once'),
  RELAYFLOW_EVENTS_TIMEOUT_MS: millis(10_000, 100, 60_000, 'a receiver that has not answered within this long has failed the attempt'),
  RELAYFLOW_EVENTS_FIRST_RETRY_MS: millis(
    5_000,
    100,
    3_600_000,
    "the wait before a failed delivery's first retry; each next waits twice as long, at most an hour",
  ),
  RELAYFLOW_EVENTS_KEEP_MS: millis(30 * DAY, HOUR, 3_650 * DAY, 'events and their delivery logs are kept this long; a replay reaches back this far'),
});

export function loadEventSettings(v: Static<typeof EVENT_VARIABLES>): EventSettings {
  return {
    allowPrivateUrls: v.RELAYFLOW_EVENTS_ALLOW_PRIVATE_URLS === 'on',
    retryForMs: v.RELAYFLOW_EVENTS_RETRY_FOR_MS,
    concurrency: v.RELAYFLOW_EVENTS_CONCURRENCY,
    timeoutMs: v.RELAYFLOW_EVENTS_TIMEOUT_MS,
    keepMs: v.RELAYFLOW_EVENTS_KEEP_MS,
    firstRetryMs: v.RELAYFLOW_EVENTS_FIRST_RETRY_MS,
  };
}
