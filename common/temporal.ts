// Temporal client construction shared by the API, the dev runner and tests: same data converter everywhere.
import { Client, Connection, type ClientInterceptors } from '@temporalio/client';
import type { Config } from './config.js';
import { createDataConverter } from './data-converter.js';

/** `interceptors`: the API passes its actor interceptor (api/temporal-actor.ts); workers and scripts pass none. */
export async function connectClient(config: Pick<Config, 'temporal' | 'codecKeys'>, interceptors?: ClientInterceptors): Promise<Client> {
  const connection = await Connection.connect(config.temporal.connectionOptions as never);
  return new Client({
    connection,
    namespace: config.temporal.namespace ?? 'default',
    dataConverter: createDataConverter(config.codecKeys),
    ...(interceptors ? { interceptors } : {}),
  });
}
