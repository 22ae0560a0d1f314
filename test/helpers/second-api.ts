// A second API instance beside a harness's: its own store pool, Temporal connection and app, on the same database
// and task queue, as two deployed API instances are. Call it inside describe(): it is closed after the suite.
import { after, before } from 'node:test';
import type { Client } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../api/app.js';
import { apiClientInterceptors } from '../../api/temporal-actor.js';
import { AesGcmPayloadCodec } from '../../common/codec.js';
import { createLogger } from '../../common/logger.js';
import { connectClient } from '../../common/temporal.js';
import { openCampaignStore, type CampaignStore } from '../../store/index.js';
import type { Harness } from './harness.js';

export function secondApiInstance(h: Harness, databaseUrl: () => string): { readonly app: FastifyInstance; readonly store: CampaignStore } {
  let store: CampaignStore | undefined;
  let client: Client | undefined;
  let app: FastifyInstance | undefined;
  before(async () => {
    store = await openCampaignStore({ url: databaseUrl(), dataDir: '' });
    client = await connectClient(
      h.config,
      apiClientInterceptors(() => client!),
    );
    app = await buildApp({
      config: h.config,
      client,
      codec: new AesGcmPayloadCodec(h.config.codecKeys),
      logger: createLogger({ name: 'test', level: 'silent' }),
      store,
    });
  });
  after(async () => {
    await app?.close();
    await client?.connection.close();
    await store?.sql.close();
  });
  return {
    get app() {
      return app!;
    },
    get store() {
      return store!;
    },
  };
}
