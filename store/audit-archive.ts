// The audit archive: one row per closed run of a process, written once by the archiver (workers/audit/) so a
// process's summary and timeline outlive Temporal's retention. What is personal (the summary's reason, the
// timeline) is sealed with the payload codec, as it is in histories: reading it needs the codec keys. Rows are
// chained per process (each carries the SHA-256 of its process's previous row and its own content), so an edited
// or removed row is evident to verify(); nothing updates a row, and only the retention sweep deletes.
import { createHash } from 'node:crypto';
import { defaultPayloadConverter, type Payload, type PayloadCodec } from '@temporalio/common';
// @temporalio/proto is CommonJS: in native ESM only its default export is reliable.
import proto from '@temporalio/proto';
import type { Sql } from './sql.js';

const { Payload: PayloadMessage } = proto.temporal.api.common.v1;

/** What the process list shows of an archived run beside its plain columns (sealed). */
interface ArchivedSummary {
  lastChangeAt: string;
  reason?: string;
}

/** The run's timeline as the timeline route tells it: masked for most readers, unmasked for the allowed (sealed). */
interface ArchivedTimeline {
  masked: unknown[];
  unmasked: unknown[];
}

export interface ArchivedRun {
  processId: string;
  runId: string;
  /** The first run of the run's continue-as-new chain: a business key followed again starts a new chain. */
  firstRunId: string;
  kind: string;
  state: string;
  executionStatus: string;
  startedAt: string;
  closedAt: string;
  businessKey: string;
  /** The customer the process belongs to (its RelayflowTenant); absent for one of no customer or archived before it was kept. */
  tenant?: string;
  summary: ArchivedSummary;
  timeline: ArchivedTimeline;
}

export type ArchivedListing = Omit<ArchivedRun, 'timeline'>;

export interface ArchiveFilter {
  kind?: string;
  /** One customer's runs only. */
  tenant?: string;
  state?: string;
  startedAfter?: string;
  startedBefore?: string;
  /** A whole process ID. */
  processId?: string;
  /** The start of a process ID (any of `prefixes`). */
  prefixes?: string[];
}

/** Where a page of the archive's list ends: the last row's close time and sequence (newest first). */
export interface ArchiveCursor {
  closedAt: string;
  seq: number;
}

export interface ChainProblem {
  processId: string;
  n: number;
  problem: string;
}

interface Row {
  seq: number;
  process_id: string;
  n: number;
  run_id: string;
  first_run_id: string;
  kind: string;
  state: string;
  execution_status: string;
  started_at: Date | string;
  closed_at: Date | string;
  business_key: string;
  tenant: string | null;
  summary: Uint8Array;
  timeline?: Uint8Array;
  prev_hash: string;
  hash: string;
}

const iso = (t: Date | string) => new Date(t).toISOString();
const GENESIS = '0'.repeat(64);
/** Rows read per query where rows are streamed (export, verify): the memory stays this many rows. */
const BATCH = 200;
const LISTING_COLUMNS =
  'seq, process_id, n, run_id, first_run_id, kind, state, execution_status, started_at, closed_at, business_key, tenant, summary, prev_hash, hash';

/**
 * The chain's hash of a row: its predecessor's hash and every column it holds, sealed columns as their bytes. The
 * tenant is hashed only when the row has one, so rows archived before it was kept still verify.
 */
function rowHash(prevHash: string, r: Omit<Row, 'seq' | 'hash' | 'prev_hash'> & { timeline: Uint8Array }): string {
  const content = JSON.stringify([
    r.process_id,
    r.n,
    r.run_id,
    r.first_run_id,
    r.kind,
    r.state,
    r.execution_status,
    iso(r.started_at),
    iso(r.closed_at),
    r.business_key,
    Buffer.from(r.summary).toString('base64'),
    Buffer.from(r.timeline).toString('base64'),
    ...(r.tenant != null ? [r.tenant] : []),
  ]);
  return createHash('sha256').update(prevHash).update('\u0000').update(content).digest('hex');
}

export class AuditArchive {
  constructor(
    readonly sql: Sql,
    private readonly codec: PayloadCodec,
  ) {}

  /** Which of `runIds` are archived already. */
  async has(runIds: readonly string[]): Promise<Set<string>> {
    if (runIds.length === 0) return new Set();
    const rows = await this.sql.query<{ run_id: string }>('SELECT run_id FROM relayflow_audit_archive WHERE run_id = ANY($1::text[])', [runIds]);
    return new Set(rows.map((r) => r.run_id));
  }

