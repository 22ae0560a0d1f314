// What an incoming call does, by the number it called: one rule (a CallScript) per number, and the rule of the
// number `default` for any assigned number without its own. The API's incoming-rules routes write them; the voice
// callback intake reads the matching rule when an ICE comes and hands it to the call's process (a later change
// of the rule does not change a call already going).
import type { CallScript, IncomingRule } from '../contracts/voice.js';
import type { Sql } from './sql.js';

/** The rule for every called number that has none of its own. */
export const DEFAULT_RULE_NUMBER = 'default';

const COLUMNS = `number, script, to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "updatedAt"`;

interface Row {
  number: string;
  script: CallScript | string;
  updatedAt: string;
}

// Both drivers parse jsonb; a string is only what a driver configured otherwise would give.
const ruleOf = (r: Row): IncomingRule => ({ number: r.number, script: typeof r.script === 'string' ? (JSON.parse(r.script) as CallScript) : r.script, updatedAt: r.updatedAt });

export class VoiceRuleStore {
  constructor(readonly sql: Sql) {}

  /** Every rule, by number (`default` sorts after the numbers). */
  async list(): Promise<IncomingRule[]> {
    const rows = await this.sql.query<Row>(`SELECT ${COLUMNS} FROM relayflow_voice_rules ORDER BY number = $1, number`, [DEFAULT_RULE_NUMBER]);
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
    return ruleOf(row!);
  }

  /** false when there was no rule for `number`. */
  async delete(number: string): Promise<boolean> {
    const rows = await this.sql.query('DELETE FROM relayflow_voice_rules WHERE number = $1 RETURNING number', [number]);
    return rows.length > 0;
  }

  /** The rule of the called number, else the `default` rule, else undefined. */
  async match(calledNumber: string): Promise<IncomingRule | undefined> {
    const [row] = await this.sql.query<Row>(
      `SELECT ${COLUMNS} FROM relayflow_voice_rules WHERE number IN ($1, $2) ORDER BY number = $2 LIMIT 1`,
      [calledNumber, DEFAULT_RULE_NUMBER],
    );
    return row ? ruleOf(row) : undefined;
  }
}
