// The verification geo permissions set through the API (the configured ones stay in the environment): one versioned
// rule set per deployment, shared by every API instance and kept across restarts, and an append-only table of every
// change (the version it made, the rules and default it set, when and by which API key): what was in force before a
// change is the row of the version before it.
import type { GeoAction, GeoRule } from '../common/verification-geo.js';
import type { Sql } from './sql.js';

/** The rules set through the API, as kept. */
export interface GeoRulesState {
  rules: GeoRule[];
  /** Set through the API; absent: RELAYFLOW_VERIFICATION_GEO_DEFAULT. */
  defaultAction?: GeoAction;
  /** 0 before the first change; each change adds one. */
  version: number;
  /** Epoch ms of the last change. */
  updatedAt?: number;
  /** The API key ID that made it. */
  updatedBy?: string;
}

export interface SetGeoRulesRequest {
  /** The whole new list (it replaces the old one). */
  rules: GeoRule[];
  defaultAction?: GeoAction;
  /** Refused unless the rules are at this version (a change made from a stale read). */
  expectedVersion?: number;
  actor?: string;
}

interface Row {
  rules: GeoRule[] | string;
  default_action: GeoAction | null;
  version: number;
  at: Date | string | null;
  by_key: string | null;
}

const stateOf = (r: Row): GeoRulesState => ({
  rules: typeof r.rules === 'string' ? (JSON.parse(r.rules) as GeoRule[]) : r.rules,
  ...(r.default_action ? { defaultAction: r.default_action } : {}),
  version: r.version,
  ...(r.at ? { updatedAt: new Date(r.at).getTime() } : {}),
  ...(r.by_key ? { updatedBy: r.by_key } : {}),
});

// The one row exists from the migration on (version 0, no rules): a change is an UPDATE whose WHERE holds the version
// check, evaluated on the row's latest version once locked, so of two changes from the same read only one applies.
// The change's record is written by the same statement.
const SET = `
  WITH changed AS (
    UPDATE relayflow_geo_rules
       SET rules = $1::jsonb, default_action = $2::text, version = version + 1, updated_at = $3::timestamptz, updated_by = $4::text
     WHERE id = 1 AND ($5::integer IS NULL OR version = $5::integer)
    RETURNING rules, default_action, version, updated_at AS at, updated_by AS by_key
  ), recorded AS (
    INSERT INTO relayflow_geo_rule_changes (version, rules, default_action, changed_at, changed_by)
    SELECT version, rules, default_action, at, by_key FROM changed
  )
  SELECT * FROM changed`;

export class GeoRuleStore {
  constructor(
    readonly sql: Sql,
    private readonly now: () => number = Date.now,
  ) {}

  async read(): Promise<GeoRulesState> {
    const [row] = await this.sql.query<Row>(
      'SELECT rules, default_action, version, updated_at AS at, updated_by AS by_key FROM relayflow_geo_rules WHERE id = 1',
    );
    return row ? stateOf(row) : { rules: [], version: 0 };
  }

  /** Replaces the rules: the new state, or the current version when `expectedVersion` is not it (nothing changed). */
  async set(req: SetGeoRulesRequest): Promise<{ state: GeoRulesState } | { conflict: number }> {
    const [row] = await this.sql.query<Row>(SET, [
      JSON.stringify(req.rules),
      req.defaultAction ?? null,
      new Date(this.now()),
      req.actor ?? null,
      req.expectedVersion ?? null,
    ]);
    return row ? { state: stateOf(row) } : { conflict: (await this.read()).version };
  }

  /** The record of changes, newest first: each the state it set (what it replaced is the next one in the list). */
  async changes(limit = 100): Promise<GeoRulesState[]> {
    const rows = await this.sql.query<Row>(
      `SELECT rules, default_action, version, changed_at AS at, changed_by AS by_key FROM relayflow_geo_rule_changes ORDER BY version DESC LIMIT $1`,
      [limit],
    );
    return rows.map(stateOf);
  }
}
