// Answering an incoming call's callbacks from its plan, where the callback lands. The plan is the rule that
// matched the called number when the ICE came (read through a short-lived cache); what the call has done so far
// (menu position, AMD result) is its earlier events, kept in the store and replayed through the same pure call
// driver the process runs (contracts/voice-call-driver.ts). Each event and the answer given are written to the
// store before the answer goes out, so no answer is lost while Temporal is away; then, off the answer's critical
// path, they are relayed in order to the call's process (signal-with-start `voiceEvents`; the first one starts it),
// which replays them through its own driver and records them with `by: plan`. The store is the outbox: what
// could not be relayed is sent again by a sweep (in every API instance), and the process applies each `seq` once.
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { KIND, STATE } from '../../common/search-attributes.js';
import type { Logger } from '../../common/logger.js';
import { workflowIds } from '../../contracts/ids.js';
import { CallDriver, incomingPlan } from '../../contracts/voice-call-driver.js';
import {
  VOICE_INCOMING_KIND,
  voiceEventsSignal,
  type Svaml,
  type VoiceCallbackEvent,
  type VoiceCallEnded,
  type VoiceFollowSettings,
  type VoiceIncomingInput,
  type VoiceRecordedEvent,
} from '../../contracts/voice.js';
import type { IncomingCallFacts } from '../../contracts/voice-rule-keys.js';
import type { IncomingRuleCache, StoredVoiceEvent, VoiceCallStore } from '../../store/index.js';
import { incomingInput } from './voice-answer.js';

export interface PlanIntakeOptions {
  client: Client;
  taskQueue: string;
  calls: VoiceCallStore;
  /** The incoming-call rules; absent: every incoming call is denied (as its process would). */
  rules?: Pick<IncomingRuleCache, 'match'> | undefined;
  follow: VoiceFollowSettings;
  log: Logger;
  /** How often the store is swept for events no process has yet (written more than sweepAfterMs ago). */
  sweepEveryMs?: number;
  sweepAfterMs?: number;
  /** The deadline of one relay to Temporal (a signal-with-start). */
  relayDeadlineMs?: number;
  /** Calls begun this long ago whose events the process has are removed from the store (checked every few minutes). */
  keepCallsMs?: number;
}

interface CallState {
  processId: string;
  input: VoiceIncomingInput;
  events: StoredVoiceEvent[];
  /** The last seq the process has (relayed from this instance). */
  relayed: number;
}

/** Calls kept in memory per API instance (the store has them all; a miss costs one read). */
const MAX_CACHED_CALLS = 20_000;
/** A call changed under this instance this often in a row (other instances answering it): give up, the update path answers. */
const MAX_TRIES = 3;
/**
 * Relays in flight at once from one instance: the answers come first. Under load a call's events wait their turn
 * and then go in one signal (one workflow task for several answers); idle, each goes at once.
 */
const MAX_RELAYS_IN_FLIGHT = 32;
const PRUNE_EVERY_MS = 5 * 60_000;

export class VoicePlanIntake {
  readonly #o: Required<Omit<PlanIntakeOptions, 'rules'>> & Pick<PlanIntakeOptions, 'rules'>;
  readonly #cache = new Map<string, CallState>();
  readonly #dirty = new Set<string>();
  readonly #inFlight = new Set<string>();
  #kickScheduled = false;
  #marks: Array<{ callId: string; seq: number }> = [];
  #marking: Promise<void> | undefined;
  #sweeping: Promise<void> | undefined;
  readonly #sweeper: NodeJS.Timeout;
  #closed = false;

  constructor(opts: PlanIntakeOptions) {
    this.#o = { sweepEveryMs: 1_000, sweepAfterMs: 2_000, relayDeadlineMs: 10_000, keepCallsMs: 24 * 3_600_000, ...opts };
    this.#sweeper = setInterval(() => void this.sweep(), this.#o.sweepEveryMs);
    this.#sweeper.unref();
  }

