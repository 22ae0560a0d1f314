// Finds or builds the Temporal server and its SQL schema tool for `npm run cluster`: the env overrides, else the
// cache outside the repo, else `go install` of the pinned version into that cache (minutes on 2 cores, once).
// The schema files the tool applies come from Go's module cache, where that build (or `go mod download`) puts them.
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { cacheRoot, isExecutable, runQuiet, secondsSince, type Env } from '../local-tools.js';

export const TEMPORAL_SERVER_VERSION = '1.29.1';
const MODULE = 'go.temporal.io/server';

export interface TemporalServerBin {
  server: string;
  sqlTool: string;
  /** The versioned PostgreSQL schema directories update-schema reads. */
  schema: { temporal: string; visibility: string };
  /** How they were found: "RELAYFLOW_TEMPORAL_SERVER_BIN", "cached in ...", "built into ... (182.3 s)". */
  source: string;
}

async function goEnv(name: string, env: Env): Promise<string> {
  return (await runQuiet('go', ['env', name], { env })).trim();
}

async function schemaDirs(env: Env): Promise<TemporalServerBin['schema']> {
  const root = join(await goEnv('GOMODCACHE', env), `${MODULE}@v${TEMPORAL_SERVER_VERSION}`, 'schema', 'postgresql', 'v12');
  if (!existsSync(root)) await runQuiet('go', ['mod', 'download', `${MODULE}@v${TEMPORAL_SERVER_VERSION}`], { env, timeoutMs: 600_000 });
  const schema = { temporal: join(root, 'temporal', 'versioned'), visibility: join(root, 'visibility', 'versioned') };
  for (const dir of Object.values(schema)) if (!existsSync(dir)) throw new Error(`no Temporal schema at ${dir}`);
  return schema;
}

export async function findTemporalServerBin(opts: { env?: Env; log?: (msg: string) => void } = {}): Promise<TemporalServerBin> {
  const env = opts.env ?? process.env;
  const log = opts.log ?? (() => {});
  const explicitServer = env.RELAYFLOW_TEMPORAL_SERVER_BIN?.trim();
  const explicitTool = env.RELAYFLOW_TEMPORAL_SQL_TOOL_BIN?.trim();
  if (explicitServer || explicitTool) {
    if (!explicitServer || !explicitTool) throw new Error('set both RELAYFLOW_TEMPORAL_SERVER_BIN and RELAYFLOW_TEMPORAL_SQL_TOOL_BIN, or neither');
    for (const p of [explicitServer, explicitTool]) if (!(await isExecutable(p))) throw new Error(`${p} is missing or not executable`);
    return {
      server: explicitServer,
      sqlTool: explicitTool,
      schema: await schemaDirs(env),
      source: 'RELAYFLOW_TEMPORAL_SERVER_BIN / RELAYFLOW_TEMPORAL_SQL_TOOL_BIN',
    };
  }
  const dir = join(cacheRoot(env), `temporal-server-${TEMPORAL_SERVER_VERSION}`);
  // `go install` names each binary after its package's folder: cmd/server and cmd/tools/sql.
  const server = join(dir, 'server');
  const sqlTool = join(dir, 'sql');
  if ((await isExecutable(server)) && (await isExecutable(sqlTool))) return { server, sqlTool, schema: await schemaDirs(env), source: `cached in ${dir}` };

  await mkdir(dir, { recursive: true });
  log(
    `building Temporal server ${TEMPORAL_SERVER_VERSION} and its SQL tool into ${dir} (go install, once: minutes on 2 cores, 10 min under load; seconds when Go's build cache has it)...`,
  );
  const start = Date.now();
  try {
    const pkgs = ['cmd/server', 'cmd/tools/sql'].map((p) => `${MODULE}/${p}@v${TEMPORAL_SERVER_VERSION}`);
    await runQuiet('go', ['install', ...pkgs], { env: { GOBIN: dir }, timeoutMs: 30 * 60_000 });
  } catch (err) {
    throw new Error(
      `could not build the Temporal server (${(err as Error).message}). Install Go, or set RELAYFLOW_TEMPORAL_SERVER_BIN and RELAYFLOW_TEMPORAL_SQL_TOOL_BIN`,
    );
  }
  return { server, sqlTool, schema: await schemaDirs(env), source: `built into ${dir} (${secondsSince(start)} s)` };
}
