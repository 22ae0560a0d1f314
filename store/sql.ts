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
}

export async function openSql(opts: OpenSqlOptions): Promise<Sql> {
  if (opts.url) return postgres(opts.url);
  return embedded(opts.embeddedDir ?? 'memory');
}

function postgres(url: string): Sql {
  // int8 (count(*)) arrives as a string by default; counts here stay far below 2^53.
  const pool = new pg.Pool({ connectionString: url, max: 10, types: { getTypeParser: (oid, format) => (oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) } as pg.CustomTypesConfig });
  return {
    driver: 'postgres',
    async query<T>(text: string, params?: unknown[]) {
      return (await pool.query(text, params)).rows as T[];
    },
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn({ query: async <T>(text: string, params?: unknown[]) => (await client.query(text, params)).rows as T[] });
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

async function embedded(dir: string): Promise<Sql> {
  if (dir !== 'memory') mkdirSync(dir, { recursive: true });
  const db = await PGlite.create(dir === 'memory' ? undefined : dir);
  // int8 (count(*)) as a number, as for pg above.
  return {
    driver: 'pglite',
    async query<T>(text: string, params?: unknown[]) {
      return (await db.query<T>(text, params, { parsers: { 20: (v: string) => Number(v) } })).rows;
    },
    transaction: (fn) => db.transaction((tx) => fn({ query: async <T>(text: string, params?: unknown[]) => (await tx.query<T>(text, params, { parsers: { 20: (v: string) => Number(v) } })).rows })),
    close: () => db.close(),
  };
}
