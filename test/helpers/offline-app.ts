// The API as production builds it, with no Temporal behind it (a lazy connection nothing may use) and a stub
// platform that answers every request with `answer` and counts them: for routes whose answer must not depend
// on either (validation, the mapping of platform errors).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../api/app.js';
import { AesGcmPayloadCodec, generateCodecKey } from '../../common/codec.js';
import { loadConfig } from '../../common/config.js';
import { createLogger } from '../../common/logger.js';
import { startStub } from './stub-server.js';

export interface OfflineApp {
  app: FastifyInstance;
  /** A request with the app's admin key. */
  api: (method: string, url: string, payload?: unknown) => Promise<LightMyRequestResponse>;
  /** How many requests reached the stub platform. */
  platformRequests: () => number;
  close: () => Promise<void>;
}

export async function offlineApp(answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<OfflineApp> {
  const key = 'offline-app-test-key-00000000001';
  let requests = 0;
  const stub = await startStub((req, res) => {
    requests += 1;
    answer(req, res);
  });
  const config = loadConfig({
    RELAYFLOW_API_KEYS: key,
    RELAYFLOW_CODEC_KEYS: generateCodecKey('offline'),
    PLATFORM_SANDBOX_URL: stub.url,
  });
  const client = new Client({ connection: Connection.lazy({ address: '127.0.0.1:9' }) });
  const app = await buildApp({
    config,
    client,
    codec: new AesGcmPayloadCodec(config.codecKeys),
    logger: createLogger({ name: 'offline-app', level: 'silent' }),
  });
  return {
    app,
    api: (method, url, payload) =>
      app.inject({
        method: method as 'GET',
        url,
        headers: { authorization: `Bearer ${key}` },
        ...(payload === undefined ? {} : { payload: payload as object }),
      }),
    platformRequests: () => requests,
    close: async () => {
      await app.close();
      await client.connection.close();
      await stub.close();
    },
  };
}
