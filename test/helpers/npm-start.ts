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
  // Five different ports: each is free when picked but bound only later, so two picks could name the same one.
  const taken = new Set<number>();
  const pick = async (): Promise<number> => {
    for (;;) {
      const port = await freePort();
      if (taken.has(port)) continue;
      taken.add(port);
      return port;
    }
  };
  const ports: NpmStartPorts = { api: await pick(), ui: await pick(), sandbox: await pick(), codec: await pick(), workerMetrics: await pick() };
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
