// Worker entry point: `npm run worker` (dev) or `node dist/workers/main.js` (production image).
import { loadConfigOrExit } from '../common/config.js';
import { createLogger } from '../common/logger.js';
import { shutdownTracing, tracerOf } from '../common/tracing.js';
import { connectClient } from '../common/temporal.js';
import { createPlatformClients } from '../platform/index.js';
import { explicitPublicUrl, wireCallbacks } from './callbacks.js';
import { countPlatformCall } from './metrics.js';
import { installRuntime } from './runtime.js';
import { ensureSearchAttributes } from './search-attributes.js';
import { WORKER_SERVICE } from './tracing.js';
import { createWorker } from './worker.js';
import { openCampaignStore } from '../store/index.js';

const config = loadConfigOrExit('worker');
const logger = createLogger({ name: 'relayflow-worker', level: config.logLevel });
// The runtime handles SIGINT/SIGTERM: the worker stops polling, drains its tasks, then run() returns.
// It also serves the worker's /metrics (RELAYFLOW_WORKER_METRICS_PORT).
installRuntime(logger, { handleSignals: true, metrics: config.workerMetrics });
const client = await connectClient(config);
await ensureSearchAttributes(client, logger);
await client.connection.close();
// Campaign sends need the shared database: the embedded store serves one process only (npm start).
const store = config.database.url ? await openCampaignStore({ url: config.database.url, dataDir: config.dataDir, logger }) : undefined;
const { worker, connection } = await createWorker({ config, logger, ...(store ? { store } : {}) });

// Alongside the worker, not before it: processes run (and poll) while the platform is unreachable.
const publicUrl = explicitPublicUrl(config);
const stopWiring = new AbortController();
const wiring = publicUrl
  ? (() => {
      const platform = createPlatformClients(config.platform, { logger, onCall: countPlatformCall, tracer: tracerOf(WORKER_SERVICE) });
      return wireCallbacks({
        config,
        publicUrl,
        provisioning: platform.provisioning,
        senderid: platform.senderid,
        voice: platform.voice,
        logger,
        signal: stopWiring.signal,
      });
    })()
  : Promise.resolve(logger.info('RELAYFLOW_PUBLIC_URL is not set: no callback wiring (the platform is not told where relayflow is)'));
await worker.run();
stopWiring.abort();
await wiring;
await connection.close();
await store?.sql.close();
// The last spans (createWorker started tracing when OTEL_EXPORTER_OTLP_ENDPOINT is set) are exported before exit.
await shutdownTracing().catch((err: unknown) => logger.warn({ err }, 'tracing: the last spans were not exported'));
logger.info('worker stopped');
