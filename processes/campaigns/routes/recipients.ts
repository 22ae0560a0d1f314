// A campaign's recipient list, made ready for the store: each number normalised to E.164 (libphonenumber), a
// number that cannot exist or an entry without a value for one of the message's placeholders kept as `invalid`
// with its reason (reported by index, not fatal, nothing sent to it), duplicates sent once. Only the values the
// message's placeholders use are kept (in the store, never in a process's input: they are personal data).
import { createHash } from 'node:crypto';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import { missingParams } from '../placeholders.js';
import type { NewRecipient } from '../../../store/index.js';

/** A number, or a number with its values for the message's placeholders. */
export type RecipientEntry = string | { to: string; params?: Record<string, string> };

export interface PreparedRecipients {
  rows: NewRecipient[];
  total: number;
  duplicates: number;
  /** The first invalid entries, by their index in the request (never the number: it may be personal data). */
  invalid: { index: number; reason: string }[];
  invalidCount: number;
}

const REPORT_INVALID = 100;

export function prepareRecipients(list: readonly RecipientEntry[], defaultCountry?: string, placeholders: readonly string[] = []): PreparedRecipients {
  const rows: NewRecipient[] = [];
  const seen = new Set<string>();
  const invalid: { index: number; reason: string }[] = [];
  let invalidCount = 0;
  let duplicates = 0;
  list.forEach((entry, index) => {
    const raw = typeof entry === 'string' ? entry : entry.to;
    const given = typeof entry === 'string' ? undefined : entry.params;
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
    // Before the duplicate check: an entry refused for a missing value does not take its number from a later one.
    const missing = missingParams(placeholders, given);
    if (missing.length) {
      const reason = `no value for the message's placeholder${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`;
      invalidCount++;
      if (invalid.length < REPORT_INVALID) invalid.push({ index, reason });
      rows.push({ seq: rows.length, recipient: parsed.number, status: 'invalid', reason });
      return;
    }
    if (seen.has(parsed.number)) {
      duplicates++;
      return;
    }
    seen.add(parsed.number);
    const params = placeholders.length ? Object.fromEntries(placeholders.map((n) => [n, given![n]!])) : undefined;
    rows.push({ seq: rows.length, recipient: parsed.number, status: 'pending', ...(params ? { params } : {}) });
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
  // Params only when given, so a campaign without them hashes as it did before they existed.
  for (const r of rows) h.update(r.params ? `\n${r.recipient}\t${JSON.stringify(r.params)}` : `\n${r.recipient}`);
  return h.digest('base64url');
}
