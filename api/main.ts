// API entry point: `npm run api` (dev) or `node dist/api/main.js` (production image).
import type { Client } from '@temporalio/client';
import { countByScope } from '../common/api-keys.js';
import { loadConfigOrExit } from '../common/config.js';
import { AesGcmPayloadCodec } from '../common/codec.js';
import { createLogger } from '../common/logger.js';
import { shutdownTracing } from '../common/tracing.js';
import { connectClient } from '../common/temporal.js';
import { openCampaignStore } from '../store/index.js';
import { buildApp } from './app.js';
import { reloadApiKeysOnSighup } from './key-reload.js';
import { KeyRing } from './plugins/key-ring.js';
import { apiClientInterceptors } from './temporal-actor.js';

const config = loadConfigOrExit('api');
const logger = createLogger({ name: 'relayflow-api', level: config.logLevel });
const client: Client = await connectClient(
  config,
  apiClientInterceptors(() => client),
);
// The embedded store serves one process only (npm start); a separate API needs the shared database.
const store = config.database.url ? await openCampaignStore({ url: config.database.url, dataDir: config.dataDir, logger }) : undefined;
if (!store) logger.warn('RELAYFLOW_DATABASE_URL is not set: campaign routes, delivery intakes and verification starts answer 503');
const keys = new KeyRing(config.api.keys);
const app = await buildApp({ config, client, codec: new AesGcmPayloadCodec(config.codecKeys), logger, store, keys });
logger.info({ file: config.api.apiKeysFile, keysByScope: countByScope(config.api.keys) }, 'API keys loaded');
// Key rotation: `kill -HUP <pid>` re-reads RELAYFLOW_API_KEYS_FILE.
reloadApiKeysOnSighup(keys, { envKeys: config.api.apiKeys, file: config.api.apiKeysFile }, logger);
await app.listen({ host: config.api.host, port: config.api.port });

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    logger.info({ signal }, 'stopping API');
    // buildApp started tracing when OTEL_EXPORTER_OTLP_ENDPOINT is set: its last spans are exported before exit.
    void app
      .close()
      .then(() => client.connection.close())
      .then(() => store?.sql.close())
      .then(() => shutdownTracing().catch((err: unknown) => logger.warn({ err }, 'tracing: the last spans were not exported')))
      .then(() => process.exit(0));
  });
}
