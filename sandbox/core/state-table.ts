// Where a persistent sandbox keeps its state: one row per area in an embedded PostgreSQL (PGlite) owning a
// directory. PGlite is imported only here and only when a sandbox has a dataDir, so in-memory sandboxes
// (tests, benchmarks) never load it.
import { mkdirSync } from 'node:fs';
import type { PGlite } from '@electric-sql/pglite';

export interface StateTable {
  /** Every saved area's state, parsed. */
  readAll(): Promise<Map<string, unknown>>;
  /** Upserts the given areas' JSON in one transaction: all of them or none. */
  write(rows: readonly { name: string; json: string }[]): Promise<void>;
  close(): Promise<void>;
}

// `json`, not `jsonb`: the state is only ever written and read whole, and jsonb refuses strings holding
// U+0000, which a message text received from a client may carry.
const SCHEMA = `CREATE TABLE IF NOT EXISTS sandbox_state (
  area text PRIMARY KEY,
  state json NOT NULL,
  saved_at timestamptz NOT NULL DEFAULT now()
)`;

const UPSERT = `INSERT INTO sandbox_state (area, state, saved_at) VALUES ($1, $2::json, now())
  ON CONFLICT (area) DO UPDATE SET state = excluded.state, saved_at = excluded.saved_at`;

export async function openStateTable(dir: string): Promise<StateTable> {
  mkdirSync(dir, { recursive: true });
  const { PGlite } = await import('@electric-sql/pglite');
  const db: PGlite = await PGlite.create(dir);
  try {
    await db.exec(SCHEMA);
  } catch (err) {
    await db.close();
    throw err;
  }
  return {
    async readAll() {
      const { rows } = await db.query<{ area: string; state: unknown }>('SELECT area, state FROM sandbox_state');
      return new Map(rows.map((r) => [r.area, r.state]));
    },
    async write(rows) {
      await db.transaction(async (tx) => {
        for (const r of rows) await tx.query(UPSERT, [r.name, r.json]);
      });
    },
    close: () => db.close(),
  };
}
