// The test suite's preflight: the Temporal CLI, PostgreSQL's binaries and Chromium, found (or installed into
// the cache) at once and in parallel, one log line each; when one cannot be had, one error names every
// missing dependency and the command that supplies it.
import { findChromium, type Chromium } from './chromium.js';
import { secondsSince, type Env } from './local-tools.js';
import { findPostgresBin, type PostgresBin } from './postgres-bin.js';
import { findTemporalCli, type TemporalCli } from './temporal-cli.js';

export interface TestDependencies {
  temporalCli: TemporalCli;
  postgresBin: string;
  chromium: string;
  /** For the test child processes: what was found, so they do not look again. */
  env: Record<string, string>;
}

interface Finders {
  temporalCli: (env: Env, log: (msg: string) => void) => Promise<TemporalCli>;
  postgres: (env: Env, log: (msg: string) => void) => Promise<PostgresBin>;
  chromium: (env: Env, log: (msg: string) => void) => Promise<Chromium>;
}

const FINDERS: Finders = {
  temporalCli: (env, log) => findTemporalCli({ env, log }),
  postgres: (env, log) => findPostgresBin({ env, log }),
  chromium: (env, log) => findChromium({ env, log }),
};

/** "Temporal CLI: /path (PATH)", with how long finding it took when that was noticeable (an install). */
export function describeDependency(name: string, where: string, source: string, ms: number): string {
  const took = ms >= 1_000 ? `, took ${(ms / 1000).toFixed(1)} s` : '';
  return `${name}: ${where} (${source}${took})`;
}

/** The env vars that hand what was found to the test processes (the SDK download has no path to hand). */
export function dependencyEnv(deps: { temporalCli: TemporalCli; postgresBin: string; chromium: string }): Record<string, string> {
  const env: Record<string, string> = { RELAYFLOW_PG_BIN: deps.postgresBin, CHROMIUM_PATH: deps.chromium };
  if (deps.temporalCli.kind === 'path') env.RELAYFLOW_TEMPORAL_CLI = deps.temporalCli.path;
  return env;
}

/** One error for every failure, each under its dependency's name (their messages say how to supply it). */
export function combineFailures(failures: Array<{ name: string; error: unknown }>): Error {
  const parts = failures.map(({ name, error }) => `${name}:\n  ${(error instanceof Error ? error.message : String(error)).replace(/\n/g, '\n  ')}`);
  return new Error(`The test suite is missing ${failures.map((f) => f.name).join(', ')}.\n${parts.join('\n')}`);
}

export async function ensureTestDependencies(opts: { log: (msg: string) => void; env?: NodeJS.ProcessEnv; finders?: Finders }): Promise<TestDependencies> {
  const env = opts.env ?? process.env;
  const finders = opts.finders ?? FINDERS;
  const timed = async <T>(name: string, find: () => Promise<T>, where: (found: T) => [string, string]) => {
    const start = Date.now();
    const found = await find();
    opts.log(describeDependency(name, ...where(found), Date.now() - start));
    return found;
  };
  const start = Date.now();
  const results = await Promise.allSettled([
    timed(
      'Temporal CLI',
      () => finders.temporalCli(env, opts.log),
      (c) => [c.kind === 'path' ? c.path : 'downloaded by the SDK when first used', c.source],
    ),
    timed(
      'PostgreSQL',
      () => finders.postgres(env, opts.log),
      (p) => [p.bin, `${p.source}, ${p.version}`],
    ),
    timed(
      'Chromium',
      () => finders.chromium(env, opts.log),
      (c) => [c.path, c.source],
    ),
  ]);
  const names = ['Temporal CLI', 'PostgreSQL', 'Chromium'];
  const failures = results.flatMap((r, i) => (r.status === 'rejected' ? [{ name: names[i]!, error: r.reason as unknown }] : []));
  if (failures.length) throw combineFailures(failures);
  const [temporalCli, postgres, chromium] = results.map((r) => (r as PromiseFulfilledResult<unknown>).value) as [TemporalCli, PostgresBin, Chromium];
  opts.log(`test dependencies ready in ${secondsSince(start)} s`);
  const deps = { temporalCli, postgresBin: postgres.bin, chromium: chromium.path };
  return { ...deps, env: dependencyEnv(deps) };
}
