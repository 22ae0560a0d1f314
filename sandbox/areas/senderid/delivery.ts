// Sends the area's callbacks (docs/senderid-wire.md "Callbacks"): JSON POSTs to the registration's
// callbackUrl (else the configured default), signed `X-Service-Signature` = hex HMAC-SHA1 of the raw
// body with the project's current hmacSecret (read at every attempt, so a retry after a rotation
// carries the new one), through the area's callback hub (the core's retries and the callback faults:
// delay, duplicate, reorder, drop). Callbacks of one registration go out in order, so only an injected
// reorder makes them arrive out of order.
import { ulid } from 'ulid';
import { senderIdCallbackSigner } from '../../core/callback-signers.js';
import type { CallbackFate, CallbackHub } from '../../core/callback-hub.js';
import type { CallbackSigner } from '../../core/callbacks.js';
import { keptTogether, type Kept } from '../../core/kept.js';
import type { Registration } from './model.js';
import type { RegistrationState, UploadStatus } from '../../../common/wire/senderid.js';
import type { SenderIdStore } from './store.js';

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

type DeliveryFate = 'sent' | 'dropped' | 'held' | 'no-url';

export interface EventRecord extends CallbackFate {
  event: SenderIdEvent;
  url?: string;
  delivery: DeliveryFate;
}

export interface EventInput {
  eventType: EventType;
  previousState?: RegistrationState;
  message?: string;
  attachmentId?: string;
  uploadStatus?: UploadStatus;
}

/** The area's callbacks: where they go and how they are signed; faults, order and the log are the hub's. */
export class SenderIdCallbacks {
  defaultUrl: string | undefined;

  constructor(
    private readonly store: SenderIdStore,
    /** The area's callbacks (EVENT_CALLBACKS). */
    readonly hub: CallbackHub<EventRecord>,
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
    this.hub.send({ fate: record, key: r.id, body: event, targets: url ? [{ url, signer: this.signer(r.projectId) }] : [] });
    return event;
  }

  events(): EventRecord[] {
    return this.hub.log();
  }

  /** What a restart keeps: the default callback URL (a dashboard setting) and the callback log; not the faults, nor deliveries in flight. */
  get kept(): Kept<Record<string, unknown>> {
    return keptTogether({
      defaultUrl: {
        save: () => this.defaultUrl ?? null,
        load: (url) => {
          this.defaultUrl = typeof url === 'string' ? url : undefined;
        },
      },
      records: this.hub.keptLog,
    });
  }

  reset(): void {
    this.defaultUrl = undefined;
  }

  /** Signs with the project's secret as it is at each attempt; unsigned while none is configured. */
  private signer(projectId: string): CallbackSigner {
    return (input) => {
      const secret = this.store.secret(projectId);
      return secret === undefined ? {} : senderIdCallbackSigner(secret)(input);
    };
  }
}
