// Each app's suppression list: numbers that opted out (a STOP reply, or the API), which no campaign on that app sends
// to. A number is found by its keyed hash (common/subject-hash.ts) and kept sealed (common/sealed-text.ts) only to be
// read back, so a copy of the database alone holds no number. A number that opted back in keeps its row with
// `suppressed` false: the latest decision wins by its time (the reply's, or the request's), so a late repeat of an
// older STOP cannot suppress it again.
import type { Sealer } from '../common/sealed-text.js';
import type { SubjectHasher } from '../common/subject-hash.js';
import type { Sql } from './sql.js';

type SuppressionSource = 'reply' | 'api';

export interface Suppression {
  number: string;
  source: SuppressionSource;
  /** When the decision was made (the reply's time, or the request's). */
  since: string;
}

export interface SuppressionChange {
  appId: string;
  /** E.164. */
  number: string;
  suppressed: boolean;
  source: SuppressionSource;
  /**
   * A reply's time: applied only when it is later than the row's last change. Absent (the API): applied always, at the
   * database's now (or just after the last change, should a reply's clock be ahead), so a person's decision wins.
   */
  at?: string;
}

export interface SuppressionOutcome {
  /** The number's state after the call. */
  suppressed: boolean;
  /** Whether this change was applied (false: a decision at least as recent was there). */
  applied: boolean;
  /** Whether the state changed (suppressed before and not now, or the reverse). */
  changed: boolean;
}

interface Row {
  number_sealed: string;
  source: SuppressionSource;
  changed_at: string;
  number_hash: string;
}

const T = 'relayflow_suppressions';
const iso = (v: string | Date) => new Date(v).toISOString();

export class SuppressionStore {
  constructor(
    readonly sql: Sql,
    private readonly sealer: Sealer,
    private readonly hash: SubjectHasher,
  ) {}

  /** Applies an opt-out or opt-in when it is newer than the number's last change (always when `at` is absent). */
  async apply(c: SuppressionChange): Promise<SuppressionOutcome> {
    const numberHash = this.hash(c.number);
    // The CTE reads the row as it was before the upsert (one snapshot for the whole statement).
    const [row] = await this.sql.query<{ suppressed: boolean | null; was: boolean | null }>(
      `WITH prior AS (SELECT suppressed FROM ${T} WHERE app_id = $1 AND number_hash = $2),
       up AS (
         INSERT INTO ${T} AS s (app_id, number_hash, number_sealed, suppressed, source, changed_at)
         VALUES ($1, $2, $3, $4, $5, COALESCE($6::timestamptz, now()))
         ON CONFLICT (app_id, number_hash) DO UPDATE SET suppressed = EXCLUDED.suppressed, source = EXCLUDED.source,
           changed_at = CASE WHEN $6::timestamptz IS NULL THEN GREATEST(EXCLUDED.changed_at, s.changed_at + interval '1 millisecond') ELSE EXCLUDED.changed_at END,
           number_sealed = EXCLUDED.number_sealed
         WHERE $6::timestamptz IS NULL OR s.changed_at < EXCLUDED.changed_at
         RETURNING suppressed)
       SELECT (SELECT suppressed FROM up) AS suppressed, (SELECT suppressed FROM prior) AS was`,
      [c.appId, numberHash, this.sealer.seal(c.number), c.suppressed, c.source, c.at ?? null],
    );
    const applied = row?.suppressed != null;
    const was = row?.was ?? false;
    const now = applied ? row.suppressed! : was;
    return { suppressed: now, applied, changed: now !== was };
  }

  /** The numbers of `numbers` on the app's list (as given). */
  async suppressedOf(appId: string, numbers: readonly string[]): Promise<Set<string>> {
    if (!numbers.length) return new Set();
    const byHash = new Map(numbers.map((n) => [this.hash(n), n]));
    const rows = await this.sql.query<{ number_hash: string }>(
      `SELECT number_hash FROM ${T} WHERE app_id = $1 AND number_hash = ANY($2::text[]) AND suppressed`,
      [appId, [...byHash.keys()]],
    );
    return new Set(rows.map((r) => byHash.get(r.number_hash)!));
  }

  async get(appId: string, number: string): Promise<Suppression | undefined> {
    const [row] = await this.sql.query<Row>(
      `SELECT number_sealed, source, changed_at, number_hash FROM ${T} WHERE app_id = $1 AND number_hash = $2 AND suppressed`,
      [appId, this.hash(number)],
    );
    return row && this.view(row);
  }

  /** The app's suppressed numbers, in a stable order (of their hashes), after the `after` cursor; `next` when more may follow. */
  async list(appId: string, opts: { limit: number; after?: string }): Promise<{ suppressions: Suppression[]; next?: string }> {
    const rows = await this.sql.query<Row>(
      `SELECT number_sealed, source, changed_at, number_hash FROM ${T}
       WHERE app_id = $1 AND suppressed AND number_hash > $2 ORDER BY number_hash LIMIT $3`,
      [appId, opts.after ?? '', opts.limit],
    );
    const last = rows.at(-1);
    return { suppressions: rows.map((r) => this.view(r)), ...(rows.length === opts.limit && last ? { next: last.number_hash } : {}) };
  }

  private view(r: Row): Suppression {
    return { number: this.sealer.open(r.number_sealed), source: r.source, since: iso(r.changed_at) };
  }
}
