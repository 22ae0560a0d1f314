// The table's flags: --profile short|full, --target dev|cluster, --only name[,name] (repeatable), --record, --from <run.json>.
import { parseArgs } from 'node:util';
import { PROFILES, SUITE, type Profile } from '../suite.js';
import { BENCH_TARGETS, type BenchTarget } from '../target.js';
import { unknownBenches } from './run-table.js';

export interface TableArgs {
  profile: Profile;
  /** The Temporal server the benches run on (bench/target.ts): the flag, else RELAYFLOW_BENCH_TARGET, else dev. */
  target: BenchTarget;
  only?: string[];
  record: boolean;
  /** A run already made (bench/results/*.json): shown, and recorded with --record, without running anything. */
  from?: string;
}

export function parseTableArgs(argv: string[], defaultProfile: Profile, env: NodeJS.ProcessEnv = process.env): TableArgs {
  const usage = `usage: [--profile ${PROFILES.join('|')}] [--target ${BENCH_TARGETS.join('|')}] [--only name[,name]] [--record] [--from <run.json>]; benches: ${SUITE.map((b) => b.name).join(', ')}`;
  const fail = (msg: string): never => {
    process.stderr.write(`${msg}\n${usage}\n`);
    process.exit(2);
  };
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        profile: { type: 'string' },
        target: { type: 'string' },
        only: { type: 'string', multiple: true },
        record: { type: 'boolean' },
        from: { type: 'string' },
      },
    }));
  } catch (err) {
    return fail((err as Error).message);
  }
  const profile = (values.profile ?? defaultProfile) as Profile;
  if (!PROFILES.includes(profile)) fail(`unknown profile "${profile}"`);
  const target = (values.target ?? (env.RELAYFLOW_BENCH_TARGET?.trim() || 'dev')) as BenchTarget;
  if (!BENCH_TARGETS.includes(target)) fail(`unknown target "${target}" (--target or RELAYFLOW_BENCH_TARGET: ${BENCH_TARGETS.join(' or ')})`);
  const only = values.only
    ?.flatMap((o) => o.split(','))
    .map((o) => o.trim())
    .filter(Boolean);
  const unknown = unknownBenches(only ?? []);
  if (unknown.length) fail(`unknown bench: ${unknown.join(', ')}`);
  return { profile, target, ...(only?.length ? { only } : {}), record: values.record ?? false, ...(values.from ? { from: values.from } : {}) };
}
