// Sender ID registrations (area F): the client's own shapes. The wire shapes (docs/senderid-wire.md) are in
// common/wire/senderid.ts, shared with the sandbox.
import type { RegistrationState } from '../../common/wire/senderid.js';

/** States in which the platform accepts an update (else 409). */
export const EDITABLE_REGISTRATION_STATES: readonly RegistrationState[] = ['IN_QUEUE', 'PENDING', 'ON_HOLD', 'PENDING_ATTACHMENTS'];

export interface TemplateFile {
  fileName: string;
  contentType: string;
  content: Buffer;
}

export interface AttachmentUpload {
  fileName: string;
  mimeType: string;
  /** The file's bytes (sent base64-encoded). */
  content: Buffer;
  /** Defaults, on the platform, to the definition's title. */
  documentType?: string;
}

/** A platform time (`2021-11-03T14:30:03`, UTC without an offset) in ms since the epoch; NaN when unreadable. */
export function platformTimeToMs(value: string): number {
  const hasZone = /(Z|[+-]\d{2}:?\d{2})$/i.test(value);
  return Date.parse(hasZone ? value : `${value}Z`);
}
