// Opening the store migrates the schema only when the database is not current: a second instance that starts while
// the first writes takes no table lock (before, its ALTER TABLE ... IF NOT EXISTS queued behind the write, and two
// such instances could deadlock), and a database from before the version table is brought up to date once.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pg from 'pg';
import { migrate } from '../../store/schema.js';
import { within } from '../helpers/deadline.js';
import { storeDrivers } from '../helpers/store-drivers.js';

describe('the schema migration (PostgreSQL)', () => {
  const { open, postgresUrl } = storeDrivers();

  test('a current database is left alone: an instance opens while another holds a write on a table', async () => {
    const url = await postgresUrl();
    await open(url);
    // A write left open, as live traffic holds one: its table's row-exclusive lock stays until it ends.
    const writer = new pg.Client({ connectionString: url });
    await writer.connect();
    try {
      await writer.query('BEGIN');
      await writer.query(`UPDATE relayflow_campaigns SET tenant = tenant WHERE id = 'no-such-campaign'`);
      await within(open(url), 4_000, () => assert.fail('the second open waited on a table lock: it migrated a current database'));
    } finally {
      await writer.query('ROLLBACK');
      await writer.end();
    }
  });

  test('a database without the version table is migrated once, then current', async () => {
    const store = await open(await postgresUrl());
    await store.sql.query('DROP TABLE relayflow_schema_version');
    await migrate(store.sql);
    const rows = await store.sql.query<{ version: string }>('SELECT version FROM relayflow_schema_version');
    assert.equal(rows.length, 1);
    assert.match(rows[0]!.version, /^[0-9a-f]{16}$/);
    // Current now: a second run writes nothing (the row is the same one).
    await migrate(store.sql);
    assert.deepEqual(await store.sql.query('SELECT version FROM relayflow_schema_version'), rows);
  });
});
