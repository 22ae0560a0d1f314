// Voice calls answered from their plan (api/callbacks/voice-plan.ts): incoming calls, and callout calls whose ACE
// the intake answers. Before an answer goes out, the call's event and the answer given are written here: the
// answer is then durable even while Temporal is away, a repeated delivery finds the answer it was given, and the
// intake of any API instance can replay the call's events through the call driver to know its menu position and
// AMD state. The rows are also the outbox to the call's process: relayed_at is set once the process has them (a
// start or signal accepted by Temporal); rows without it are sent again, and the process applies each `seq` once.
import type { Svaml } from '../common/wire/voice-svaml.js';
import type { VoiceCallPlan, VoiceRecordedEvent } from '../contracts/voice-calls.js';
import type { Sql } from './sql.js';

export interface StoredVoiceEvent {
  seq: number;
  /** The delivery's identity (event + hash of the raw body): a repeated delivery gets the same answer. */
  delivery: string;
  item: VoiceRecordedEvent;
  /** The SVAML given (none for a DiCE). */
  answer?: Svaml;
}

export interface StoredVoiceCall {
  callId: string;
  processId: string;
  /** What the call is answered from: an incoming call's process input (the rule, the call's facts), or a callout's ACE plan. */
  input: VoiceCallPlan;
  events: StoredVoiceEvent[];
  /** The last seq up to which the process has every event (relayed_at set). */
  relayed: number;
}

export interface UnrelayedVoiceEvent {
  callId: string;
  processId: string;
  input: VoiceCallPlan;
  item: VoiceRecordedEvent;
}

const json = <T>(v: unknown): T => (typeof v === 'string' ? (JSON.parse(v) as T) : (v as T));
const text = (v: unknown) => (v === undefined ? null : JSON.stringify(v));

export class VoiceCallStore {
  constructor(readonly sql: Sql) {}

  /** The call with its events in order; undefined when no event of it was answered from the plan. */
  async read(callId: string): Promise<StoredVoiceCall | undefined> {
    const rows = await this.sql.query<{
      process_id: string;
      input: unknown;
      seq: number | null;
      delivery: string | null;
      item: unknown;
      answer: unknown;
      relayed: boolean | null;
    }>(
      `SELECT c.process_id, c.input, e.seq, e.delivery, e.item, e.answer, e.relayed_at IS NOT NULL AS relayed
         FROM relayflow_voice_calls c LEFT JOIN relayflow_voice_events e ON e.call_id = c.call_id
        WHERE c.call_id = $1 ORDER BY e.seq`,
      [callId],
    );
    if (!rows.length) return undefined;
    const events = rows.filter((r) => r.seq !== null);
    const unrelayed = events.findIndex((r) => !r.relayed);
    return {
      callId,
      processId: rows[0]!.process_id,
      input: json<VoiceCallPlan>(rows[0]!.input),
      events: events.map((r) => ({
        seq: Number(r.seq),
        delivery: r.delivery!,
        item: json<VoiceRecordedEvent>(r.item),
        ...(r.answer ? { answer: json<Svaml>(r.answer) } : {}),
      })),
      relayed: unrelayed < 0 ? events.length : unrelayed,
    };
  }

  /** The call's first event, with the call: false when the call (or that event) is there already. One round trip. */
  async begin(call: { callId: string; processId: string; input: VoiceCallPlan }, first: StoredVoiceEvent): Promise<boolean> {
    const rows = await this.sql.query(
      `WITH c AS (
         INSERT INTO relayflow_voice_calls (call_id, process_id, input) VALUES ($1, $2, $3::jsonb) ON CONFLICT DO NOTHING RETURNING call_id
       )
       INSERT INTO relayflow_voice_events (call_id, seq, delivery, item, answer)
       SELECT call_id, $4, $5, $6::jsonb, $7::jsonb FROM c
       RETURNING seq`,
      [call.callId, call.processId, JSON.stringify(call.input), first.seq, first.delivery, JSON.stringify(first.item), text(first.answer)],
    );
    return rows.length > 0;
  }

