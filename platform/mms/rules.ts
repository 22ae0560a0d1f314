// The MMS rules of the spec (part C, Fields and Limits), checked before anything is sent so a campaign the
// platform would refuse never starts. Pure: `now` is a parameter.
import { MMS_MEDIA_KINDS } from '../../common/wire/mms.js';
import type { MmsMessage } from './types.js';

export interface MmsViolation {
  field: string;
  rule: string;
  message: string;
}

const YEAR_MS = 366 * 86_400_000;

/** `+15551234567` -> `15551234567`: international format, digits only, no plus, no 00 prefix. */
export function toMmsNumber(e164: string): string {
  return e164.replace(/^\+/, '');
}

/** Digits with country code, no plus sign, no 00 or 001 prefix. */
export const isMmsNumber = (n: string) => /^[1-9]\d{6,14}$/.test(n);

export function mmsViolations(m: MmsMessage, now: number, prefix = 'body'): MmsViolation[] {
  const v: MmsViolation[] = [];
  const add = (field: string, rule: string, message: string) => v.push({ field: `${prefix}.${field}`, rule, message });
  if (m.slides.length < 1 || m.slides.length > 8) add('slides', 'count', 'an MMS has 1 to 8 slides');
  m.slides.forEach((s, i) => {
    if (s.text !== undefined && s.text.length > 5_000) add(`slides[${i}].text`, 'maxLength', 'at most 5,000 characters of text per slide');
    const media = MMS_MEDIA_KINDS.filter((k) => s[k] !== undefined);
    if (!media.length && !s.text) add(`slides[${i}]`, 'required', 'a slide needs text or a media URL');
    for (const k of media) {
      let ok = false;
      try {
        const u = new URL(s[k]!);
        ok = u.protocol === 'http:' || u.protocol === 'https:';
      } catch {
        /* not absolute */
      }
      if (!ok) add(`slides[${i}].${k}`, 'url', 'a media URL must be absolute, http or https');
    }
  });
  if (!m.disableFallbackSms && !m.fallbackSmsText) add('fallbackSmsText', 'required', 'required unless disableFallbackSms is true');
  if (m.fallbackSmsLinkExpiration !== undefined) {
    const at = Date.parse(m.fallbackSmsLinkExpiration);
    if (Number.isNaN(at)) add('fallbackSmsLinkExpiration', 'format', 'an ISO-8601 date-time');
    else if (at <= now) add('fallbackSmsLinkExpiration', 'future', 'must be in the future');
    else if (at > now + YEAR_MS) add('fallbackSmsLinkExpiration', 'max', 'at most one year ahead');
  }
  return v;
}
