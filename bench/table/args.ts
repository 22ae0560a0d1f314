// The table's flags: --profile short|full, --only name[,name] (repeatable), --record, --from <run.json>.
import { parseArgs } from 'node:util';
import { PROFILES, SUITE, type Profile } from '../suite.js';
import { unknownBenches } from './run-table.js';

export interface TableArgs {
  profile: Profile;
  only?: string[];
  record: boolean;
  /** A run already made (bench/results/*.json): shown, and recorded with --record, without running anything. */
  from?: string;
}

export function parseTableArgs(argv: string[], defaultProfile: Profile): TableArgs {
  const usage = `usage: [--profile ${PROFILES.join('|')}] [--only name[,name]] [--record] [--from <run.json>]; benches: ${SUITE.map((b) => b.name).join(', ')}`;
  const fail = (msg: string): never => {
    process.stderr.write(`${msg}\n${usage}\n`);
    process.exit(2);
  };
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { profile: { type: 'string' }, only: { type: 'string', multiple: true }, record: { type: 'boolean' }, from: { type: 'string' } },
    }));
  } catch (err) {
    return fail((err as Error).message);
  }
  const profile = (values.profile ?? defaultProfile) as Profile;
  if (!PROFILES.includes(profile)) fail(`unknown profile "${profile}"`);
  const only = values.only
    ?.flatMap((o) => o.split(','))
    .map((o) => o.trim())
    .filter(Boolean);
  const unknown = unknownBenches(only ?? []);
  if (unknown.length) fail(`unknown bench: ${unknown.join(', ')}`);
  return { profile, ...(only?.length ? { only } : {}), record: values.record ?? false, ...(values.from ? { from: values.from } : {}) };
}
