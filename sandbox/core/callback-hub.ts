// The one place callback faults are decided: drop the next N, duplicate the next N, hold one back for a reorder,
// delay each. The sandbox's hub (ctx.callbacks, set by POST /_sandbox/callback-faults) applies drop and duplicate
// to every callback an area dispatches; an area's hub (CallbackHub, set by the area's PUT /_sandbox/<area>/...
// faults route) adds ordered delivery per key and target, reorder and delay, and hands each copy on to the
// sandbox's hub. Both hold the same setting shape (CallbackFaultSetting) and use it up the same way.
import type { Kept } from './kept.js';
import type { FastifyInstance } from 'fastify';
import type { CallbackDispatcher, CallbackRecord, CallbackResult, CallbackSigner, DispatchRequest } from './callbacks.js';
import type { Timers } from './timers.js';

export interface CallbackFaultSetting {
  /** The next N callbacks are never sent (what they announce still happens). */
  drop: number;
  /** The next N callbacks are sent twice (identical bodies). */
  duplicate: number;
  /** Holds a callback back until the next one with the same key, and sends it after that one. */
  reorder: boolean;
  /** Added before every delivery while set. */
  delayMs: number;
}

export const noCallbackFaults = (): CallbackFaultSetting => ({ drop: 0, duplicate: 0, reorder: false, delayMs: 0 });

/** Uses up one fault: drops first, then duplicates. */
function takeFault(f: CallbackFaultSetting): 'drop' | 'duplicate' | undefined {
  if (f.drop > 0) {
    f.drop--;
    return 'drop';
  }
  if (f.duplicate > 0) {
    f.duplicate--;
    return 'duplicate';
  }
  return undefined;
}

/** The sandbox-wide hub: every dispatched callback passes its drop and duplicate faults, then the dispatcher. */
export class SandboxCallbacks {
  /** Only drop and duplicate apply at this level. */
  faults = noCallbackFaults();

  constructor(private readonly dispatcher: CallbackDispatcher) {}

  /** Never rejects; resolves when the callback is delivered, given up, dropped or cancelled. */
  dispatch(req: DispatchRequest): Promise<CallbackResult> {
    if (this.dispatcher.isClosed) return this.dispatcher.dispatch(req);
    const fault = takeFault(this.faults);
    if (fault === 'drop') return Promise.resolve(this.dispatcher.dropped(req));
    return fault === 'duplicate' ? this.dispatcher.duplicate(req) : this.dispatcher.dispatch(req);
  }

  list(): CallbackRecord[] {
    return this.dispatcher.list();
  }

  clearFaults(): void {
    this.faults = noCallbackFaults();
  }

  reset(): void {
    this.clearFaults();
    this.dispatcher.clear();
  }

  close(): void {
    this.dispatcher.close();
  }
}

/** What the faults made of one callback; an area keeps it in its own records (or only counts it). */
export interface CallbackFate {
  /** 'sent', 'dropped' or 'held' once the hub has seen it; before that, the area's own word (no subscribers, ...). */
  delivery: string;
  duplicated: boolean;
  reordered: boolean;
  delayMs: number;
}

export interface HubTarget {
  url: string;
  signer?: CallbackSigner;
  /** Callbacks go out in order per key and target id (per key alone without one). */
  id?: string;
}

export interface HubCallback<F extends CallbackFate> {
  fate: F;
  /** What orders callbacks and pairs a held one with the next: a resource, a registration, a message. */
  key: string;
  body: unknown;
  /** No targets: nobody would receive it, so no fault is used up (a held callback of the key goes out). */
  targets: readonly HubTarget[];
  /** False: never held back by a reorder (a final report). */
  holdable?: boolean;
}

export interface CallbackHubOptions {
  area: string;
  /** The area's timers: reset and close cancel delays and holds. */
  timers: Timers;
  /** 'next': a reorder holds the next callback only, while nothing else is held; 'each': every holdable one while set. */
  reorder: 'next' | 'each';
  /** A held callback goes out alone after this long if no partner came; default: it waits for one. */
  maxHoldMs?: number;
  /** Retry schedule and timeout per attempt, read at each delivery; default the dispatcher's. */
  retry?: () => Pick<DispatchRequest, 'retrySchedule' | 'timeoutMs'>;
  /** Keep every callback's fate (at most this many, newest) for the area's control routes and saved state. */
  logSize?: number;
}

