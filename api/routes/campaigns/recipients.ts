// A campaign's recipient list, made ready for the store: each number normalised to E.164 (libphonenumber), a
// number that cannot exist kept as `invalid` with its reason (reported, not fatal), duplicates sent once.
import { createHash } from 'node:crypto';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import type { NewRecipient } from '../../../store/index.js';

export interface PreparedRecipients {
  rows: NewRecipient[];
  total: number;
  duplicates: number;
  /** The first invalid entries, by their index in the request (never the number: it may be personal data). */
  invalid: { index: number; reason: string }[];
  invalidCount: number;
}

const REPORT_INVALID = 100;

export function prepareRecipients(list: readonly string[], defaultCountry?: string): PreparedRecipients {
  const rows: NewRecipient[] = [];
  const seen = new Set<string>();
  const invalid: { index: number; reason: string }[] = [];
  let invalidCount = 0;
  let duplicates = 0;
  list.forEach((raw, index) => {
    const parsed = parsePhoneNumberFromString(raw, defaultCountry as CountryCode | undefined);
    if (!parsed?.isValid()) {
      const reason = parsed
        ? 'not a valid number for its country'
        : raw.startsWith('+') || defaultCountry
          ? 'not a phone number'
          : 'no country: use +<country code> or set defaultCountry';
      invalidCount++;
      if (invalid.length < REPORT_INVALID) invalid.push({ index, reason });
      rows.push({ seq: rows.length, recipient: printable(raw.slice(0, 64)), status: 'invalid', reason });
      return;
    }
    if (seen.has(parsed.number)) {
      duplicates++;
      return;
    }
    seen.add(parsed.number);
    rows.push({ seq: rows.length, recipient: parsed.number, status: 'pending' });
  });
  return { rows, total: list.length, duplicates, invalid, invalidCount };
}

/**
 * What an invalid entry is kept as: control characters and broken surrogate pairs (a cut pair included) become
 * U+FFFD. PostgreSQL refuses NUL in text, and the per-recipient page should show what was given, readably.
 */
export function printable(raw: string): string {
  // eslint-disable-next-line no-control-regex
  return raw.replace(/[\u0000-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

/** Identifies a request by what it would send: the same key with another request is a conflict. */
export function requestHash(content: unknown, rows: readonly NewRecipient[]): string {
  const h = createHash('sha256').update(JSON.stringify(content));
  for (const r of rows) h.update(`\n${r.recipient}`);
  return h.digest('base64url');
}
