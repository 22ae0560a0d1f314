// API entry point: `npm run api` (dev) or `node dist/api/main.js` (production image).
import { loadConfig } from '../common/config.js';
import { AesGcmPayloadCodec } from '../common/codec.js';
import { createLogger } from '../common/logger.js';
import { connectClient } from '../common/temporal.js';
import { buildApp } from './app.js';

const config = (() => {
  try {
    return loadConfig();
  } catch (err) {
    console.error(`relayflow api: configuration error: ${(err as Error).message}`);
    process.exit(1);
  }
})();
const logger = createLogger({ name: 'relayflow-api', level: config.logLevel });
const client = await connectClient(config);
const app = await buildApp({ config, client, codec: new AesGcmPayloadCodec(config.codecKeys), logger });
await app.listen({ host: config.api.host, port: config.api.port });

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    logger.info({ signal }, 'stopping API');
    void app.close().then(() => client.connection.close()).then(() => process.exit(0));
  });
}
