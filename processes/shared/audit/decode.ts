// Payloads and failures out of the history, decoded with the API's codec (the same keys as the workers) and
// made safe to show: phone numbers masked unless the reader may see them, big values cut short.
import { defaultPayloadConverter, type Payload, type PayloadCodec } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { maskPhoneNumbers } from '../../../common/logger.js';

type Failure = temporal.api.failure.v1.IFailure;
type Payloads = temporal.api.common.v1.IPayloads | null | undefined;

/** The longest value (as JSON) shown whole in an entry's details. */
const MAX_VALUE_CHARS = 2_000;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

export type Masker = (text: string) => string;
/** Masks phone numbers in text; ISO date-times (all digits, but not numbers) are left as they are. */
export const maskPhones: Masker = (text) => (ISO_TIME.test(text) ? text : maskPhoneNumbers(text));
export const noMask: Masker = (text) => text;

/** Every string in `value` through `mask`. */
export function maskDeep(value: unknown, mask: Masker): unknown {
  if (typeof value === 'string') return mask(value);
  if (Array.isArray(value)) return value.map((v) => maskDeep(v, mask));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskDeep(v, mask)]));
  return value;
}

/** A value small enough for an entry (long ones become their first characters). */
export function capped(value: unknown): unknown {
  if (value === undefined) return undefined;
  const json = JSON.stringify(value) ?? '';
  return json.length <= MAX_VALUE_CHARS ? value : { truncated: true, preview: `${json.slice(0, MAX_VALUE_CHARS)}…` };
}

export class Decoder {
  constructor(private readonly codec: PayloadCodec) {}

  /** The values of a Payloads message, decoded; a payload that cannot be read says so instead of failing the timeline. */
  async values(payloads: Payloads): Promise<unknown[]> {
    const list = (payloads?.payloads ?? []) as Payload[];
    if (list.length === 0) return [];
    let decoded: Payload[];
    try {
      decoded = await this.codec.decode(list);
    } catch (err) {
      return list.map(() => `<not decodable: ${(err as Error).message}>`);
    }
    return decoded.map((p) => {
      try {
        const v = defaultPayloadConverter.fromPayload(p);
        return v instanceof Uint8Array ? `<${v.length} bytes>` : v;
      } catch {
        return '<unknown encoding>';
      }
    });
  }

  /** A header's value (headers are not encoded: the actor interceptor writes plain JSON). */
  header(header: temporal.api.common.v1.IHeader | null | undefined, name: string): string | undefined {
    const p = header?.fields?.[name];
    if (!p) return undefined;
    try {
      const v = defaultPayloadConverter.fromPayload(p as Payload);
      return typeof v === 'string' ? v : undefined;
    } catch {
      return undefined;
    }
  }

  /** A failure's message (the failure converter encodes message and stack: decoded here), with its causes. */
  async failure(failure: Failure | null | undefined): Promise<{ message: string; type?: string } | undefined> {
    if (!failure) return undefined;
    const messages: string[] = [];
    let type: string | undefined;
    for (let f: Failure | null | undefined = failure, depth = 0; f && depth < 10; f = f.cause, depth++) {
      let message = f.message ?? '';
      if (f.encodedAttributes) {
        const [attrs] = await this.values({ payloads: [f.encodedAttributes] });
        if (attrs && typeof attrs === 'object' && typeof (attrs as { message?: unknown }).message === 'string')
          message = (attrs as { message: string }).message;
      }
      type ??= f.applicationFailureInfo?.type || undefined;
      if (message && !messages.includes(message)) messages.push(message);
    }
    return { message: messages.join(': '), ...(type ? { type } : {}) };
  }
}
