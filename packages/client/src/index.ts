// @relayflow/client: relayflow's API typed from its OpenAPI document (openapi-fetch over the generated types),
// writes retried safely under one Idempotency-Key, and the check of the events relayflow delivers.
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './openapi.js';
import { retryingFetch, type RetryOptions } from './retry.js';

export type { paths, components, operations } from './openapi.js';
export { verifyEvent, type RelayflowEvent } from './events.js';
export { retryingFetch, type RetryOptions } from './retry.js';

export interface RelayflowClientOptions {
  /** The API's address, e.g. http://127.0.0.1:3000 (no /v1: paths carry it). */
  baseUrl: string;
  /** An API key (RELAYFLOW_API_KEYS), sent as a bearer token. */
  apiKey: string;
  /** The fetch underneath (default: the global one). */
  fetch?: typeof fetch;
  /** How retries go; `false`: none (every call tried once, no Idempotency-Key added). */
  retry?: RetryOptions | false;
}

export type RelayflowClient = Client<paths>;

/** A typed client: `client.POST('/v1/verifications', { body })` answers `{ data, error, response }`. */
export function createRelayflowClient(opts: RelayflowClientOptions): RelayflowClient {
  const base = opts.fetch ?? globalThis.fetch;
  return createClient<paths>({
    baseUrl: opts.baseUrl.replace(/\/+$/, ''),
    headers: { authorization: `Bearer ${opts.apiKey}` },
    fetch: opts.retry === false ? base : retryingFetch(base, opts.retry),
  });
}
