// What one run of the table holds: each bench's outcome (its BENCH_JSON result, or why there is none), the
// machine it ran on, and the profile. This is the shape of bench/results/*.json.
import type { BenchResult } from '../result.js';
import type { Profile } from '../suite.js';
import type { BenchTarget } from '../target.js';

type BenchStatus = 'ok' | 'timed out' | 'no result';

export interface BenchOutcome {
  bench: string;
  status: BenchStatus;
  /** Why there is no result, or what else happened (a non-zero exit after the result). */
  detail?: string;
  seconds: number;
  exitCode: number | null;
  result?: BenchResult;
}

export interface Machine {
  cpus: { model: string; count: number };
  totalMemoryGiB: number;
  node: string;
  platform: string;
  release: string;
  temporalCli?: { source: string; version?: string };
  git?: { commit: string; dirty: boolean };
}

export interface TableRun {
  profile: Profile;
  /** The Temporal server the benches ran on; absent in runs from before there was a choice (dev). */
  target?: BenchTarget;
  startedAt: string;
  wallSeconds: number;
  machine: Machine;
  benches: BenchOutcome[];
  /** Benches of the suite left out of this profile, with the reason. */
  leftOut: { bench: string; why: string }[];
}