/** Resource events (provisioning, sender ID): a reorder holds the next one, at most 30 s; the last 10,000 are kept. */
export const EVENT_CALLBACKS = { reorder: 'next', maxHoldMs: 30_000, logSize: 10_000 } as const;

/** An area's callbacks: signed, ordered, with the area's faults. */
export class CallbackHub<F extends CallbackFate = CallbackFate> {
  faults = noCallbackFaults();
  private readonly chains = new Map<string, Promise<void>>();
  private readonly held = new Map<string, HubCallback<F>>();
  private logged: F[] = [];

  constructor(
    private readonly sandbox: SandboxCallbacks,
    private readonly opts: CallbackHubOptions,
  ) {}

  send(c: HubCallback<F>): void {
    const { fate } = c;
    if (this.opts.logSize !== undefined) {
      this.logged.push(fate);
      if (this.logged.length > this.opts.logSize) this.logged = this.logged.slice(-this.opts.logSize);
    }
    const f = this.faults;
    // Faults are used up only by callbacks someone would receive.
    if (c.targets.length === 0) return this.release(c.key);
    if (f.drop > 0) {
      f.drop--;
      fate.delivery = 'dropped';
      return this.release(c.key);
    }
    if (f.duplicate > 0) {
      f.duplicate--;
      fate.duplicated = true;
    }
    fate.delayMs = f.delayMs;
    const held = this.held.get(c.key);
    if (held) {
      this.held.delete(c.key);
      fate.reordered = held.fate.reordered = true;
      this.deliver(c);
      this.deliver(held);
    } else if (f.reorder && c.holdable !== false && (this.opts.reorder === 'each' || this.held.size === 0)) {
      if (this.opts.reorder === 'next') f.reorder = false;
      fate.delivery = 'held';
      this.held.set(c.key, c);
      if (this.opts.maxHoldMs !== undefined) this.opts.timers.after(this.opts.maxHoldMs, () => this.held.get(c.key) === c && this.release(c.key));
    } else {
      this.deliver(c);
    }
  }

  /** Every fate kept, oldest first (copies). */
  log(): F[] {
    return this.logged.map((r) => ({ ...r }));
  }

  /** The log as a Kept part of the area's state (kept.ts): the fates as they are. */
  readonly keptLog: Kept<readonly F[]> = {
    save: () => this.logged,
    load: (saved) => {
      this.logged = [...saved];
    },
  };

  reset(): void {
    this.faults = noCallbackFaults();
    this.chains.clear();
    this.held.clear();
    this.logged = [];
  }

  private release(key: string): void {
    const held = this.held.get(key);
    this.held.delete(key);
    if (held) this.deliver(held);
  }

  private deliver(c: HubCallback<F>): void {
    c.fate.delivery = 'sent';
    const generation = this.opts.timers.generation;
    for (const target of c.targets) {
      const chain = target.id === undefined ? c.key : `${target.id} ${c.key}`;
      const next = (this.chains.get(chain) ?? Promise.resolve()).then(() => this.deliverTo(c, target, generation));
      this.chains.set(chain, next);
      void next.finally(() => {
        if (this.chains.get(chain) === next) this.chains.delete(chain);
      });
    }
  }

  private async deliverTo(c: HubCallback<F>, target: HubTarget, generation: number): Promise<void> {
    const { timers } = this.opts;
    if (c.fate.delayMs > 0 && !(await timers.sleep(c.fate.delayMs))) return;
    for (let copy = 0; copy < (c.fate.duplicated ? 2 : 1); copy++) {
      // A reset in the meantime: the sandbox has moved on, this callback is no longer due.
      if (generation !== timers.generation) return;
      await this.sandbox.dispatch({
        area: this.opts.area,
        url: target.url,
        body: c.body,
        ...(target.signer ? { signer: target.signer } : {}),
        ...this.opts.retry?.(),
      });
    }
  }
}

/**
 * GET and PUT `path` (an area's webhook-faults or callback-faults): the hub's setting; a PUT replaces it whole,
 * fields left out clear. `parse` checks the body in the area's own error format.
 */
export function callbackFaultRoutes(
  app: FastifyInstance,
  path: string,
  hub: { faults: CallbackFaultSetting },
  parse: (body: unknown) => Partial<CallbackFaultSetting>,
): void {
  app.get(path, async () => hub.faults);
  app.put(path, async (request) => {
    hub.faults = { ...noCallbackFaults(), ...parse(request.body) };
    return hub.faults;
  });
}
