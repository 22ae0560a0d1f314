// The relay of calls answered from their plan to their processes, in batches. Each event and its answer are in the
// store before the answer goes out (voice-plan.ts); this moves them to the call's process off the answer's path:
// at once when the call ends (its DiCE, or an app-to-app call's ICE), else once a second has passed since the
// oldest event the process does not have, so a call costs its process one start or signal per second at most
// (a workflow task each), not one per callback. An incoming call's first batch starts its process (the events in
// its input, its state given at the start); later batches, and a callout's, are `voiceEvents` signals. The store is
// the outbox: rows without relayed_at are relayed again by the sweep of every API instance (a failed relay, an
// instance stopped mid-call), and the process applies each `seq` once.
import type { FastifyBaseLogger } from 'fastify';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { KIND, STATE } from '../../common/search-attributes.js';
import { LAST_CHANGE_MEMO, type LastChangeMemo } from '../../contracts/process-status.js';
import { incomingLead } from '../../processes/voice/call-driver.js';
import { voiceIncoming } from '../../processes/voice/voice-incoming/kind.js';
import { isCalloutPlan, VOICE_INCOMING_KIND, voiceEventsSignal, type VoiceCallPlan, type VoiceRecordedEvent } from '../../processes/voice/contract.js';
import type { StoredVoiceEvent, VoiceCallStore } from '../../store/index.js';

export interface RelaySettings {
  /** How long a lasting call's events wait to go together (from the oldest the process does not have). */
  relayEveryMs: number;
  /** The deadline of one relay to Temporal (a start or a signal). */
  relayDeadlineMs: number;
  /** How often the store is swept for events no process has yet (written more than sweepAfterMs ago). */
  sweepEveryMs: number;
  sweepAfterMs: number;
  /** Calls begun this long ago whose events the process has are removed from the store (checked every few minutes). */
  keepCallsMs: number;
}

/** A call as the intake holds it in memory. */
export interface HeldCall {
  processId: string;
  plan: VoiceCallPlan;
  events: StoredVoiceEvent[];
  /** The last seq the process has, as far as this instance knows. */
  relayed: number;
}

interface RelayDeps {
  client: Client;
  taskQueue: string;
  calls: VoiceCallStore;
  log: FastifyBaseLogger;
  /** The call this instance holds, if any. */
  held: (callId: string) => HeldCall | undefined;
  /** Called once every event of an ended call is relayed: the intake may forget it. */
  relayedAll: (callId: string, call: HeldCall) => void;
}

/** Relays in flight at once from one instance: the answers come first. */
const MAX_RELAYS_IN_FLIGHT = 32;
const PRUNE_EVERY_MS = 5 * 60_000;

export class VoiceRelay {
  /** Calls whose events go at once (they ended). */
  readonly #now = new Set<string>();
  /** Calls whose events go at the time given: inserted in the order they fall due. */
  readonly #later = new Map<string, number>();
  readonly #inFlight = new Map<string, Promise<void>>();
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Infinity;
  #flushScheduled = false;
  #marks: Array<{ callId: string; seq: number }> = [];
  #marking: Promise<void> | undefined;
  #sweeping: Promise<void> | undefined;
  readonly #sweeper: NodeJS.Timeout;
  #prunedAt = Date.now();
  #closed = false;

  constructor(
    private readonly d: RelayDeps,
    private readonly s: RelaySettings,
  ) {
    this.#sweeper = setInterval(() => void this.sweep(), s.sweepEveryMs);
    this.#sweeper.unref();
  }

  /** The call has an event its process does not have: relayed at once when it ended the call, else within relayEveryMs. */
  kick(callId: string, endsCall: boolean): void {
    if (endsCall) {
      this.#later.delete(callId);
      this.#now.add(callId);
      this.#soon();
    } else if (!this.#now.has(callId) && !this.#later.has(callId)) {
      this.#later.set(callId, Date.now() + this.s.relayEveryMs);
      this.#arm();
    }
  }

