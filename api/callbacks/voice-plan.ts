// Answering a call's callbacks from its plan, where the callback lands: an incoming call's ICE, ACE and PIE (the
// plan is the rule that matched the called number when the ICE came, read through a short-lived cache), and the
// ACE of a text-to-speech or conference callout (the plan is in its token: continue, or hang up on a machine).
// What the call has done so far (menu position, AMD result) is its earlier events, kept in the store and replayed
// through the same pure call driver the process runs (processes/voice/call-driver.ts). Each event and the answer
// given are written to the store before the answer goes out, so no answer is lost while Temporal is away; then,
// off the answer's path, they are relayed to the call's process in batches (voice-relay.ts), which replays them
// through its own driver and records them with `by: plan`.
import type { FastifyBaseLogger } from 'fastify';
import type { Client } from '@temporalio/client';
import { workflowIds } from '../../processes/kinds.js';
import { CallDriver, calloutPlan, incomingPlan } from '../../processes/voice/call-driver.js';
import {
  isAppToApp,
  isCalloutPlan,
  type CalloutAcePlan,
  type IncomingCallFacts,
  type Svaml,
  type VoiceCallbackEvent,
  type VoiceCallEnded,
  type VoiceCallPlan,
  type VoiceFollowSettings,
} from '../../processes/voice/contract.js';
import type { IncomingRuleCache, StoredVoiceEvent, VoiceCallStore } from '../../store/index.js';
import { incomingInput } from './voice-answer.js';
import { VoiceRelay, type HeldCall, type RelaySettings } from './voice-relay.js';

export interface PlanIntakeOptions extends Partial<RelaySettings> {
  client: Client;
  taskQueue: string;
  calls: VoiceCallStore;
  /** The incoming-call rules; absent: every incoming call is denied (as its process would). */
  rules?: Pick<IncomingRuleCache, 'match'> | undefined;
  follow: VoiceFollowSettings;
  log: FastifyBaseLogger;
}

/** How a call the store does not know yet begins: an incoming call's ICE, or a callout's ACE answered from the plan. */
export type CallOrigin = { incoming: IncomingCallFacts } | { callout: { processId: string; leg: number; attempt: number; ace: CalloutAcePlan } };

/** Calls kept in memory per API instance (the store has them all; a miss costs one read). */
const MAX_CACHED_CALLS = 20_000;
/** A call changed under this instance this often in a row (other instances answering it): give up, the update path answers. */
const MAX_TRIES = 3;

export class VoicePlanIntake {
  readonly #o: PlanIntakeOptions;
  readonly #cache = new Map<string, HeldCall>();
  readonly #relay: VoiceRelay;

  constructor(opts: PlanIntakeOptions) {
    this.#o = opts;
    this.#relay = new VoiceRelay(
      {
        client: opts.client,
        taskQueue: opts.taskQueue,
        calls: opts.calls,
        log: opts.log,
        held: (callId) => this.#cache.get(callId),
        // An ended call whose every event the process has needs no memory here any more.
        relayedAll: (callId, call) => {
          if (this.#cache.get(callId) === call) this.#cache.delete(callId);
        },
      },
      {
        relayEveryMs: opts.relayEveryMs ?? 1_000,
        relayDeadlineMs: opts.relayDeadlineMs ?? 10_000,
        sweepEveryMs: opts.sweepEveryMs ?? 1_000,
        // Past the relay's own second, with room for a relay under load: another instance's rows, or failed ones.
        sweepAfterMs: opts.sweepAfterMs ?? 3_000,
        keepCallsMs: opts.keepCallsMs ?? 24 * 3_600_000,
      },
    );
  }

