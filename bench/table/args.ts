// The table's flags: --profile short|full, --only name[,name] (repeatable), --record.
import { parseArgs } from 'node:util';
import { PROFILES, SUITE, type Profile } from '../suite.js';
import { unknownBenches } from './run-table.js';

export interface TableArgs {
  profile: Profile;
  only?: string[];
  record: boolean;
}

export function parseTableArgs(argv: string[], defaultProfile: Profile): TableArgs {
  const usage = `usage: [--profile ${PROFILES.join('|')}] [--only name[,name]] [--record]; benches: ${SUITE.map((b) => b.name).join(', ')}`;
  const fail = (msg: string): never => {
    process.stderr.write(`${msg}\n${usage}\n`);
    process.exit(2);
  };
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: { profile: { type: 'string' }, only: { type: 'string', multiple: true }, record: { type: 'boolean' } } }));
  } catch (err) {
    return fail((err as Error).message);
  }
  const profile = (values.profile ?? defaultProfile) as Profile;
  if (!PROFILES.includes(profile)) fail(`unknown profile "${profile}"`);
  const only = values.only?.flatMap((o) => o.split(',')).map((o) => o.trim()).filter(Boolean);
  const unknown = unknownBenches(only ?? []);
  if (unknown.length) fail(`unknown bench: ${unknown.join(', ')}`);
  return { profile, ...(only?.length ? { only } : {}), record: values.record ?? false };
}