  /** Writes the run once: 'archived', or 'there' when it was archived before (by this or another worker). */
  async append(run: ArchivedRun): Promise<'archived' | 'there'> {
    const summary = await this.seal(run.summary);
    const timeline = await this.seal(run.timeline);
    return this.sql.transaction(async (tx) => {
      // One writer per process at a time, so each row names the one before it.
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`relayflow audit ${run.processId}`]);
      if ((await tx.query('SELECT 1 FROM relayflow_audit_archive WHERE run_id = $1', [run.runId])).length > 0) return 'there';
      const [last] = await tx.query<{ n: number; hash: string }>('SELECT n, hash FROM relayflow_audit_archive WHERE process_id = $1 ORDER BY n DESC LIMIT 1', [
        run.processId,
      ]);
      const row = {
        process_id: run.processId,
        n: (last?.n ?? 0) + 1,
        run_id: run.runId,
        first_run_id: run.firstRunId,
        kind: run.kind,
        state: run.state,
        execution_status: run.executionStatus,
        started_at: iso(run.startedAt),
        closed_at: iso(run.closedAt),
        business_key: run.businessKey,
        tenant: run.tenant ?? null,
        summary,
        timeline,
      };
      const prevHash = last?.hash ?? GENESIS;
      await tx.query(
        `INSERT INTO relayflow_audit_archive (process_id, n, run_id, first_run_id, kind, state, execution_status, started_at, closed_at,
           business_key, tenant, summary, timeline, prev_hash, hash)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
        [
          row.process_id,
          row.n,
          row.run_id,
          row.first_run_id,
          row.kind,
          row.state,
          row.execution_status,
          row.started_at,
          row.closed_at,
          row.business_key,
          row.tenant,
          row.summary,
          row.timeline,
          prevHash,
          rowHash(prevHash, row),
        ],
      );
      return 'archived';
    });
  }

  /** One archived run, by its ID; with `tenant`, only when it is that customer's (undefined: any customer's). */
  async run(runId: string, tenant?: string): Promise<ArchivedRun | undefined> {
    const [row] = await this.sql.query<Row>(
      `SELECT ${LISTING_COLUMNS}, timeline FROM relayflow_audit_archive WHERE run_id = $1 AND ($2::text IS NULL OR tenant = $2)`,
      [runId, tenant ?? null],
    );
    return row ? this.full(row) : undefined;
  }

  /**
   * The runs of the process's newest chain, first to last, or [] when none is archived. With `tenant`, the newest of
   * that customer's chains (a business key closed by one customer may be taken again by another).
   */
  async chainOf(processId: string, tenant?: string): Promise<ArchivedRun[]> {
    const rows = await this.sql.query<Row>(
      `SELECT ${LISTING_COLUMNS}, timeline FROM relayflow_audit_archive
        WHERE process_id = $1 AND ($2::text IS NULL OR tenant = $2)
          AND first_run_id = (SELECT first_run_id FROM relayflow_audit_archive WHERE process_id = $1 AND ($2::text IS NULL OR tenant = $2)
                               ORDER BY started_at DESC, n DESC LIMIT 1)
        ORDER BY started_at, n`,
      [processId, tenant ?? null],
    );
    return Promise.all(rows.map((r) => this.full(r)));
  }

  /** One page of archived runs matching `filter`, newest closed first, after `cursor`. */
  async list(filter: ArchiveFilter, limit: number, cursor?: ArchiveCursor): Promise<{ runs: (ArchivedListing & ArchiveCursor)[]; more: boolean }> {
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (clause: (p: string) => string, value: unknown) => {
      params.push(value);
      where.push(clause(`$${params.length}`));
    };
    if (filter.kind) add((p) => `kind = ${p}`, filter.kind);
    if (filter.tenant) add((p) => `tenant = ${p}`, filter.tenant);
    if (filter.state) add((p) => `state = ${p}`, filter.state);
    if (filter.startedAfter) add((p) => `started_at >= ${p}`, filter.startedAfter);
    if (filter.startedBefore) add((p) => `started_at < ${p}`, filter.startedBefore);
    if (filter.processId !== undefined) add((p) => `process_id = ${p}`, filter.processId);
    if (filter.prefixes)
      add(
        (p) => `process_id LIKE ANY (${p}::text[])`,
        filter.prefixes.map((x) => `${x.replace(/[\\%_]/g, '\\$&')}%`),
      );
    if (cursor) {
      params.push(cursor.closedAt, cursor.seq);
      where.push(`(closed_at, seq) < ($${params.length - 1}::timestamptz, $${params.length}::bigint)`);
    }
    params.push(limit + 1);
    const rows = await this.sql.query<Row>(
      `SELECT ${LISTING_COLUMNS} FROM relayflow_audit_archive ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY closed_at DESC, seq DESC LIMIT $${params.length}`,
      params,
    );
    const page = rows.slice(0, limit);
    return { runs: await Promise.all(page.map(async (r) => ({ ...(await this.listing(r)), seq: Number(r.seq) }))), more: rows.length > limit };
  }

  /**
   * Every archived run closed in [from, to) (of `kind` and `tenant`, if given), oldest first, read BATCH rows at a
   * time with a keyset cursor: a caller streaming them holds one batch, however many there are.
   */
  async *export(opts: { from: string; to: string; kind?: string; tenant?: string }): AsyncGenerator<ArchivedRun> {
    let after: ArchiveCursor | undefined;
    // The tenant's clause only when it is asked, so the planner can use the tenant index.
    const ofTenant = opts.tenant ? 'AND tenant = $7' : '';
    for (;;) {
      const params: unknown[] = [opts.from, opts.to, opts.kind ?? null, after?.closedAt ?? null, after?.seq ?? null, BATCH];
      if (opts.tenant) params.push(opts.tenant);
      const rows = await this.sql.query<Row>(
        `SELECT ${LISTING_COLUMNS}, timeline FROM relayflow_audit_archive
          WHERE closed_at >= $1 AND closed_at < $2 AND ($3::text IS NULL OR kind = $3) ${ofTenant}
            AND ($4::timestamptz IS NULL OR (closed_at, seq) > ($4::timestamptz, $5::bigint))
          ORDER BY closed_at, seq LIMIT $6`,
        params,
      );
      for (const r of rows) yield await this.full(r);
      if (rows.length < BATCH) return;
      const last = rows.at(-1)!;
      after = { closedAt: iso(last.closed_at), seq: Number(last.seq) };
    }
  }

  /** Where the archiver has read closed runs up to (undefined before its first pass). */
  async cursor(name: string): Promise<Date | undefined> {
    const [row] = await this.sql.query<{ close_time: Date | string }>('SELECT close_time FROM relayflow_audit_cursor WHERE name = $1', [name]);
    return row ? new Date(row.close_time) : undefined;
  }

  /** Moves the cursor forward (never back: two archivers may pass the same window). */
  async advance(name: string, closeTime: Date): Promise<void> {
    await this.sql.query(
      `INSERT INTO relayflow_audit_cursor (name, close_time) VALUES ($1, $2)
       ON CONFLICT (name) DO UPDATE SET close_time = GREATEST(relayflow_audit_cursor.close_time, EXCLUDED.close_time)`,
      [name, closeTime.toISOString()],
    );
  }

  /**
   * The retention sweep, the one delete: processes whose newest archived run closed before `before` go whole, so
   * every chain left starts at its first row. Returns how many rows went.
   */
  async sweep(before: Date): Promise<number> {
    const rows = await this.sql.query<{ n: number }>(
      `WITH old AS (SELECT process_id FROM relayflow_audit_archive GROUP BY process_id HAVING max(closed_at) < $1),
            gone AS (DELETE FROM relayflow_audit_archive a USING old WHERE a.process_id = old.process_id RETURNING 1)
       SELECT count(*) AS n FROM gone`,
      [before.toISOString()],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /**
   * Checks every chain (or one process's): rows numbered from 1 without a gap, each naming its predecessor's hash,
   * each hash its content's. Needs no key: the sealed columns are hashed as they are stored.
   */
  async verify(processId?: string): Promise<ChainProblem[]> {
    const problems: ChainProblem[] = [];
    let after: { processId: string; n: number } | undefined;
    let prev: { processId: string; n: number; hash: string } | undefined;
    for (;;) {
      const rows = await this.sql.query<Row & { timeline: Uint8Array }>(
        `SELECT ${LISTING_COLUMNS}, timeline FROM relayflow_audit_archive
          WHERE ($1::text IS NULL OR process_id = $1)
            AND ($2::text IS NULL OR (process_id, n) > ($2::text, $3::integer))
          ORDER BY process_id, n LIMIT $4`,
        [processId ?? null, after?.processId ?? null, after?.n ?? null, BATCH],
      );
      for (const r of rows) {
        const first = prev?.processId !== r.process_id;
        const expectedN = first ? 1 : prev!.n + 1;
        const expectedPrev = first ? GENESIS : prev!.hash;
        const fail = (problem: string) => problems.push({ processId: r.process_id, n: r.n, problem });
        if (r.n !== expectedN) fail(`row ${expectedN} is missing (found ${r.n} next)`);
        if (r.prev_hash !== expectedPrev) fail('does not name the hash of the row before it');
        if (rowHash(r.prev_hash, r) !== r.hash) fail('its content does not match its hash (edited)');
        prev = { processId: r.process_id, n: r.n, hash: r.hash };
      }
      if (rows.length < BATCH) return problems;
      after = { processId: rows.at(-1)!.process_id, n: rows.at(-1)!.n };
    }
  }

  private async listing(r: Row): Promise<ArchivedListing> {
    return {
      processId: r.process_id,
      runId: r.run_id,
      firstRunId: r.first_run_id,
      kind: r.kind,
      state: r.state,
      executionStatus: r.execution_status,
      startedAt: iso(r.started_at),
      closedAt: iso(r.closed_at),
      businessKey: r.business_key,
      ...(r.tenant != null ? { tenant: r.tenant } : {}),
      summary: await this.open<ArchivedSummary>(r.summary),
    };
  }

  private async full(r: Row): Promise<ArchivedRun> {
    return { ...(await this.listing(r)), timeline: await this.open<ArchivedTimeline>(r.timeline!) };
  }

  private async seal(value: unknown): Promise<Uint8Array> {
    const [sealed] = await this.codec.encode([defaultPayloadConverter.toPayload(value)]);
    return PayloadMessage.encode(sealed!).finish();
  }

  private async open<T>(bytes: Uint8Array): Promise<T> {
    const [plain] = await this.codec.decode([PayloadMessage.decode(bytes) as Payload]);
    return defaultPayloadConverter.fromPayload<T>(plain!);
  }
}
