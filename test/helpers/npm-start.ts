// What a test that runs `npm start` itself (scripts/dev.ts) gives it: a data directory and a free port for
// each part, so it never meets a developer's running `npm start` or another test's.
import { freePort } from './ports.js';

export interface NpmStartPorts {
  api: number;
  ui: number;
  sandbox: number;
  codec: number;
  workerMetrics: number;
}

export async function npmStartEnv(dataDir: string): Promise<{ ports: NpmStartPorts; env: Record<string, string> }> {
  const ports: NpmStartPorts = {
    api: await freePort(),
    ui: await freePort(),
    sandbox: await freePort(),
    codec: await freePort(),
    workerMetrics: await freePort(),
  };
  return {
    ports,
    env: {
      RELAYFLOW_DATA_DIR: dataDir,
      RELAYFLOW_API_PORT: String(ports.api),
      // 0: npm start picks the Temporal port itself, and picks again if another process takes it first (seen in CI).
      RELAYFLOW_TEMPORAL_PORT: '0',
      RELAYFLOW_TEMPORAL_UI_PORT: String(ports.ui),
      SANDBOX_PORT: String(ports.sandbox),
      RELAYFLOW_DEV_CODEC_PORT: String(ports.codec),
      // Not the default 9464, which another npm start (a developer's, or the other test's) may hold.
      RELAYFLOW_WORKER_METRICS_PORT: String(ports.workerMetrics),
      RELAYFLOW_LOG_LEVEL: 'warn',
    },
  };
}
