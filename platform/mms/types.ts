// MMS JSON shapes (docs/mms-wire.md): ours in camelCase, turned into the wire's kebab-case by the client. The media
// kinds are the wire's (common/wire/mms.ts).
import type { MmsMediaKind } from '../../common/wire/mms.js';

/** A slide: text and at most one media URL of each kind. */
export type MmsSlide = { text?: string } & Partial<Record<MmsMediaKind, string>>;

export interface MmsMessage {
  serviceId: string;
  from?: string;
  subject: string;
  slides: MmsSlide[];
  fallbackSmsText?: string;
  disableFallbackSms?: boolean;
  disableFallbackSmsLink?: boolean;
  fallbackSmsLinkExpiration?: string;
}

export interface MmsSendRequest {
  /** Digits with country code, no plus (toMmsNumber). */
  to: string;
  toDisplayOnly?: string;
  message: MmsMessage;
  clientReference?: string;
}

export interface MmsSendSavedRequest {
  to: string;
  toDisplayOnly?: string;
  mmsId: string;
  serviceId: string;
  clientReference?: string;
}
