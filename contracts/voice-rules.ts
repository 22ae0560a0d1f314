// The keys an incoming-call rule can have, and which rule an ICE picks. A call from the phone network is routed by
// the number it called; a call from the application's own users (an in-app, data call: the ICE's originationType
// is mxp) is routed first by who calls, then by whom it calls (an in-app user, app to app; or a number, app to
// phone), then by the `default` rule. The API checks a key with RULE_KEY_PATTERN; the intake and the store both
// use ruleKeysFor, so they agree on the order.

/** The rule of every call no other rule matches. */
export const DEFAULT_RULE_KEY = 'default';
/** `user:<id>`: calls from this in-app user (the ICE's `user`), to anyone. */
const CALLER_PREFIX = 'user:';
/** `to-user:<id>`: app-to-app calls to this in-app user (the ICE's `to {type: username}`). */
const CALLEE_PREFIX = 'to-user:';

/** An in-app user's identity as relayflow keys rules by it (ours: the platform leaves the SDK's user IDs open). */
const USER_ID = '[A-Za-z0-9._@+-]{1,64}';
export const RULE_KEY_PATTERN = `^(\\+[1-9][0-9]{6,14}|${DEFAULT_RULE_KEY}|${CALLER_PREFIX}${USER_ID}|${CALLEE_PREFIX}${USER_ID})$`;
/** The longest key: `to-user:` and 64 characters. */
export const RULE_KEY_MAX_LENGTH = CALLEE_PREFIX.length + 64;

/** Why a rule matched a call: its caller (an in-app user), its callee (an in-app user), the number it called, or nothing else did. */
export type RuleMatchedBy = 'caller-user' | 'callee-user' | 'called-number' | 'default';

/** What the ICE says about who calls whom (api/callbacks/voice.ts reads it). */
export interface IncomingCallFacts {
  /** The caller's number (ICE `cli`). */
  from?: string;
  /** Whom the call is for: a number, or an in-app user's identity when toType is username (ICE `to.endpoint`). */
  to?: string;
  /** ICE `to.type`: number (also the platform's did), username, sip, conference... */
  toType?: string;
  /** The in-app caller's identity (ICE `user`), on a call from the application's own users. */
  user?: string;
  /** The ICE's originationType, lower case: pstn (the phone network) or mxp (an in-app, data call). */
  origination?: string;
  /** Where the call is managed (from its ICE's callResourceUrl). */
  baseUrl?: string;
}

/** A call to an in-app user: its ICE is all the platform sends (spec: app to app, "only the ICE callback is used"). */
export const isAppToApp = (f: Pick<IncomingCallFacts, 'toType'>) => f.toType?.toLowerCase() === 'username';

/** The keys whose rule would route the call, best first, each with why it would match. */
export function ruleKeysFor(f: IncomingCallFacts): Array<[key: string, by: RuleMatchedBy]> {
  const keys: Array<[string, RuleMatchedBy]> = [];
  if (f.user && f.origination === 'mxp') keys.push([`${CALLER_PREFIX}${f.user}`, 'caller-user']);
  if (f.to) keys.push(isAppToApp(f) ? [`${CALLEE_PREFIX}${f.to}`, 'callee-user'] : [f.to, 'called-number']);
  keys.push([DEFAULT_RULE_KEY, 'default']);
  return keys;
}

// ---------------------------------------------------------------------------------------------
// What a call does once it is connected: custom callouts after the answer, incoming calls, menu options
// ---------------------------------------------------------------------------------------------

export type CallStep =
  /** Speak the text, then hang up. */
  | { type: 'play'; text: string; locale?: string }
  /** Connect the call to a phone number (answer to ICE or to a menu choice; not to ACE). */
  | { type: 'connect'; number: string; cli?: string }
  /** Connect to a conference in the call's region; `record` records the conference. */
  | { type: 'conference'; conferenceId: string; record?: boolean; moh?: string; greeting?: string }
  /** Run one of the script's menus: each digit pressed leads to a step. */
  | { type: 'menu'; menu: string }
  /** End the call, optionally saying why (an incoming call denied). */
  | { type: 'hangup'; text?: string };

export interface Menu {
  prompt: string;
  /** Digit (0-9, *, #) -> what follows. */
  options: Record<string, CallStep>;
  locale?: string;
  /** How often the prompt repeats before the menu gives up waiting (the platform's `repeats`). */
  repeats?: number;
  /** How long the platform waits for a key per prompt. */
  timeoutSeconds?: number;
  /** Said when a key leads nowhere; the menu then runs again (at most MAX_MENU_ROUNDS in all). */
  invalidText?: string;
}

export interface CallScript {
  start: CallStep;
  menus?: Record<string, Menu>;
}

/**
 * What to do with an incoming call. `number` is the rule's key (above): a number called,
 * `user:<id>` (calls from that in-app user), `to-user:<id>` (app-to-app calls to that in-app user) or `default`.
 */
export interface IncomingRule {
  number: string;
  script: CallScript;
  updatedAt?: string;
}
