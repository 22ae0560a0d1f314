// Sends the area's callbacks (docs/senderid-wire.md "Callbacks"): JSON POSTs to the registration's
// callbackUrl (else the configured default), signed `X-Service-Signature` = hex HMAC-SHA1 of the raw
// body with the project's current hmacSecret (read at every attempt, so a retry after a rotation
// carries the new one), through the core dispatcher (retries, core drop/duplicate faults), and the
// area's own faults: delay, duplicate, reorder, drop. Callbacks of one registration go out in order,
// so only an injected reorder makes them arrive out of order.
import { ulid } from 'ulid';
import { senderIdCallbackSigner } from '../../core/callback-signers.js';
import type { CallbackSigner } from '../../core/callbacks.js';
import type { SandboxContext } from '../../core/context.js';
import type { Registration, RegistrationState, UploadStatus } from './model.js';
import type { SenderIdStore } from './store.js';
import type { Timers } from '../../core/timers.js';

type EventType = 'REGISTRATION_STATE_CHANGED' | 'ATTACHMENT_STATUS_CHANGED';

export interface SenderIdEvent {
  eventId: string;
  eventType: EventType;
  projectId: string;
  registrationId: string;
  registrationState: RegistrationState;
  previousState?: RegistrationState;
  registrationType: string;
  marketCode: string;
  senderId?: string;
  etaDate?: string;
  message?: string;
  attachmentId?: string;
  uploadStatus?: UploadStatus;
  timestamp: string;
}

export interface CallbackFaultSetting {
  /** Added before every delivery while set. */
  delayMs: number;
  /** The next N callbacks are sent twice (same eventId). */
  duplicate: number;
  /** The next callback is held until the next one of the same registration, and sent after it. */
  reorder: boolean;
  /** The next N callbacks are never sent (the registration still changes). */
  drop: number;
}

type DeliveryFate = 'sent' | 'dropped' | 'held' | 'no-url';

export interface EventRecord {
  event: SenderIdEvent;
  url?: string;
  delivery: DeliveryFate;
  duplicated: boolean;
  reordered: boolean;
  delayMs: number;
}

export const noCallbackFaults = (): CallbackFaultSetting => ({ delayMs: 0, duplicate: 0, reorder: false, drop: 0 });

/** A held callback goes out alone if no partner arrives in this time. */
const REORDER_MAX_HOLD_MS = 30_000;
const MAX_RECORDS = 10_000;

export interface EventInput {
  eventType: EventType;
  previousState?: RegistrationState;
  message?: string;
  attachmentId?: string;
  uploadStatus?: UploadStatus;
}

export class CallbackHub {
  faults: CallbackFaultSetting = noCallbackFaults();
  defaultUrl: string | undefined;
  private records: EventRecord[] = [];
  private readonly chains = new Map<string, Promise<void>>();
  private held: EventRecord | undefined;

  constructor(
    private readonly ctx: SandboxContext,
    private readonly store: SenderIdStore,
    private readonly timers: Timers,
  ) {}

  emit(r: Registration, input: EventInput): SenderIdEvent {
    const event: SenderIdEvent = {
      eventId: ulid(),
      eventType: input.eventType,
      projectId: r.projectId,
      registrationId: r.id,
      registrationState: r.status,
      ...(input.previousState ? { previousState: input.previousState } : {}),
      registrationType: r.registrationType,
      marketCode: r.marketCode,
      ...(r.senderId ? { senderId: r.senderId } : {}),
      ...(r.etaDate ? { etaDate: r.etaDate } : {}),
      ...(input.message !== undefined ? { message: input.message } : {}),
      ...(input.attachmentId !== undefined ? { attachmentId: input.attachmentId } : {}),
      ...(input.uploadStatus !== undefined ? { uploadStatus: input.uploadStatus } : {}),
      timestamp: new Date().toISOString(),
    };
    const url = r.callbackUrl ?? this.defaultUrl;
    const record: EventRecord = { event, delivery: 'no-url', duplicated: false, reordered: false, delayMs: 0, ...(url ? { url } : {}) };
    this.records.push(record);
    if (this.records.length > MAX_RECORDS) this.records = this.records.slice(-MAX_RECORDS);
    // Faults are used up only by callbacks someone would receive.
    if (!url) return event;
    const f = this.faults;
    if (f.drop > 0) {
      f.drop--;
      record.delivery = 'dropped';
      return event;
    }
    if (f.duplicate > 0) {
      f.duplicate--;
      record.duplicated = true;
    }
    record.delayMs = f.delayMs;
    const held = this.held;
    if (held && held.event.registrationId === r.id) {
      this.held = undefined;
      record.reordered = held.reordered = true;
      this.send(record);
      this.send(held);
    } else if (f.reorder && !held) {
      f.reorder = false;
      record.delivery = 'held';
      this.held = record;
      this.timers.after(REORDER_MAX_HOLD_MS, () => {
        if (this.held !== record) return;
        this.held = undefined;
        this.send(record);
      });
    } else {
      this.send(record);
    }
    return event;
  }

  events(): EventRecord[] {
    return this.records.map((r) => ({ ...r }));
  }

  /** What a restart keeps: the default callback URL (a dashboard setting) and the callback log; not the faults, nor deliveries in flight. */
  save(): { defaultUrl: string | null; records: EventRecord[] } {
    return { defaultUrl: this.defaultUrl ?? null, records: this.records };
  }

  load(saved: { defaultUrl: string | null; records: EventRecord[] }): void {
    this.defaultUrl = saved.defaultUrl ?? undefined;
    this.records = [...saved.records];
  }

  reset(): void {
    this.faults = noCallbackFaults();
    this.defaultUrl = undefined;
    this.records = [];
    this.chains.clear();
    this.held = undefined;
  }

  /** Signs with the project's secret as it is at each attempt; unsigned while none is configured. */
  private signer(projectId: string): CallbackSigner {
    return (input) => {
      const secret = this.store.secret(projectId);
      return secret === undefined ? {} : senderIdCallbackSigner(secret)(input);
    };
  }

  private send(record: EventRecord): void {
    record.delivery = 'sent';
    const generation = this.timers.generation;
    const key = record.event.registrationId;
    const next = (this.chains.get(key) ?? Promise.resolve()).then(() => this.deliver(record, generation));
    this.chains.set(key, next);
    void next.finally(() => {
      if (this.chains.get(key) === next) this.chains.delete(key);
    });
  }

  private async deliver(record: EventRecord, generation: number): Promise<void> {
    if (record.delayMs > 0 && !(await this.timers.sleep(record.delayMs))) return;
    for (let copy = 0; copy < (record.duplicated ? 2 : 1); copy++) {
      if (generation !== this.timers.generation) return;
      await this.ctx.callbacks.dispatch({ area: 'senderid', url: record.url!, body: record.event, signer: this.signer(record.event.projectId) });
    }
  }
}
