// The simulated phones: what each number received (SMS, flash call, spoken code), read by tests
// through GET /_sandbox/verification/phones/{endpoint}; and the codes and CLIs they receive.
import { randomInt } from 'node:crypto';
import { KeyedTable } from '../../core/table.js';
import type { SmsCodeType as CodeType, VerificationMethod } from '../../../common/wire/verification.js';

export interface PhoneMessage {
  verificationId: string;
  method: VerificationMethod;
  kind: 'sms' | 'flashcall' | 'callout' | 'whatsapp';
  text?: string;
  code?: string;
  cli?: string;
  language: string;
  at: string;
}

/** What each number received, oldest first (kept across restarts). */
export class Phones extends KeyedTable<PhoneMessage[]> {
  receive(endpoint: string, message: Omit<PhoneMessage, 'at'>): void {
    const list = this.get(endpoint) ?? [];
    list.push({ ...message, at: new Date().toISOString() });
    this.set(endpoint, list);
  }

  messages(endpoint: string): PhoneMessage[] {
    return (this.get(endpoint) ?? []).map((m) => ({ ...m }));
  }
}

// Letters that cannot be read as digits (no I, O), so a typed code is unambiguous.
const LETTERS = 'ABCDEFGHJKLMNPQRSTUVWXYZ';
const DIGITS = '0123456789';
const CODE_SHAPES: Record<CodeType, { alphabet: string; length: number }> = {
  Numeric: { alphabet: DIGITS, length: 4 },
  Alpha: { alphabet: LETTERS, length: 5 },
  Alphanumeric: { alphabet: LETTERS + DIGITS, length: 6 },
};

/** A code of the type's alphabet, of `length` characters when asked for, else of the type's own length. */
export function generateCode(codeType: CodeType, length = CODE_SHAPES[codeType].length): string {
  const { alphabet } = CODE_SHAPES[codeType];
  return Array.from({ length }, () => alphabet[randomInt(alphabet.length)]).join('');
}

/** Codes are compared ignoring case and surrounding spaces, as a person types them. */
export function sameCode(expected: string, reported: string): boolean {
  return expected.toUpperCase() === reported.trim().toUpperCase();
}

/** The flash call's number range: the caller is `+46700` plus six digits, which the app may report alone. */
const CLI_PREFIX = '+46700';
const CLI_DIGITS = 6;
export const CLI_FILTER = `^\\${CLI_PREFIX}(\\d{${CLI_DIGITS}})$`;

export function generateCli(): { cli: string; digits: string } {
  const digits = String(randomInt(10 ** CLI_DIGITS)).padStart(CLI_DIGITS, '0');
  return { cli: `${CLI_PREFIX}${digits}`, digits };
}

/** The reported CLI matches when its digits are the caller's number (with or without +) or the captured part. */
export function sameCli(cli: string, captured: string, reported: string): boolean {
  const digits = reported.replace(/[\s()-]/g, '').replace(/^\+/, '');
  return /^\d+$/.test(digits) && (digits === cli.slice(1) || digits === captured);
}
