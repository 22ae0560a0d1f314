// One PostgreSQL for the whole run (scripts/test.ts starts it): each harness gets a database of its own,
// copied from a migrated template, in about a tenth of a second and almost no CPU, where an embedded PGlite
// store cost each harness 1 to 2 s of CPU. Without the runner's server (a file run alone, the fuzzer), the
// harness falls back to PGlite.
import pg from 'pg';
import { ulid } from 'ulid';
import { openCampaignStore } from '../../store/index.js';
import { startPostgres, type TestPostgres } from './postgres.js';

/** The runner's server for the test processes: its URL (database `postgres`). */
export const SHARED_PG_ENV = 'RELAYFLOW_TEST_PG_URL';
const TEMPLATE = 'relayflow_test_template';

const withDatabase = (url: string, name: string) => {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
};

/** Starts the run's server with a migrated template database. */
export async function startSharedPostgres(): Promise<TestPostgres> {
  const server = await startPostgres();
  try {
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${TEMPLATE}`).finally(() => admin.end());
    const store = await openCampaignStore({ url: withDatabase(server.url, TEMPLATE), dataDir: '', inMemory: false });
    await store.sql.close();
    return server;
  } catch (err) {
    await server.stop();
    throw err;
  }
}

/** A fresh database copied from the template, for one harness; undefined without the runner's server. */
export async function sharedDatabaseUrl(env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const url = env[SHARED_PG_ENV];
  if (!url) return undefined;
  const name = `h_${ulid().toLowerCase()}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE}`).finally(() => admin.end());
  return withDatabase(url, name);
}