  /**
   * The answer to an ICE, ACE or PIE of a call the intake holds the plan of, once written to the store; undefined
   * when it holds none (a callback of a call whose ICE was not answered from the plan): the process answers it.
   * Throws when the store cannot be read or written (the caller answers through the process then).
   */
  async answer(ev: VoiceCallbackEvent, delivery: string, incoming: IncomingCallFacts | undefined): Promise<Svaml | undefined> {
    for (let tries = 0; tries < MAX_TRIES; tries++) {
      // A new call's ICE is written at once (one round trip); only a call the store knows already is read first.
      const fresh = tries === 0 && incoming && ev.event === 'ice' && !this.#cache.has(ev.callId);
      let st = fresh ? undefined : await this.#state(ev.callId);
      if (!st) {
        if (!incoming || ev.event !== 'ice') return undefined;
        st = await this.#newCall(ev.callId, incoming);
        const svaml = decide(st, ev);
        const first: StoredVoiceEvent = { seq: 1, delivery, item: { seq: 1, ev, given: { by: 'plan', action: svaml.action.name } }, answer: svaml };
        if (await this.#o.calls.begin({ callId: ev.callId, processId: st.processId, input: st.input }, first)) {
          st.events.push(first);
          this.#remember(ev.callId, st);
          this.#kick(ev.callId);
          return svaml;
        }
        continue; // another delivery or instance began the call first: read it
      }
      const same = st.events.find((e) => e.delivery === delivery);
      if (same) return same.answer;
      const svaml = decide(st, ev);
      const seq = st.events.length + 1;
      const e: StoredVoiceEvent = { seq, delivery, item: { seq, ev, given: { by: 'plan', action: svaml.action.name } }, answer: svaml };
      if (await this.#o.calls.append(ev.callId, e)) {
        st.events.push(e);
        this.#kick(ev.callId);
        return svaml;
      }
      this.#cache.delete(ev.callId); // this instance's copy was behind: read the call again
    }
    throw new Error(`call ${ev.callId} changed under the intake ${MAX_TRIES} times in a row`);
  }

  /** Records a DiCE of a call answered from its plan (relayed in order after its answers); false for any other call. */
  async ended(e: VoiceCallEnded, delivery: string): Promise<boolean> {
    for (let tries = 0; tries < MAX_TRIES; tries++) {
      const st = await this.#state(e.callId);
      if (!st) return false;
      if (st.events.some((x) => x.delivery === delivery)) return true;
      const seq = st.events.length + 1;
      const item: StoredVoiceEvent = { seq, delivery, item: { seq, ended: e } };
      if (await this.#o.calls.append(e.callId, item)) {
        st.events.push(item);
        this.#kick(e.callId);
        return true;
      }
      this.#cache.delete(e.callId);
    }
    throw new Error(`call ${e.callId} changed under the intake ${MAX_TRIES} times in a row`);
  }

