// The SMS-pumping guard of each destination prefix (a few leading digits: a range, not a person): the starts the API
// let through and the correct codes reported, over a sliding window of slots (common/verification-pumping.ts), and
// the block set when the conversion falls below the floor. One row per prefix, shared by every API instance and
// kept across restarts; every decision (blocked, lifted, expired) is a row of its own, kept 30 days.
//
// A count is one transaction on the prefix's row, locked (SELECT ... FOR UPDATE) before it is read: the arithmetic
// and the decision are the pure functions the API is tested with, and two instances counting at once are serialised
// on the row, so neither loses the other's count and a block is decided once.
import { looksLikePumping, record, totals, type PumpingSlot, type PumpingThresholds, type PumpingTotals } from '../common/verification-pumping.js';
import type { Sql, SqlRunner } from './sql.js';

export interface PumpingDecision {
  at: number;
  kind: 'blocked' | 'lifted' | 'expired';
  starts: number;
  successes: number;
  /** The API key ID that lifted it. */
  by?: string;
  note?: string;
}

/** Set while the prefix is blocked: new starts to it are refused (or moved) until `until` or a lift. */
interface PumpingBlock {
  since: number;
  until: number;
  starts: number;
  successes: number;
}

export interface PumpingGuardView {
  prefix: string;
  windowMs: number;
  thresholds: PumpingThresholds;
  totals: PumpingTotals;
  blocked?: PumpingBlock;
  /** The newest first, at most 20. */
  decisions: PumpingDecision[];
}

export type PumpingRules = PumpingThresholds & { windowMs: number };

interface GuardState {
  slots: PumpingSlot[];
  blocked?: PumpingBlock;
}

interface GuardRow {
  slots: PumpingSlot[] | string;
  blocked: PumpingBlock | string | null;
  active_at: number;
}

const DECISIONS_SHOWN = 20;
/** How long decisions are kept (the record of a block once its guard is gone). */
const DECISIONS_KEPT_MS = 30 * 86_400_000;
/** At most this many starts or successes in one count (a bound against a caller that bypasses the API). */
const MAX_COUNT = 10_000;

// Both drivers parse jsonb; a string is only what a driver configured otherwise would give.
const json = <T>(v: T | string): T => (typeof v === 'string' ? (JSON.parse(v) as T) : v);
const stateOf = (row: GuardRow): GuardState => {
  const blocked = row.blocked === null ? undefined : json(row.blocked);
  return { slots: json(row.slots), ...(blocked ? { blocked } : {}) };
};

export class PumpingGuardStore {
  constructor(
    readonly sql: Sql,
    readonly rules: PumpingRules,
    /** Epoch ms: the API instance's clock. */
    private readonly now: () => number = Date.now,
  ) {}

  /** The prefix's guard now, with its last decisions; undefined when it has none (no start in the last window, no block). */
  async read(prefix: string): Promise<PumpingGuardView | undefined> {
    const now = this.now();
    const [row] = await this.sql.query<{ guard: GuardRow | string | null; decisions: DecisionRow[] | string }>(
      `SELECT (SELECT to_jsonb(g) FROM relayflow_pumping_guards g WHERE g.prefix = $1) AS guard,
              (SELECT coalesce(jsonb_agg(d ORDER BY d.id DESC), '[]'::jsonb)
                 FROM (SELECT id, (extract(epoch FROM at) * 1000)::float8 AS at, kind, starts, successes, by_key, note
                         FROM relayflow_pumping_decisions WHERE prefix = $1 ORDER BY id DESC LIMIT ${DECISIONS_SHOWN}) d) AS decisions`,
      [prefix],
    );
    const guard = row!.guard === null ? undefined : json(row!.guard);
    if (!guard || this.idle(guard, now)) return undefined;
    return this.view(prefix, stateOf(guard), json(row!.decisions).map(decisionOf), now);
  }

  /**
   * Counts a start let through (judged: it may block the prefix) or a correct code reported (`count` of them). A
   * success for a prefix with no guard is dropped: no start to it in the last window, so it changes no decision.
   * The guard after the count (its decisions not read).
   */
  async count(prefix: string, what: 'start' | 'success', count = 1): Promise<PumpingGuardView | undefined> {
    const n = Math.min(MAX_COUNT, Math.max(1, Math.floor(count)));
    return this.change(prefix, { create: what === 'start', touch: true }, (state, now, decide) => {
      const slots = record(state.slots, now, this.rules.windowMs, what, n);
      const t = totals(slots, now, this.rules.windowMs);
      if (what === 'start' && !state.blocked && looksLikePumping(t, this.rules)) {
        decide({ kind: 'blocked', ...t });
        return { slots, blocked: { since: now, until: now + this.rules.windowMs, ...t } };
      }
      return { ...state, slots };
    });
  }

