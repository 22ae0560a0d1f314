// Standalone sandbox: `npm run sandbox`. Prints its URL; stops on SIGINT/SIGTERM.
import { createLogger } from '../common/logger.js';
import { createSandbox } from './index.js';
import { readSandboxMainConfig, type SandboxMainConfig } from './main-config.js';

const logger = createLogger({ name: 'sandbox' });

let config: SandboxMainConfig;
try {
  config = readSandboxMainConfig(process.env);
} catch (err) {
  process.stderr.write(`sandbox: invalid configuration: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}

const sandbox = await createSandbox({
  logger,
  ...(config.tokenLifetimeSeconds !== undefined ? { tokenLifetimeSeconds: config.tokenLifetimeSeconds } : {}),
  ...(config.subprojectReadyAfterMs !== undefined ? { subprojectReadyAfterMs: config.subprojectReadyAfterMs } : {}),
  ...(config.dataDir !== undefined ? { dataDir: config.dataDir } : {}),
});
const url = await sandbox.listen({ port: config.port, host: config.host });
logger.info({ url, urls: sandbox.platformUrls() }, 'sandbox listening');
process.stdout.write(`sandbox listening on ${url}\n`);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'sandbox stopping');
    sandbox.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'sandbox close failed');
        process.exit(1);
      },
    );
  });
}