  /** Relays what the store holds that no process has yet (written over sweepAfterMs ago): this instance's failed relays, and other instances'. */
  sweep(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#sweeping ??= this.#sweepOnce()
      .catch((err: unknown) => this.#o.log.warn({ err: (err as Error).message }, 'voice relay sweep failed'))
      .finally(() => (this.#sweeping = undefined));
    return this.#sweeping;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#sweeper);
    await this.#sweeping;
    await this.#marking;
  }

  #prunedAt = Date.now();

  async #sweepOnce(): Promise<void> {
    if (Date.now() - this.#prunedAt > PRUNE_EVERY_MS) {
      this.#prunedAt = Date.now();
      const n = await this.#o.calls.prune(this.#o.keepCallsMs);
      if (n) this.#o.log.info({ calls: n }, 'voice calls answered from their plan forgotten by the store (their processes have every event)');
    }
    // What this instance is relaying (or has waiting for a relay slot) is not read or sent twice.
    const ids = (await this.#o.calls.unrelayedCalls(this.#o.sweepAfterMs, 500)).filter((id) => !this.#inFlight.has(id) && !this.#dirty.has(id));
    const rows = await this.#o.calls.unrelayed(ids);
    const byCall = new Map<string, { processId: string; input: VoiceIncomingInput; items: VoiceRecordedEvent[] }>();
    for (const r of rows) {
      // What this instance is relaying (or has relayed and is marking) is not sent twice.
      if (this.#inFlight.has(r.callId) || this.#dirty.has(r.callId) || r.item.seq <= (this.#cache.get(r.callId)?.relayed ?? 0)) continue;
      const c = byCall.get(r.callId) ?? { processId: r.processId, input: r.input, items: [] };
      c.items.push(r.item);
      byCall.set(r.callId, c);
    }
    const calls = [...byCall];
    const next = async (): Promise<void> => {
      for (let c = calls.shift(); c && !this.#closed; c = calls.shift()) {
        const [callId, { processId, input, items }] = c;
        if (this.#inFlight.has(callId)) continue;
        this.#inFlight.add(callId);
        try {
          await this.#relay(processId, input, items);
          const upTo = items.at(-1)!.seq;
          const st = this.#cache.get(callId);
          if (st && st.relayed < upTo) st.relayed = upTo;
          await this.#o.calls.markRelayed([{ callId, seq: upTo }]);
        } catch (err) {
          this.#o.log.info({ processId, err: (err as Error).message }, 'voice events not relayed yet; the next sweep tries again');
        } finally {
          this.#inFlight.delete(callId);
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, next));
  }

  async #state(callId: string): Promise<CallState | undefined> {
    const cached = this.#cache.get(callId);
    if (cached) return cached;
    const stored = await this.#o.calls.read(callId);
    if (!stored) return undefined;
    // What this instance did not relay itself counts as not relayed: a repeat is ignored by the process.
    const st: CallState = { processId: stored.processId, input: stored.input, events: stored.events, relayed: 0 };
    this.#remember(callId, st);
    return st;
  }

  async #newCall(callId: string, facts: IncomingCallFacts): Promise<CallState> {
    const match = this.#o.rules ? await this.#o.rules.match(facts) : undefined;
    const input = incomingInput(callId, facts, this.#o.follow, match);
    return { processId: workflowIds['voice-incoming'](callId), input, events: [], relayed: 0 };
  }

  #remember(callId: string, st: CallState): void {
    this.#cache.delete(callId);
    this.#cache.set(callId, st);
    if (this.#cache.size > MAX_CACHED_CALLS) this.#cache.delete(this.#cache.keys().next().value!);
  }

  /** Relays the call's new events soon (batched per call: one relay in flight per call, the rest follow it). */
  #kick(callId: string): void {
    this.#dirty.add(callId);
    this.#schedule();
  }

  #schedule(): void {
    if (this.#kickScheduled || this.#closed) return;
    this.#kickScheduled = true;
    setImmediate(() => {
      this.#kickScheduled = false;
      this.#flush();
    });
  }

  #flush(): void {
    // Deleting the entry being visited is safe while iterating a Set.
    for (const callId of this.#dirty) {
      if (this.#inFlight.size >= MAX_RELAYS_IN_FLIGHT) return;
      if (this.#inFlight.has(callId)) continue;
      this.#dirty.delete(callId);
      const st = this.#cache.get(callId);
      const items = st?.events.filter((e) => e.seq > st.relayed).map((e) => e.item) ?? [];
      if (!st || !items.length) continue;
      this.#inFlight.add(callId);
      const upTo = items.at(-1)!.seq;
      this.#relay(st.processId, st.input, items)
        .then(() => {
          if (st.relayed < upTo) st.relayed = upTo;
          this.#mark(callId, upTo);
          // An ended call whose every event the process has needs no memory here any more.
          if (st.relayed === st.events.length && st.events.at(-1)?.item.ended && this.#cache.get(callId) === st) this.#cache.delete(callId);
        })
        .catch((err: unknown) =>
          this.#o.log.info({ processId: st.processId, err: (err as Error).message }, 'voice events not relayed; the store keeps them for the sweep'),
        )
        .finally(() => {
          this.#inFlight.delete(callId);
          if (this.#dirty.size) this.#schedule();
        });
    }
  }

  /** The events, in order, to the call's process: started with the call's input if it is not running yet. */
  async #relay(processId: string, input: VoiceIncomingInput, items: VoiceRecordedEvent[]): Promise<void> {
    try {
      await this.#o.client.withDeadline(Date.now() + this.#o.relayDeadlineMs, () =>
        this.#o.client.workflow.signalWithStart('voiceIncomingCall', {
          workflowId: processId,
          taskQueue: this.#o.taskQueue,
          args: [input],
          signal: voiceEventsSignal,
          signalArgs: [{ items }],
          // A process that has ended is not started again by a late repeat of its events.
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          typedSearchAttributes: [
            { key: KIND, value: VOICE_INCOMING_KIND },
            { key: STATE, value: 'RINGING' },
          ],
        }),
      );
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      this.#o.log.warn({ processId, seqs: items.map((i) => i.seq) }, 'voice events for a call whose process has ended: not recorded in it');
    }
  }

  /** Marks relayed rows in the store, batched (one statement for whatever was relayed meanwhile). */
  #mark(callId: string, seq: number): void {
    this.#marks.push({ callId, seq });
    if (this.#marking) return;
    this.#marking = (async () => {
      while (this.#marks.length) {
        const batch = this.#marks;
        this.#marks = [];
        await this.#o.calls
          .markRelayed(batch)
          .catch((err: unknown) =>
            this.#o.log.info({ err: (err as Error).message }, 'relayed voice events not marked; the sweep relays them again (the process ignores repeats)'),
          );
      }
    })().finally(() => (this.#marking = undefined));
  }
}

/** The answer to `ev` from the call's plan and its earlier events, replayed through a fresh driver (pure). */
function decide(st: CallState, ev: VoiceCallbackEvent): Svaml {
  const driver = new CallDriver(incomingPlan(st.input.rule), { attempt: 1, callId: st.input.callId, placedAt: '', state: 'ringing', answers: [] });
  for (const e of st.events) if (e.item.ev) driver.answer(e.item.ev, e.item.given);
  return driver.answer(ev);
}