  /** An operator lifts the block (`by`: the API key ID): the window's counts start afresh. Undefined when the prefix has no guard. */
  async lift(prefix: string, by: string | undefined, note: string | undefined): Promise<PumpingGuardView | undefined> {
    const lifted = await this.change(prefix, { create: false, touch: true }, (state, at, decide) => {
      // Counting starts afresh: the window that caused the block would block the next start again.
      decide({ kind: 'lifted', ...totals(state.slots, at, this.rules.windowMs), ...(by ? { by } : {}), ...(note ? { note } : {}) });
      return { slots: [] };
    });
    return lifted && this.read(prefix);
  }

  /**
   * Ends the blocks whose time is up (each an `expired` decision), drops the guards with no start in the last window
   * and no block, and the decisions older than 30 days. How many guards it dropped.
   */
  async sweep(): Promise<number> {
    const now = this.now();
    const ended = await this.sql.query<{ prefix: string }>(
      `SELECT prefix FROM relayflow_pumping_guards WHERE blocked IS NOT NULL AND (blocked->>'until')::float8 <= $1::float8`,
      [now],
    );
    for (const { prefix } of ended) await this.change(prefix, { create: false, touch: false }, (state) => state);
    const dropped = await this.sql.query(
      `DELETE FROM relayflow_pumping_guards WHERE blocked IS NULL AND active_at + $2::float8 <= $1::float8 RETURNING prefix`,
      [now, this.rules.windowMs],
    );
    await this.sql.query('DELETE FROM relayflow_pumping_decisions WHERE at < $1', [new Date(now - DECISIONS_KEPT_MS)]);
    return dropped.length;
  }

  private idle(row: GuardRow, now: number): boolean {
    return row.blocked === null && row.active_at + this.rules.windowMs <= now;
  }

  /**
   * Changes one prefix's guard under its row lock: a block whose time is up ends first (an `expired` decision), then
   * `fn` gives the new state and its decisions. `create`: a prefix with no row gets one (else undefined, as for an
   * idle one); `touch`: the change is activity (a count, a lift), which keeps the guard another window.
   */
  private change(
    prefix: string,
    { create, touch }: { create: boolean; touch: boolean },
    fn: (state: GuardState, now: number, decide: (d: Omit<PumpingDecision, 'at'>) => void) => GuardState,
  ): Promise<PumpingGuardView | undefined> {
    return this.sql.transaction(async (tx) => {
      let row = await lock(tx, prefix);
      if (!row && create) {
        // ON CONFLICT: another instance may create it at the same moment; either way the row is locked next.
        await tx.query(`INSERT INTO relayflow_pumping_guards (prefix, slots, active_at) VALUES ($1, '[]'::jsonb, $2::float8) ON CONFLICT (prefix) DO NOTHING`, [
          prefix,
          this.now(),
        ]);
        row = await lock(tx, prefix);
      }
      // The clock is read once the row is held: a count that waited for the lock is not older than the one before it.
      const now = this.now();
      if (!row || (!create && this.idle(row, now))) return undefined;
      const decisions: PumpingDecision[] = [];
      const decide = (d: Omit<PumpingDecision, 'at'>) => decisions.push({ at: now, ...d });
      let state = stateOf(row);
      if (state.blocked && now >= state.blocked.until) {
        decide({ kind: 'expired', ...totals(state.slots, now, this.rules.windowMs) });
        state = { slots: state.slots };
      }
      state = fn(state, now, decide);
      await tx.query('UPDATE relayflow_pumping_guards SET slots = $2::jsonb, blocked = $3::jsonb, active_at = $4::float8 WHERE prefix = $1', [
        prefix,
        JSON.stringify(state.slots),
        state.blocked ? JSON.stringify(state.blocked) : null,
        touch ? now : row.active_at,
      ]);
      for (const d of decisions) {
        await tx.query('INSERT INTO relayflow_pumping_decisions (prefix, at, kind, starts, successes, by_key, note) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
          prefix,
          new Date(d.at),
          d.kind,
          d.starts,
          d.successes,
          d.by ?? null,
          d.note ?? null,
        ]);
      }
      return this.view(prefix, state, decisions.reverse(), now);
    });
  }

  private view(prefix: string, state: GuardState, decisions: PumpingDecision[], now: number): PumpingGuardView {
    const { windowMs, minStarts, floor } = this.rules;
    return {
      prefix,
      windowMs,
      thresholds: { minStarts, floor },
      totals: totals(state.slots, now, windowMs),
      ...(state.blocked ? { blocked: state.blocked } : {}),
      decisions,
    };
  }
}

async function lock(tx: SqlRunner, prefix: string): Promise<GuardRow | undefined> {
  const [row] = await tx.query<GuardRow>('SELECT slots, blocked, active_at FROM relayflow_pumping_guards WHERE prefix = $1 FOR UPDATE', [prefix]);
  return row;
}

interface DecisionRow {
  at: number;
  kind: PumpingDecision['kind'];
  starts: number;
  successes: number;
  by_key: string | null;
  note: string | null;
}

const decisionOf = (d: DecisionRow): PumpingDecision => ({
  at: d.at,
  kind: d.kind,
  starts: d.starts,
  successes: d.successes,
  ...(d.by_key ? { by: d.by_key } : {}),
  ...(d.note ? { note: d.note } : {}),
});
