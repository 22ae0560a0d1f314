// Verification admissions: the per-number guard and the rate-limit buckets, one row per counted key, shared by every
// API instance and kept across restarts. A key is `number:<subject hash>` or `rate:<limit id>:<keyed hash of the
// value>`: never a number, an IP or a user ID. Its row holds the admissions of its window as
// [{p: process ID, at: epoch ms, m?: methods}] (a number's also those of the last 30 min, for look-ups by identity).
//
// One statement per admission, atomic under READ COMMITTED across instances: INSERT ... ON CONFLICT (key) DO UPDATE
// locks the key's row and evaluates the update against its latest version, so the prune, the count and the append
// see every admission committed before, and a concurrent one waits for this one (a count-then-insert in two
// statements, or in one statement's snapshot, would let both through).
import type { Sql } from './sql.js';

/** One admission of a key: the process it let through, when (epoch ms), and its methods (a number's only). */
export interface Admission {
  processId: string;
  at: number;
  methods: string[];
}

export interface AdmitRequest {
  key: string;
  processId: string;
  /** Kept with the admission (a number's, for look-ups by identity). */
  methods?: string[];
  limit: number;
  windowMs: number;
  /** How long admissions stay in the row: at least the window (default: the window). */
  keepMs?: number;
}

export interface AdmitOutcome {
  admitted: boolean;
  /** Admissions in the window, this one included. */
  count: number;
  /** When refused: until the oldest admission in the window leaves it. */
  retryAfterMs?: number;
}

interface Entry {
  p: string;
  at: number;
  m?: string[];
}

// $1 key, $2 the new entry, $3 now, $4 process ID, $5 window, $6 keep, $7 limit. The same process ID within the keep
// time is admitted again without counting twice (a keyed retry); past the limit the row only loses what aged out.
const ADMIT = `
  INSERT INTO relayflow_verification_admissions AS w (key, entries, keep_until)
  VALUES ($1::text, jsonb_build_array($2::jsonb), $3::float8 + $6::float8)
  ON CONFLICT (key) DO UPDATE SET
    entries = (
      SELECT CASE
        WHEN coalesce(bool_or(e->>'p' = $4::text AND (e->>'at')::float8 > $3::float8 - $6::float8), false)
          OR count(*) FILTER (WHERE (e->>'at')::float8 > $3::float8 - $5::float8) >= $7::int
        THEN coalesce(jsonb_agg(e) FILTER (WHERE (e->>'at')::float8 > $3::float8 - $6::float8), '[]'::jsonb)
        ELSE coalesce(jsonb_agg(e) FILTER (WHERE (e->>'at')::float8 > $3::float8 - $6::float8), '[]'::jsonb) || EXCLUDED.entries
      END
      FROM jsonb_array_elements(w.entries) AS e
    ),
    keep_until = greatest(w.keep_until, EXCLUDED.keep_until)
  RETURNING entries`;

// Both drivers parse jsonb; a string is only what a driver configured otherwise would give.
const entriesOf = (v: Entry[] | string): Entry[] => (typeof v === 'string' ? (JSON.parse(v) as Entry[]) : v);

export class AdmissionStore {
  constructor(
    readonly sql: Sql,
    /** Epoch ms: the API instance's clock (instances keep NTP time; a skew of s moves a window's edge by s). */
    private readonly now: () => number = Date.now,
  ) {}

  /** Admits the process under the key's limit, or says when to retry. */
  async admit(req: AdmitRequest): Promise<AdmitOutcome> {
    const now = this.now();
    const keepMs = Math.max(req.windowMs, req.keepMs ?? 0);
    const entry: Entry = { p: req.processId, at: now, ...(req.methods ? { m: req.methods } : {}) };
    const [row] = await this.sql.query<{ entries: Entry[] | string }>(ADMIT, [
      req.key,
      JSON.stringify(entry),
      now,
      req.processId,
      req.windowMs,
      keepMs,
      req.limit,
    ]);
    const entries = entriesOf(row!.entries);
    const inWindow = entries.filter((e) => e.at > now - req.windowMs);
    if (entries.some((e) => e.p === req.processId)) return { admitted: true, count: inWindow.length };
    const oldest = Math.min(...inWindow.map((e) => e.at));
    return { admitted: false, count: inWindow.length, retryAfterMs: Math.max(1, oldest + req.windowMs - now) };
  }

  /** The key's admissions of the last `keepMs`, as stored (oldest first). */
  async recent(key: string, keepMs: number): Promise<Admission[]> {
    const [row] = await this.sql.query<{ entries: Entry[] | string }>('SELECT entries FROM relayflow_verification_admissions WHERE key = $1', [key]);
    const since = this.now() - keepMs;
    return row ? entriesOf(row.entries).flatMap((e) => (e.at > since ? [{ processId: e.p, at: e.at, methods: e.m ?? [] }] : [])) : [];
  }

  /** Drops the rows of keys with no admission in their keep time; how many. */
  async sweep(): Promise<number> {
    const rows = await this.sql.query('DELETE FROM relayflow_verification_admissions WHERE keep_until <= $1::float8 RETURNING key', [this.now()]);
    return rows.length;
  }
}
