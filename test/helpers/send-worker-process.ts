// A send worker in its own process (`npx tsx test/helpers/send-worker-process.ts`), so a test can kill it with
// SIGKILL mid-chunk as a crash would. Configured entirely by environment (the test's config plus
// RELAYFLOW_DATABASE_URL); prints "ready" once polling, and its peak memory as it exits.
import { NativeConnection } from '@temporalio/worker';
import { loadConfig } from '../../common/config.js';
import { createLogger } from '../../common/logger.js';
import { createPlatformClients } from '../../platform/index.js';
import { openCampaignStore } from '../../store/index.js';
import { installRuntime } from '../../workers/runtime.js';
import { createSendWorkers } from '../../workers/send-worker.js';
import { WorkerGroup } from '../../workers/worker.js';

const config = loadConfig();
const logger = createLogger({ name: 'send-worker-process', level: process.env.TEST_LOG_LEVEL ?? 'silent' });
installRuntime(logger, { handleSignals: true });
const store = await openCampaignStore({ url: config.database.url, dataDir: '' });
const connection = await NativeConnection.connect(config.temporal.connectionOptions);
const clients = createPlatformClients(config.platform, { logger });
const worker = new WorkerGroup(
  await createSendWorkers({ config, logger, connection, clients, store, ...(process.env.TEST_PUBLIC_URL ? { publicUrl: process.env.TEST_PUBLIC_URL } : {}) }),
);
const running = worker.run();
process.stdout.write('ready\n');
await running;
await connection.close();
await store.sql.close();
// For the campaign benchmark: the process's peak memory (resourceUsage gives KiB).
process.stdout.write(`maxrss ${process.resourceUsage().maxRSS * 1024}\n`);
