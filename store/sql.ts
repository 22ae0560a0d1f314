// One small SQL interface over two drivers: PostgreSQL (pg) for deployments, and PGlite (PostgreSQL compiled to
// WebAssembly, in this process) for development and tests. The same SQL runs on both, so what the tests prove
// about the queries holds in a deployment.
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

export interface SqlRunner {
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
}

export interface Sql extends SqlRunner {
  readonly driver: 'postgres' | 'pglite';
  /** Runs fn on one connection inside BEGIN/COMMIT (ROLLBACK when it throws). */
  transaction<R>(fn: (tx: SqlRunner) => Promise<R>): Promise<R>;
  close(): Promise<void>;
}

export interface OpenSqlOptions {
  /** postgres://...; unset: the embedded database. */
  url?: string;
  /** Where the embedded database keeps its files; `memory` keeps it in memory (tests). */
  embeddedDir?: string | 'memory';
  /**
   * An in-memory embedded database starts from this copy of a data directory (embeddedSnapshot()) instead of
   * creating a new one: creating one runs initdb, seconds each time, where loading a copy is a fraction of that.
   */
  embeddedFrom?: Blob;
  /** Hears a connection the server dropped while idle (a restart, a failover): logged, not fatal. */
  onIdleError?: (err: Error) => void;
}

export async function openSql(opts: OpenSqlOptions): Promise<Sql> {
  if (opts.url) return postgres(opts.url, opts.onIdleError ?? (() => undefined));
  return embedded(opts.embeddedDir ?? 'memory', opts.embeddedFrom);
}

/** A fresh embedded database's data directory (nothing created in it), for OpenSqlOptions.embeddedFrom. */
export async function embeddedSnapshot(): Promise<Blob> {
  const db = await PGlite.create();
  try {
    return await db.dumpDataDir('none');
  } finally {
    await db.close();
  }
}

function postgres(url: string, onIdleError: (err: Error) => void): Sql {
  // int8 (count(*)) arrives as a string by default; counts here stay far below 2^53.
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    types: { getTypeParser: (oid, format) => (oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) } as pg.CustomTypesConfig,
  });
  // A restarted or failed-over server ends idle connections; without a listener the pool's 'error' event would
  // end the process. The pool drops that client and the next query opens a new connection.
  pool.on('error', onIdleError);
  return {
    driver: 'postgres',
    async query<T>(text: string, params?: unknown[]) {
      return (await pool.query(text, params)).rows as T[];
    },
    async transaction(fn) {
      const client = await pool.connect();
      let broken: Error | undefined;
      // A checked-out client is the caller's to listen to: a server that ends the connection between two of the
      // transaction's queries would otherwise end the process (seen in the soak, PostgreSQL restarted).
      const lost = (err: Error) => (broken = err);
      client.on('error', lost);
      try {
        await client.query('BEGIN');
        const result = await fn({ query: async <T>(text: string, params?: unknown[]) => (await client.query(text, params)).rows as T[] });
        await client.query('COMMIT');
        return result;
      } catch (err) {
        // A ROLLBACK that fails too means the connection itself is gone: it must not go back to the pool.
        await client.query('ROLLBACK').catch((e: unknown) => (broken = e as Error));
        throw err;
      } finally {
        client.off('error', lost);
        client.release(broken);
      }
    },
    close: () => pool.end(),
  };
}

async function embedded(dir: string, from: Blob | undefined): Promise<Sql> {
  if (from && dir !== 'memory') throw new Error('embeddedFrom is for an in-memory embedded database only');
  if (dir !== 'memory') mkdirSync(dir, { recursive: true });
  const db = dir === 'memory' ? await PGlite.create(from ? { loadDataDir: from } : undefined) : await PGlite.create(dir);
  // int8 (count(*)) as a number, as for pg above.
  return {
    driver: 'pglite',
    async query<T>(text: string, params?: unknown[]) {
      return (await db.query<T>(text, params, { parsers: { 20: (v: string) => Number(v) } })).rows;
    },
    transaction: (fn) =>
      db.transaction((tx) =>
        fn({ query: async <T>(text: string, params?: unknown[]) => (await tx.query<T>(text, params, { parsers: { 20: (v: string) => Number(v) } })).rows }),
      ),
    close: () => db.close(),
  };
}
