// The benchmarks `npm run bench` runs, in this order, each as its own process with a hard wall-clock bound per
// profile (the runner kills the bench's processes when it is exceeded and reports the row as timed out).
// RELAYFLOW_BENCH_PROFILE=short|full tells the script which size to run. The short profile is what the CI
// alarm runs: all of it together must stay within about 200 s on a 2-core machine, so the benches that cannot
// fit are left out of it (they still run short when named with --only).
export type Profile = 'short' | 'full';
export const PROFILES: readonly Profile[] = ['short', 'full'];

export interface SuiteBench {
  /** The name in the table, and the script: bench/<name>.ts. */
  name: string;
  /** Wall-clock bound per profile in seconds, the bench's start included (a short run is asked for 40 s). */
  bound: Record<Profile, number>;
  /** Why the short table (and so the CI alarm) leaves it out. */
  notInShort?: string;
}

export const SUITE: readonly SuiteBench[] = [
  { name: 'verification', bound: { short: 60, full: 240 } },
  { name: 'voice-callbacks', bound: { short: 60, full: 240 } },
  { name: 'webhook-intake', bound: { short: 90, full: 240 } },
  // Each scenario waits for the server to go quiet before and after it (about 2.5 s each, six scenarios).
  { name: 'actions', bound: { short: 80, full: 240 } },
  {
    name: 'memory',
    bound: { short: 60, full: 240 },
    notInShort: 'about 50 s short: a worker process of its own, measured idle and loaded; the short table would pass 200 s',
  },
  // In the short table since its shared send schedule: 37 s short here (2,000 at 200/s, one round), and its
  // margin to the target is thin, so every short table checks it.
  { name: 'campaign', bound: { short: 60, full: 240 } },
  // About 30 s short: the outbox on a PostgreSQL of its own, no Temporal.
  { name: 'events', bound: { short: 60, full: 240 } },
  // About 2 min full (100,000 archived processes: 30 s to fill, 42 s an export), 20 s short.
  {
    name: 'audit-export',
    bound: { short: 60, full: 240 },
    notInShort: 'its figure is the 100,000 of the full profile; 20 s short would take the short table past 200 s',
  },
  // Real verifications closed through the API, then archived by the worker's archiver (workers/audit/): 36 to 50 s
  // short (2 rounds of 40 closed twice each), 2 to 3 min full (3 of 150).
  { name: 'archiver', bound: { short: 90, full: 300 } },
];

export const scriptOf = (bench: SuiteBench) => `bench/${bench.name}.ts`;
