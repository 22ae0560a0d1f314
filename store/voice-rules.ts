// What an incoming call does: one rule (a CallScript) per key, where a key is a number called, an in-app user
// calling (`user:<id>`) or called (`to-user:<id>`), or `default` for any call no other rule matches
// (contracts/voice-rules.ts; the key column is still named `number`, its first kind). The API's
// incoming-rules routes write them; the voice callback intake reads the matching rule when an ICE comes and hands
// it to the call's process (a later change of the rule does not change a call already going).
import { DEFAULT_RULE_KEY, ruleKeysFor, type CallScript, type IncomingCallFacts, type IncomingRule, type RuleMatchedBy } from '../contracts/voice-rules.js';
import type { Sql } from './sql.js';

/** The rule an ICE picked, and why. */
export interface RuleMatch {
  rule: IncomingRule;
  by: RuleMatchedBy;
}

/** The first of `facts`' keys (ruleKeysFor) that `rules` has. */
function firstMatch(facts: IncomingCallFacts, get: (key: string) => IncomingRule | undefined): RuleMatch | undefined {
  for (const [key, by] of ruleKeysFor(facts)) {
    const rule = get(key);
    if (rule) return { rule, by };
  }
  return undefined;
}

const COLUMNS = `number, script, to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "updatedAt"`;

interface Row {
  number: string;
  script: CallScript | string;
  updatedAt: string;
}

// Both drivers parse jsonb; a string is only what a driver configured otherwise would give.
const ruleOf = (r: Row): IncomingRule => ({
  number: r.number,
  script: typeof r.script === 'string' ? (JSON.parse(r.script) as CallScript) : r.script,
  updatedAt: r.updatedAt,
});

export class VoiceRuleStore {
  readonly #changed = new Set<() => void>();
  constructor(readonly sql: Sql) {}

  /** Called after every put or delete through this instance (the intake's cache drops what it holds). */
  onChange(fn: () => void): () => void {
    this.#changed.add(fn);
    return () => this.#changed.delete(fn);
  }

  /** Every rule, by key (`default` sorts last). */
  async list(): Promise<IncomingRule[]> {
    const rows = await this.sql.query<Row>(`SELECT ${COLUMNS} FROM relayflow_voice_rules ORDER BY number = $1, number`, [DEFAULT_RULE_KEY]);
    return rows.map(ruleOf);
  }

  async get(number: string): Promise<IncomingRule | undefined> {
    const [row] = await this.sql.query<Row>(`SELECT ${COLUMNS} FROM relayflow_voice_rules WHERE number = $1`, [number]);
    return row ? ruleOf(row) : undefined;
  }

  /** Creates or replaces the rule of `rule.number`; the rule as stored. */
  async put(rule: { number: string; script: CallScript }): Promise<IncomingRule> {
    // jsonb as text with a cast: pg would turn a top-level array into a PostgreSQL array, PGlite infers types.
    const [row] = await this.sql.query<Row>(
      `INSERT INTO relayflow_voice_rules (number, script) VALUES ($1, $2::jsonb)
       ON CONFLICT (number) DO UPDATE SET script = EXCLUDED.script, updated_at = now()
       RETURNING ${COLUMNS}`,
      [rule.number, JSON.stringify(rule.script)],
    );
    for (const fn of this.#changed) fn();
    return ruleOf(row!);
  }

  /** false when there was no rule for `number`. */
  async delete(number: string): Promise<boolean> {
    const rows = await this.sql.query('DELETE FROM relayflow_voice_rules WHERE number = $1 RETURNING number', [number]);
    for (const fn of this.#changed) fn();
    return rows.length > 0;
  }

  /** The rule an ICE with these facts picks (ruleKeysFor's order), else undefined. */
  async match(facts: IncomingCallFacts): Promise<RuleMatch | undefined> {
    const keys = ruleKeysFor(facts).map(([key]) => key);
    const rows = await this.sql.query<Row>(`SELECT ${COLUMNS} FROM relayflow_voice_rules WHERE number = ANY($1::text[])`, [keys]);
    const found = new Map(rows.map((r) => [r.number, ruleOf(r)]));
    return firstMatch(facts, (key) => found.get(key));
  }
}

/** How long the intake's copy of the rules is used before it is read again: a change made through another API instance is seen within this. */
const RULE_CACHE_TTL_MS = 1_000;

/**
 * The incoming-call rules as the callback intake reads them on every ICE: all of them (a short list), read at
 * most once per `ttlMs`, and dropped at once when a rule changes through this instance's store. Another API
 * instance's change is seen within `ttlMs` (a TTL rather than a version check: a version read per ICE would
 * cost the round trip the cache saves). A failed read is not cached.
 */
export class IncomingRuleCache {
  #rules: Promise<Map<string, IncomingRule>> | undefined;
  #readAt = 0;
  constructor(
    private readonly store: VoiceRuleStore,
    private readonly ttlMs = RULE_CACHE_TTL_MS,
    private readonly now = () => Date.now(),
  ) {
    store.onChange(() => this.invalidate());
  }

  invalidate(): void {
    this.#rules = undefined;
  }

  /** The rule an ICE with these facts picks, else undefined (as VoiceRuleStore.match). */
  async match(facts: IncomingCallFacts): Promise<RuleMatch | undefined> {
    if (!this.#rules || this.now() - this.#readAt >= this.ttlMs) {
      this.#readAt = this.now();
      const read = this.store.list().then((list) => new Map(list.map((r) => [r.number, r])));
      this.#rules = read;
      read.catch(() => {
        if (this.#rules === read) this.#rules = undefined;
      });
    }
    const rules = await this.#rules;
    return firstMatch(facts, (key) => rules.get(key));
  }
}