  /** Relays now what this instance holds of the call that its process does not have, and waits for it (before the process answers for the call). */
  async flush(callId: string): Promise<void> {
    await this.#inFlight.get(callId);
    this.#now.delete(callId);
    this.#later.delete(callId);
    await this.#start(callId);
  }

  /** Relays what the store holds that no process has yet (written over sweepAfterMs ago): this instance's failed relays, and other instances'. */
  sweep(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#sweeping ??= this.#sweepOnce()
      .catch((err: unknown) => this.d.log.warn({ err: (err as Error).message }, 'voice relay sweep failed'))
      .finally(() => (this.#sweeping = undefined));
    return this.#sweeping;
  }

  /** Stops relaying; what this instance holds goes out first (another instance would take it only after sweepAfterMs). */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#sweeper);
    clearTimeout(this.#timer);
    const held = [...this.#now, ...this.#later.keys()];
    this.#now.clear();
    this.#later.clear();
    await Promise.all(held.map((callId) => this.#start(callId)));
    await Promise.all(this.#inFlight.values());
    await this.#sweeping;
    await this.#marking;
  }

  #pending(callId: string): boolean {
    return this.#now.has(callId) || this.#later.has(callId) || this.#inFlight.has(callId);
  }

  #soon(): void {
    if (this.#flushScheduled || this.#closed) return;
    this.#flushScheduled = true;
    setImmediate(() => {
      this.#flushScheduled = false;
      this.#flush();
    });
  }

  /** A timer for the first call falling due that is not being relayed (one that is gets its turn when its relay ends). */
  #arm(): void {
    // With every slot taken, the next relay to end flushes again.
    if (this.#closed || this.#inFlight.size >= MAX_RELAYS_IN_FLIGHT) return;
    let at: number | undefined;
    for (const [callId, due] of this.#later)
      if (!this.#inFlight.has(callId)) {
        at = due;
        break;
      }
    if (at === undefined || at >= this.#timerAt) return;
    clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(
      () => {
        this.#timerAt = Infinity;
        this.#timer = undefined;
        this.#flush();
      },
      Math.max(0, at - Date.now()),
    );
    this.#timer.unref();
  }

  #flush(): void {
    if (this.#closed) return;
    for (const callId of this.#now) {
      if (this.#inFlight.size >= MAX_RELAYS_IN_FLIGHT) return;
      if (this.#inFlight.has(callId)) continue;
      this.#now.delete(callId);
      void this.#start(callId);
    }
    const now = Date.now();
    for (const [callId, due] of this.#later) {
      if (due > now || this.#inFlight.size >= MAX_RELAYS_IN_FLIGHT) break;
      if (this.#inFlight.has(callId)) continue;
      this.#later.delete(callId);
      void this.#start(callId);
    }
    this.#arm();
  }

  /** Relays the call's events its process does not have; never rejects (what fails stays in the store for the sweep). */
  #start(callId: string): Promise<void> {
    const running = this.#inFlight.get(callId);
    if (running) return running.then(() => this.#start(callId));
    const call = this.d.held(callId);
    const items = call ? call.events.filter((e) => e.seq > call.relayed).map((e) => e.item) : [];
    if (!call || !items.length) return Promise.resolve();
    const upTo = items.at(-1)!.seq;
    const relay = this.#send(call.processId, call.plan, items)
      .then(() => {
        if (call.relayed < upTo) call.relayed = upTo;
        this.#mark(callId, upTo);
        if (call.relayed === call.events.length && call.events.at(-1)?.item.ended) this.d.relayedAll(callId, call);
      })
      .catch((err: unknown) =>
        this.d.log.info({ processId: call.processId, err: (err as Error).message }, 'voice events not relayed; the store keeps them for the sweep'),
      )
      .finally(() => {
        this.#inFlight.delete(callId);
        if (this.#now.size || this.#later.size) this.#soon();
      });
    this.#inFlight.set(callId, relay);
    return relay;
  }

  /**
   * The events, in order, to the call's process. An incoming call's batch that begins with its first event starts
   * the process with them (a start is one action, where signal-with-start adds a signal); one whose process runs
   * already is signalled.
   */
  async #send(processId: string, plan: VoiceCallPlan, items: VoiceRecordedEvent[]): Promise<void> {
    await this.d.client.withDeadline(Date.now() + this.s.relayDeadlineMs, async () => {
      if (!isCalloutPlan(plan) && items[0]!.seq === 1) {
        const lead = incomingLead(items);
        const memo: LastChangeMemo | undefined = lead.at ? { state: lead.state, at: lead.at, ...(lead.reason ? { reason: lead.reason } : {}) } : undefined;
        try {
          await this.d.client.workflow.start(voiceIncoming.workflowType, {
            workflowId: processId,
            taskQueue: this.d.taskQueue,
            args: [{ ...plan, events: items }],
            // A process that has ended is not started again by a late repeat of its events.
            workflowIdReusePolicy: 'REJECT_DUPLICATE',
            typedSearchAttributes: [
              { key: KIND, value: VOICE_INCOMING_KIND },
              { key: STATE, value: lead.state },
            ],
            ...(memo ? { memo: { [LAST_CHANGE_MEMO]: memo } } : {}),
          });
          return;
        } catch (err) {
          if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
        }
      }
      try {
        await this.d.client.workflow.getHandle(processId).signal(voiceEventsSignal, { items });
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
        this.d.log.warn({ processId, seqs: items.map((i) => i.seq) }, 'voice events for a call whose process has ended: not recorded in it');
      }
    });
  }

  /** Marks relayed rows in the store, batched (one statement for whatever was relayed meanwhile). */
  #mark(callId: string, seq: number): void {
    this.#marks.push({ callId, seq });
    if (this.#marking) return;
    this.#marking = (async () => {
      while (this.#marks.length) {
        const batch = this.#marks;
        this.#marks = [];
        await this.d.calls
          .markRelayed(batch)
          .catch((err: unknown) =>
            this.d.log.info({ err: (err as Error).message }, 'relayed voice events not marked; the sweep relays them again (the process ignores repeats)'),
          );
      }
    })().finally(() => (this.#marking = undefined));
  }

  async #sweepOnce(): Promise<void> {
    if (Date.now() - this.#prunedAt > PRUNE_EVERY_MS) {
      this.#prunedAt = Date.now();
      const n = await this.d.calls.prune(this.s.keepCallsMs);
      if (n) this.d.log.info({ calls: n }, 'voice calls answered from their plan forgotten by the store (their processes have every event)');
    }
    // What this instance holds (waiting for its time, or being relayed) is not read or sent twice.
    const ids = (await this.d.calls.unrelayedCalls(this.s.sweepAfterMs, 500)).filter((id) => !this.#pending(id));
    const rows = await this.d.calls.unrelayed(ids);
    const byCall = new Map<string, { processId: string; plan: VoiceCallPlan; items: VoiceRecordedEvent[] }>();
    for (const r of rows) {
      if (this.#pending(r.callId) || r.item.seq <= (this.d.held(r.callId)?.relayed ?? 0)) continue;
      const c = byCall.get(r.callId) ?? { processId: r.processId, plan: r.input, items: [] };
      c.items.push(r.item);
      byCall.set(r.callId, c);
    }
    const calls = [...byCall];
    const next = async (): Promise<void> => {
      for (let c = calls.shift(); c && !this.#closed; c = calls.shift()) {
        const [callId, { processId, plan, items }] = c;
        if (this.#pending(callId)) continue;
        const relay = (async () => {
          try {
            await this.#send(processId, plan, items);
            const upTo = items.at(-1)!.seq;
            const held = this.d.held(callId);
            if (held && held.relayed < upTo) held.relayed = upTo;
            await this.d.calls.markRelayed([{ callId, seq: upTo }]);
          } catch (err) {
            this.d.log.info({ processId, err: (err as Error).message }, 'voice events not relayed yet; the next sweep tries again');
          }
        })();
        this.#inFlight.set(callId, relay);
        await relay.finally(() => {
          this.#inFlight.delete(callId);
          // A kick for this call while the sweep relayed it waited for its turn.
          if (this.#now.size || this.#later.size) this.#soon();
        });
      }
    };
    await Promise.all(Array.from({ length: 8 }, next));
  }
}