  /** A later event: false when its `seq` (another instance answered first) or its delivery is taken. */
  async append(callId: string, e: StoredVoiceEvent): Promise<boolean> {
    const rows = await this.sql.query(
      `INSERT INTO relayflow_voice_events (call_id, seq, delivery, item, answer) VALUES ($1, $2, $3, $4::jsonb, $5::jsonb)
       ON CONFLICT DO NOTHING RETURNING seq`,
      [callId, e.seq, e.delivery, JSON.stringify(e.item), text(e.answer)],
    );
    return rows.length > 0;
  }

  /** Calls with an event no process has yet, written more than `olderThanMs` ago (IDs only: the sweep skips what it is relaying). */
  async unrelayedCalls(olderThanMs: number, limit: number): Promise<string[]> {
    const rows = await this.sql.query<{ call_id: string }>(
      `SELECT DISTINCT call_id FROM relayflow_voice_events
        WHERE relayed_at IS NULL AND created_at < now() - make_interval(secs => $1::double precision / 1000) LIMIT $2`,
      [olderThanMs, limit],
    );
    return rows.map((r) => r.call_id);
  }

  /** The events of these calls no process has yet, in order per call, with each call's process and input. */
  async unrelayed(callIds: string[]): Promise<UnrelayedVoiceEvent[]> {
    if (!callIds.length) return [];
    const rows = await this.sql.query<{ call_id: string; process_id: string; input: unknown; item: unknown }>(
      `SELECT e.call_id, c.process_id, c.input, e.item
         FROM relayflow_voice_events e JOIN relayflow_voice_calls c ON c.call_id = e.call_id
        WHERE e.relayed_at IS NULL AND e.call_id = ANY($1::text[])
        ORDER BY e.call_id, e.seq`,
      [callIds],
    );
    return rows.map((r) => ({ callId: r.call_id, processId: r.process_id, input: json<VoiceCallPlan>(r.input), item: json<VoiceRecordedEvent>(r.item) }));
  }

  /** The process has every event of each call up to `seq`. */
  async markRelayed(upTo: Array<{ callId: string; seq: number }>): Promise<void> {
    if (!upTo.length) return;
    await this.sql.query(
      `UPDATE relayflow_voice_events e SET relayed_at = now()
         FROM unnest($1::text[], $2::int[]) AS u(call_id, seq)
        WHERE e.call_id = u.call_id AND e.seq <= u.seq AND e.relayed_at IS NULL`,
      [upTo.map((u) => u.callId), upTo.map((u) => u.seq)],
    );
  }

  /**
   * Forgets calls begun over `olderThanMs` ago whose every event the process has: a later callback of such a call
   * (hours on) finds no plan and is answered by the process, which has every event. The number of calls forgotten.
   */
  async prune(olderThanMs: number): Promise<number> {
    return this.sql.transaction(async (tx) => {
      const gone = await tx.query<{ call_id: string }>(
        `DELETE FROM relayflow_voice_calls c
          WHERE c.created_at < now() - make_interval(secs => $1::double precision / 1000)
            AND NOT EXISTS (SELECT 1 FROM relayflow_voice_events e WHERE e.call_id = c.call_id AND e.relayed_at IS NULL)
          RETURNING c.call_id`,
        [olderThanMs],
      );
      if (gone.length) await tx.query('DELETE FROM relayflow_voice_events WHERE call_id = ANY($1::text[])', [gone.map((g) => g.call_id)]);
      return gone.length;
    });
  }

  /** How many events no process has yet (benchmarks, health). */
  async countUnrelayed(): Promise<number> {
    const [row] = await this.sql.query<{ n: number | string }>('SELECT count(*) AS n FROM relayflow_voice_events WHERE relayed_at IS NULL');
    return Number(row?.n ?? 0);
  }
}
