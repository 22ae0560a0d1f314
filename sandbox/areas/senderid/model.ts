// Area F, sender ID registrations: the resources of docs/senderid-wire.md. Their wire shapes are common/wire/senderid.ts
// (shared with relayflow's client). What is the sandbox's own: the states its rules use, and a registration as it
// keeps it.
import type { RegistrationState, Registration as WireRegistration, RequestDetail as WireRequestDetail } from '../../../common/wire/senderid.js';

export const FINAL_STATES: readonly RegistrationState[] = ['APPROVED', 'REJECTED'];
export const EDITABLE_STATES: readonly RegistrationState[] = ['IN_QUEUE', 'PENDING', 'ON_HOLD', 'PENDING_ATTACHMENTS'];

/** A requestDetails entry as kept: both sections, empty when not sent; the values as sent (validate.ts has checked them). */
export type RequestDetail = Required<Record<keyof WireRequestDetail, Record<string, unknown>[]>>;

/** A registration as kept: the wire shape, with its request details as above. */
export interface Registration extends Omit<WireRegistration, 'requestDetails'> {
  requestDetails: RequestDetail[];
}

/** Platform times: UTC without an offset, `2021-11-03T14:30:03` (the public description's format). */
export const platformTime = (d: Date = new Date()): string => d.toISOString().slice(0, 19);
export const platformDate = (d: Date): string => d.toISOString().slice(0, 10);
