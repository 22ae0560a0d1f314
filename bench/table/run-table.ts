// Runs the suite's benches for a profile one after another (never side by side: they measure the machine)
// and gathers their outcomes, the machine's description and what the profile leaves out. Used by the table
// (bench/table.ts) and the alarm (bench/alarm.ts).
import { access } from 'node:fs/promises';
import { SUITE, scriptOf, type Profile } from '../suite.js';
import { describeMachine, temporalCli } from './machine.js';
import type { BenchOutcome, TableRun } from './outcome.js';
import { runBench } from './run-bench.js';
import type { BenchTarget } from '../target.js';

export interface TableOptions {
  profile: Profile;
  /** The Temporal server the benches run on; dev when absent (the alarm's). */
  target?: BenchTarget;
  /** Bench names to run; all of the profile's when absent. */
  only?: string[];
  log?: (line: string) => void;
}

/** The cluster's own start (PostgreSQL, schemas, the server: about 10 s here) is not the bench's time. */
const CLUSTER_START_ALLOWANCE_S = 30;

/** Names in `only` that the suite does not know. */
export const unknownBenches = (only: readonly string[]) => only.filter((n) => !SUITE.some((b) => b.name === n));

/** One CPU profile file per bench when several run: `/tmp/rf.cpuprofile` becomes `/tmp/rf.<bench>.cpuprofile`. */
export const cpuProfileFor = (file: string, bench: string, several: boolean) => (several ? file.replace(/(\.cpuprofile)?$/, `.${bench}$1`) : file);

export async function runTable(opts: TableOptions): Promise<TableRun> {
  const log = opts.log ?? ((l: string) => process.stdout.write(`${l}\n`));
  const target = opts.target ?? 'dev';
  const t0 = Date.now();
  const startedAt = new Date().toISOString();
  // Named with --only, a bench runs in either profile; otherwise the short profile leaves some out.
  const toRun = SUITE.filter((b) => (opts.only ? opts.only.includes(b.name) : opts.profile === 'full' || !b.notInShort));
  const leftOut = opts.only || opts.profile === 'full' ? [] : SUITE.flatMap((b) => (b.notInShort ? [{ bench: b.name, why: b.notInShort }] : []));

  const cli = await temporalCli((m) => log(`[table] ${m}`)).catch((err: Error) => (log(`[table] no Temporal CLI: ${err.message}`), undefined));
  if (cli) log(`[table] Temporal CLI ${cli.version ?? ''} from ${cli.source}`);
  log(
    `[table] target ${target}: ${target === 'dev' ? "the Temporal CLI's dev server (SQLite)" : 'the Temporal server on PostgreSQL, as npm run cluster runs it'}`,
  );
  const cpuProfile = process.env.RELAYFLOW_BENCH_CPU_PROFILE;
  // Described before the benches run: the commit and tree measured are the ones at the start.
  const machine = await describeMachine(cli);

  const benches: BenchOutcome[] = [];
  for (const [i, b] of toRun.entries()) {
    const script = scriptOf(b);
    const boundMs = (b.bound[opts.profile] + (target === 'cluster' ? CLUSTER_START_ALLOWANCE_S : 0)) * 1000;
    if (
      !(await access(script).then(
        () => true,
        () => false,
      ))
    ) {
      log(`[table] ${b.name}: ${script} does not exist`);
      benches.push({ bench: b.name, status: 'no result', detail: `${script} does not exist`, seconds: 0, exitCode: null });
      continue;
    }
    log(`[table] ${i + 1}/${toRun.length} ${b.name} (${opts.profile} profile, bound ${boundMs / 1000} s)`);
    const env: NodeJS.ProcessEnv = { ...process.env, RELAYFLOW_BENCH_PROFILE: opts.profile, RELAYFLOW_BENCH_TARGET: target };
    if (cli?.path) env.RELAYFLOW_TEMPORAL_CLI = cli.path;
    if (cpuProfile) env.RELAYFLOW_BENCH_CPU_PROFILE = cpuProfileFor(cpuProfile, b.name, toRun.length > 1);
    const outcome = await runBench({ name: b.name, command: [process.execPath, '--import', 'tsx', script], boundMs, env, write: log });
    log(`[table] ${b.name}: ${outcome.status}${outcome.detail ? ` (${outcome.detail})` : ''} in ${outcome.seconds.toFixed(1)} s`);
    benches.push(outcome);
  }
  return { profile: opts.profile, target, startedAt, wallSeconds: (Date.now() - t0) / 1000, machine, benches, leftOut };
}