  /**
   * The answer to a callback of a call the intake holds the plan of, once written to the store; undefined when it
   * holds none (a callback of a call whose first event was not answered from the plan): the process answers it.
   * `origin` says how the call begins when this callback is its first (an incoming ICE, a callout's ACE).
   * Throws when the store cannot be read or written (the caller answers through the process then).
   */
  async answer(ev: VoiceCallbackEvent, delivery: string, origin: CallOrigin | undefined): Promise<Svaml | undefined> {
    const begins = origin !== undefined && ev.event === ('incoming' in origin ? 'ice' : 'ace');
    for (let tries = 0; tries < MAX_TRIES; tries++) {
      // A new call's first event is written at once (one round trip); only a call the store knows already is read first.
      const fresh = tries === 0 && begins && !this.#cache.has(ev.callId);
      let st = fresh ? undefined : await this.#state(ev.callId);
      if (!st) {
        if (!begins) return undefined;
        st = await this.#newCall(ev.callId, origin);
        const svaml = decide(st, ev);
        const first: StoredVoiceEvent = { seq: 1, delivery, item: { seq: 1, ev, given: { by: 'plan', action: svaml.action.name } }, answer: svaml };
        if (await this.#o.calls.begin({ callId: ev.callId, processId: st.processId, input: st.plan }, first)) {
          st.events.push(first);
          this.#remember(ev.callId, st);
          this.#relay.kick(ev.callId, endsCall(st.plan, ev));
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
        this.#relay.kick(ev.callId, endsCall(st.plan, ev));
        return svaml;
      }
      this.#cache.delete(ev.callId); // this instance's copy was behind: read the call again
    }
    throw new Error(`call ${ev.callId} changed under the intake ${MAX_TRIES} times in a row`);
  }

  /** Records a DiCE of a call answered from its plan (relayed at once, after its answers); false for any other call. */
  async ended(e: VoiceCallEnded, delivery: string): Promise<boolean> {
    for (let tries = 0; tries < MAX_TRIES; tries++) {
      const st = await this.#state(e.callId);
      if (!st) return false;
      if (st.events.some((x) => x.delivery === delivery)) return true;
      const seq = st.events.length + 1;
      const item: StoredVoiceEvent = { seq, delivery, item: { seq, ended: e } };
      if (await this.#o.calls.append(e.callId, item)) {
        st.events.push(item);
        this.#relay.kick(e.callId, true);
        return true;
      }
      this.#cache.delete(e.callId);
    }
    throw new Error(`call ${e.callId} changed under the intake ${MAX_TRIES} times in a row`);
  }

  /** Relays at once what this instance answered for the call and its process does not have (before the process answers for it). */
  flush(callId: string): Promise<void> {
    return this.#relay.flush(callId);
  }

  /** Relays what the store holds that no process has yet (written over sweepAfterMs ago). */
  sweep(): Promise<void> {
    return this.#relay.sweep();
  }

  close(): Promise<void> {
    return this.#relay.close();
  }

  async #state(callId: string): Promise<HeldCall | undefined> {
    const cached = this.#cache.get(callId);
    if (cached) return cached;
    const stored = await this.#o.calls.read(callId);
    if (!stored) return undefined;
    // Another instance's relay may be under way: what it has not marked yet is sent again, and the process ignores repeats.
    const st: HeldCall = { processId: stored.processId, plan: stored.input, events: stored.events, relayed: stored.relayed };
    this.#remember(callId, st);
    return st;
  }

  async #newCall(callId: string, origin: CallOrigin): Promise<HeldCall> {
    if ('callout' in origin) {
      const { processId, ...callout } = origin.callout;
      return { processId, plan: { callout }, events: [], relayed: 0 };
    }
    const match = this.#o.rules ? await this.#o.rules.match(origin.incoming) : undefined;
    const input = incomingInput(callId, origin.incoming, this.#o.follow, match);
    return { processId: workflowIds['voice-incoming'](callId), plan: input, events: [], relayed: 0 };
  }

  #remember(callId: string, st: HeldCall): void {
    this.#cache.delete(callId);
    this.#cache.set(callId, st);
    if (this.#cache.size > MAX_CACHED_CALLS) this.#cache.delete(this.#cache.keys().next().value!);
  }
}

/** An app-to-app call's ICE is all the platform sends about it (spec): its process has it at once. */
const endsCall = (plan: VoiceCallPlan, ev: VoiceCallbackEvent) => ev.event === 'ice' && !isCalloutPlan(plan) && isAppToApp(plan);

/** The answer to `ev` from the call's plan and its earlier events, replayed through a fresh driver (pure). */
function decide(st: HeldCall, ev: VoiceCallbackEvent): Svaml {
  const plan = isCalloutPlan(st.plan) ? calloutPlan(st.plan.callout.ace) : incomingPlan(st.plan.rule);
  const driver = new CallDriver(plan, { attempt: 1, callId: ev.callId, placedAt: '', state: 'ringing', answers: [] });
  for (const e of st.events) if (e.item.ev) driver.answer(e.item.ev, e.item.given);
  return driver.answer(ev);
}
