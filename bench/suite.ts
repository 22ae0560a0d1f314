// The benchmarks `npm run bench` runs, in this order, each as its own process with a hard wall-clock bound per
// profile (the runner kills the bench's processes when it is exceeded and reports the row as timed out).
// RELAYFLOW_BENCH_PROFILE=short|full tells the script which size to run. The short profile is what the CI
// alarm runs: all of it together must stay within about 150 s on a 2-core machine, so a bench that cannot
// fit is left out of it, with the reason.
export type Profile = 'short' | 'full';
export const PROFILES: readonly Profile[] = ['short', 'full'];

export interface SuiteBench {
  /** The name in the table, and the script: bench/<name>.ts. */
  name: string;
  /** Wall-clock bound per profile in seconds, startup included; a string says why it is not in that profile. */
  bound: Record<Profile, number | string>;
}

export const SUITE: readonly SuiteBench[] = [
  { name: 'verification', bound: { short: 60, full: 240 } },
  { name: 'voice-callbacks', bound: { short: 60, full: 240 } },
  { name: 'webhook-intake', bound: { short: 60, full: 240 } },
  { name: 'memory', bound: { short: 60, full: 240 } },
  { name: 'actions', bound: { short: 60, full: 240 } },
  { name: 'campaign', bound: { short: 60, full: 240 } },
];

export const scriptOf = (bench: SuiteBench) => `bench/${bench.name}.ts`;
