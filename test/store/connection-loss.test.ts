// The campaign store on PostgreSQL when the server ends its connections (a restart, a failover): the cluster's
// fault table restarts PostgreSQL under load, and before this every worker and API died of the pool's unhandled
// 'error' event (the idle clients' on the pool, a transaction's on its checked-out client). Now the loss is logged
// or fails that transaction, the process lives, and the next query opens a new connection.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import { openCampaignStore } from '../../store/index.js';
import { sharedDatabaseUrl } from '../helpers/shared-postgres.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';

describe('campaign store when PostgreSQL ends its connections', () => {
  let own: TestPostgres | undefined;
  after(() => own?.stop());

  /** The run's shared server (a database of its own), or a server of its own when the file runs alone. */
  async function databaseUrl(): Promise<string> {
    const shared = await sharedDatabaseUrl();
    if (shared) return shared;
    own = await startPostgres();
    return own.url;
  }

  test('idle connections ended by the server are logged, not fatal, and the next queries reconnect', async () => {
    const url = await databaseUrl();
    const warnings: string[] = [];
    const store = await openCampaignStore({ url, dataDir: '', logger: { warn: (_obj: unknown, msg?: string) => void warnings.push(msg ?? '') } });
    try {
      // Several idle connections in the pool, as a busy worker leaves them.
      await Promise.all(Array.from({ length: 3 }, () => store.sql.query('select pg_sleep(0.05)')));
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      const { rows } = await admin.query<{ ended: boolean }>(
        'select pg_terminate_backend(pid) as ended from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
      );
      await admin.end();
      assert.ok(rows.length >= 1, 'the store had idle connections to end');
      for (const until = Date.now() + 5_000; warnings.length < rows.length && Date.now() < until;) await new Promise((r) => setTimeout(r, 50));
      assert.equal(warnings.length, rows.length, 'each ended connection is logged once');
      assert.match(warnings[0]!, /dropped an idle connection/);
      assert.deepEqual(await store.sql.query<{ n: number }>('select 1 as n'), [{ n: 1 }]);
      assert.equal(await store.sql.transaction(async (tx) => (await tx.query<{ n: number }>('select 2 as n'))[0]!.n), 2);
    } finally {
      await store.sql.close();
    }
  });

  /** Ends every other connection to the database, as a restarted server does; resolves with how many. */
  async function endConnections(url: string): Promise<number> {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const { rows } = await admin.query(
        'select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
      );
      return rows.length;
    } finally {
      await admin.end();
    }
  }

  test('a connection ended in the middle of a transaction fails that transaction only, and the next one runs', async () => {
    const url = await databaseUrl();
    const store = await openCampaignStore({ url, dataDir: '', logger: { warn: () => undefined } });
    try {
      const inTransaction = store.sql.transaction(async (tx) => {
        await tx.query('select 1');
        // Between two queries, with the client checked out: where the unhandled 'error' event used to end the process.
        assert.ok((await endConnections(url)) >= 1);
        await new Promise((r) => setTimeout(r, 200));
        return tx.query('select 2');
      });
      await assert.rejects(inTransaction);
      assert.equal(await store.sql.transaction(async (tx) => (await tx.query<{ n: number }>('select 3 as n'))[0]!.n), 3);
    } finally {
      await store.sql.close();
    }
  });
});
