// Temporal client construction shared by the API, the dev runner and tests: same data converter everywhere.
import { Client, Connection } from '@temporalio/client';
import type { Config } from './config.js';
import { createDataConverter } from './data-converter.js';

export async function connectClient(config: Pick<Config, 'temporal' | 'codecKeys'>): Promise<Client> {
  const connection = await Connection.connect(config.temporal.connectionOptions as never);
  return new Client({
    connection,
    namespace: config.temporal.namespace ?? 'default',
    dataConverter: createDataConverter(config.codecKeys),
  });
}
