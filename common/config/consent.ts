// Replies and consent: the words a recipient's whole reply must be to leave (opt out of) or come back to (opt in to)
// an app's messages. Matched case- and space-insensitively (docs/campaigns.md "Replies and consent").
import Type, { type Static } from 'typebox';
import { ConfigError, type Problems } from './errors.js';
import { text } from './fields.js';

export interface ConsentSettings {
  /** Normalised (upper case, no spaces): a reply that is one of them puts its sender on the app's suppression list. */
  optOutWords: string[];
  /** Normalised: a reply that is one of them takes its sender off the list. */
  optInWords: string[];
}

const DEFAULT_OPT_OUT_WORDS = ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT'];
const DEFAULT_OPT_IN_WORDS = ['START', 'UNSTOP', 'YES'];

/** For a part given no consent settings (tests that build their configuration by hand). */
export const DEFAULT_CONSENT_SETTINGS: ConsentSettings = { optOutWords: DEFAULT_OPT_OUT_WORDS, optInWords: DEFAULT_OPT_IN_WORDS };

const WORDS_RULE = 'comma-separated words, each 1 to 32 letters or digits (spaces inside are ignored)';

export const CONSENT_VARIABLES = Type.Object({
  RELAYFLOW_CONSENT_OPT_OUT_WORDS: text(
    DEFAULT_OPT_OUT_WORDS.join(','),
    "a reply that is one of these words (the whole message, any case, spaces ignored) puts its sender's number on the app's suppression list: no campaign sends to it",
  ),
  RELAYFLOW_CONSENT_OPT_IN_WORDS: text(
    DEFAULT_OPT_IN_WORDS.join(','),
    "a reply that is one of these words takes its sender's number off the app's suppression list; no word may be in both lists",
  ),
});

/** What a reply is compared as: upper case, every space removed. */
export const normaliseReply = (text: string) => text.replace(/\s+/gu, '').toUpperCase();

function wordsOf(variable: string, value: string): string[] {
  const words = value.split(',').map(normaliseReply);
  if (words.some((w) => !/^[\p{L}\p{N}]{1,32}$/u.test(w))) throw new ConfigError(variable, WORDS_RULE);
  return [...new Set(words)];
}

export function loadConsentSettings(v: Static<typeof CONSENT_VARIABLES>, problems: Problems): ConsentSettings {
  const optOutWords = problems.check(
    ['RELAYFLOW_CONSENT_OPT_OUT_WORDS'],
    () => wordsOf('RELAYFLOW_CONSENT_OPT_OUT_WORDS', v.RELAYFLOW_CONSENT_OPT_OUT_WORDS),
    [],
  );
  const optInWords = problems.check(['RELAYFLOW_CONSENT_OPT_IN_WORDS'], () => wordsOf('RELAYFLOW_CONSENT_OPT_IN_WORDS', v.RELAYFLOW_CONSENT_OPT_IN_WORDS), []);
  const both = optInWords.filter((w) => optOutWords.includes(w));
  if (both.length)
    problems.add([{ variable: 'RELAYFLOW_CONSENT_OPT_IN_WORDS', rule: `${both.join(', ')} is also an opt-out word: a word may be in one list only` }]);
  return { optOutWords, optInWords };
}
