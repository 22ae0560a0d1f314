// Ports for a cluster beside others (the test rig's, a benchmark's, a developer's `npm run cluster`): free ones,
// and for the Temporal server a base whose whole block is free and low enough for its membership table.
import { canBind, freePort } from '../dev-server.js';
import { MAX_TEMPORAL_BASE_PORT, TEMPORAL_PORT_OFFSETS, type ClusterPorts } from './topology.js';

/** A random base from 20000 whose server ports are all free (at most MAX_TEMPORAL_BASE_PORT: see there). */
export async function freeTemporalBasePort(): Promise<number> {
  for (let tries = 0; tries < 50; tries++) {
    const base = 20_000 + Math.floor(Math.random() * (MAX_TEMPORAL_BASE_PORT - 20_000));
    if ((await Promise.all(TEMPORAL_PORT_OFFSETS.map((o) => canBind(base + o)))).every(Boolean)) return base;
  }
  throw new Error(`no free block of ports for the Temporal server between 20000 and ${MAX_TEMPORAL_BASE_PORT} after 50 tries`);
}

/** Every port of a cluster free; the workers' metrics left to the caller (0: none asked). */
export async function freeClusterPorts(): Promise<ClusterPorts> {
  const [postgres, sandbox, front, api1, api2, temporal] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
    freePort(),
    freeTemporalBasePort(),
  ]);
  return { postgres, temporal, sandbox, front, apis: [api1, api2], workerMetrics: [0, 0] };
}
