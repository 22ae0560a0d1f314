// Voice (area A): what the API, the callback intake and the call processes share. A caller describes what a
// call should do (a CallScript); the process answers each callback with SVAML decided from that description and
// from what the call has done so far. Callouts follow their calls to an outcome and retry unanswered ones.
import { defineSignal, defineUpdate } from '@temporalio/workflow';
import type { CalloutRequest, CallInfo, VoiceRegion } from '../../common/wire/voice.js';
import type { Svaml } from '../../common/wire/voice-svaml.js';
import type { RuleMatchedBy } from './rule-keys.js';

export type { CalloutRequest, CallInfo } from '../../common/wire/voice.js';
export type { Svaml } from '../../common/wire/voice-svaml.js';

export const VOICE_CALLOUT_KIND = 'voice-callout';
export const VOICE_INCOMING_KIND = 'voice-incoming';

/** The regional calling addresses (common/wire/voice.ts); a conference lives in one of them. */
export { VOICE_REGIONS, type VoiceRegion } from '../../common/wire/voice.js';

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

// ---------------------------------------------------------------------------------------------
// Callouts
// ---------------------------------------------------------------------------------------------

type CalloutKind = 'tts' | 'conference' | 'custom';
export type CallOutcome = 'answered' | 'busy' | 'noanswer' | 'failed' | 'machine';
export const CALL_OUTCOMES: readonly CallOutcome[] = ['answered', 'busy', 'noanswer', 'failed', 'machine'];

interface CalloutRetry {
  /** The wait before each further attempt; its length is the number of retries. */
  delaysSeconds: number[];
  /** Which outcomes are retried (default busy and noanswer). */
  on?: CallOutcome[];
}

export interface AmdOptions {
  enabled: boolean;
  /** What to do when a machine answers: hang up (outcome `machine`, default) or go on as with a person. */
  onMachine?: 'hangup' | 'continue';
}

export interface VoiceFollowSettings {
  /** Read the call from the platform when no callback has come for this long (a lost DiCE costs only this). */
  checkEveryMs: number;
  /** After a callout whose answer was lost: how long to wait for any callback of that call before retrying. */
  inDoubtWaitMs: number;
}

export interface VoiceCalloutInput extends VoiceFollowSettings {
  kind: CalloutKind;
  /** The caller's key (the process ID's last part). */
  key: string;
  region: VoiceRegion;
  /** The calling address of that region. */
  baseUrl: string;
  /** One destination per call; conference callouts may have several. */
  destinations: string[];
  cli?: string;
  locale?: string;
  /** tts: the text spoken. */
  text?: string;
  /** conference: the conference every call joins. */
  conference?: { conferenceId: string; greeting?: string; moh?: string };
  /** custom: what the answered call does. */
  script?: CallScript;
  amd?: AmdOptions;
  retry?: CalloutRetry;
  maxDurationSeconds?: number;
}

/**
 * One answer given to a callback, and who gave it: `plan` (the intake, from the call's plan, as the callback
 * landed; the process learned it right after), `process` (the process itself, through an update) or `fallback`
 * (the intake's fallback when the process was late or away).
 */
interface CallbackAnswer {
  event: 'ice' | 'ace' | 'pie';
  at: string;
  action: string;
  by: 'plan' | 'process' | 'fallback';
  /** For a menu choice: the key pressed or what the platform reported. */
  input?: string;
}

export interface CallAttempt {
  attempt: number;
  callId?: string;
  placedAt: string;
  /** placing: the callout is being sent; in_doubt: its answer was lost and no callback has named the call yet. */
  state: 'placing' | 'in_doubt' | 'ringing' | 'answered' | 'ended';
  answeredAt?: string;
  endedAt?: string;
  result?: CallInfo['result'];
  reason?: string;
  durationSeconds?: number;
  amd?: { status: string; reason?: string };
  outcome?: CallOutcome;
  answers: CallbackAnswer[];
}

export interface VoiceLeg {
  index: number;
  destination: string;
  attempts: CallAttempt[];
  outcome?: CallOutcome;
  nextAttemptAt?: string;
}

export type VoiceCalloutState = 'CALLING' | 'WAITING_RETRY' | 'COMPLETED' | 'FAILED' | 'STOPPED';

export interface VoiceCalloutDetails {
  kind: CalloutKind;
  key: string;
  region: VoiceRegion;
  conferenceId?: string;
  legs: VoiceLeg[];
  /** Callbacks answered by the intake's fallback because the process did not answer in time. */
  fallbacks: number;
  /** Recordings of its calls or their conference the platform told of (Notify), each once. */
  recordings?: VoiceRecordingNotice[];
}

export interface VoiceCalloutResult {
  state: VoiceCalloutState;
  legs: Array<{ destination: string; outcome?: CallOutcome; attempts: number; durationSeconds?: number }>;
}

// ---------------------------------------------------------------------------------------------
// Incoming calls
// ---------------------------------------------------------------------------------------------

/**
 * What to do with an incoming call. `number` is the rule's key (processes/voice/rule-keys.ts): a number called,
 * `user:<id>` (calls from that in-app user), `to-user:<id>` (app-to-app calls to that in-app user) or `default`.
 */
export interface IncomingRule {
  number: string;
  script: CallScript;
  updatedAt?: string;
}

export interface VoiceIncomingInput extends VoiceFollowSettings {
  callId: string;
  from?: string;
  to?: string;
  /** ICE `to.type` when it is not a number (username: an app-to-app call, whose ICE is all the platform sends). */
  toType?: string;
  /** The in-app caller (ICE `user`) of a call from the application's own users. */
  user?: string;
  /** Why `rule` matched (the caller, the callee user, the number called, or the default). */
  ruleMatchedBy?: RuleMatchedBy;
  /** Where the call is managed (from its ICE's callResourceUrl). */
  baseUrl?: string;
  /** The rule that matched when the ICE came (a later change of the rule does not change this call). */
  rule?: IncomingRule;
  /** The call's first events answered from the plan, when the intake's relay started the process (its first batch). */
  events?: VoiceRecordedEvent[];
}

export type VoiceIncomingState = 'RINGING' | 'CONNECTED' | 'ENDED';

export interface VoiceIncomingDetails {
  callId: string;
  /** Where the call is managed (the calling address its ICE gave): the API's call routes use it. */
  callingBase?: string;
  from?: string;
  to?: string;
  /** As in the input: username for an app-to-app call. */
  toType?: string;
  /** The in-app caller. */
  user?: string;
  /** The key of the rule that matched, and why it did. */
  rule?: string;
  ruleMatchedBy?: RuleMatchedBy;
  call: CallAttempt;
  fallbacks: number;
}

// ---------------------------------------------------------------------------------------------
// Callback routing
// ---------------------------------------------------------------------------------------------

/**
 * How the intake answers a callout's ACE without asking its process, where the answer needs nothing the process
 * knows (text-to-speech and conference callouts): `continue`, or `machine-hangup` (hang up when AMD says machine).
 */
export type CalloutAcePlan = 'continue' | 'machine-hangup';

/**
 * What relayflow puts in `custom`: the process and which call of it (`rf:<processId>#<leg>.<attempt>`), and for a
 * callout whose ACE is answered from the plan, that plan (`;ace=<plan>`).
 */
export const callToken = (processId: string, leg: number, attempt: number, ace?: CalloutAcePlan) =>
  `rf:${processId}#${leg}.${attempt}${ace ? `;ace=${ace}` : ''}`;

interface CallToken {
  processId: string;
  leg: number;
  attempt: number;
  ace?: CalloutAcePlan;
}

export function parseCallToken(custom: string | undefined): CallToken | undefined {
  const m = /^rf:(.+)#(\d{1,3})\.(\d{1,3})(?:;ace=(continue|machine-hangup))?$/.exec(custom ?? '');
  if (!m) return undefined;
  return { processId: m[1]!, leg: Number(m[2]), attempt: Number(m[3]), ...(m[4] ? { ace: m[4] as CalloutAcePlan } : {}) };
}

/** A callback that needs SVAML, as the intake read it. */
export interface VoiceCallbackEvent {
  event: 'ice' | 'ace' | 'pie';
  callId: string;
  leg?: number;
  attempt?: number;
  receivedAt: string;
  amd?: { status: string; reason?: string; duration?: number };
  menuResult?: { menuId?: string; type: string; value?: string };
  callResourceUrl?: string;
}

export const voiceCallbackUpdate = defineUpdate<Svaml, [VoiceCallbackEvent]>('voiceCallback');

export interface VoiceCallEnded {
  callId: string;
  leg?: number;
  attempt?: number;
  result?: CallInfo['result'];
  reason?: string;
  durationSeconds?: number;
  receivedAt: string;
  /** dice: the platform said so; read: relayflow read the call (a DiCE was lost or late). */
  source: 'dice' | 'read';
}

export const voiceCallEndedSignal = defineSignal<[VoiceCallEnded]>('voiceCallEnded');

/**
 * One event of a call the intake answered from its plan (or, for `ended`, its DiCE), as written to the store
 * before the answer went out: `seq` counts the call's events from 1 (per call ID), so the process applies each
 * once and in order.
 */
export interface VoiceRecordedEvent {
  seq: number;
  /** An ICE, ACE or PIE, with the answer the platform was given. */
  ev?: VoiceCallbackEvent;
  given?: { by: 'plan'; action: string };
  /** The DiCE. */
  ended?: VoiceCallEnded;
}

/**
 * A call's events the intake answered from the plan, relayed from the store (an outbox) in batches: at the call's
 * end, and at most about once a second while it lasts; repeats are ignored. An incoming call's first batch starts
 * its process (in VoiceIncomingInput.events) instead.
 */
export const voiceEventsSignal = defineSignal<[{ items: VoiceRecordedEvent[] }]>('voiceEvents');

/**
 * Each recorded event a batch carries (an incoming call's start input `events`, a `voiceEvents` signal's `items`),
 * as the timeline tells it: what came, what was answered and who gave the answer, however many came in one batch.
 */
export function recordedEntries(items: unknown): Array<{ summary: string; details: Record<string, unknown> }> {
  if (!Array.isArray(items)) return [];
  return (items as VoiceRecordedEvent[])
    .filter((i) => typeof i?.seq === 'number')
    .map(({ seq, ev, given, ended }) => {
      if (ev) {
        const m = ev.menuResult;
        const input = m ? `${m.type}${m.value ? `:${m.value}` : ''}` : undefined;
        const by = given?.by ?? 'plan';
        return {
          summary: `${ev.event} → ${given?.action ?? 'unknown'}${input ? ` (input ${input})` : ''}, by ${by} (seq ${seq})`,
          details: { seq, callId: ev.callId, event: ev.event, receivedAt: ev.receivedAt, action: given?.action, by, input, amd: ev.amd?.status },
        };
      }
      const e = ended;
      return {
        summary: `dice: ${e?.result ?? 'ended'}${e?.reason ? ` (${e.reason})` : ''} (seq ${seq})`,
        details: {
          seq,
          callId: e?.callId,
          event: 'dice',
          receivedAt: e?.receivedAt,
          result: e?.result,
          reason: e?.reason,
          durationSeconds: e?.durationSeconds,
        },
      };
    });
}

/** What a call answered from its plan is answered from: an incoming call's process input, or a callout call's ACE plan. */
export type VoiceCallPlan = VoiceIncomingInput | { callout: { leg: number; attempt: number; ace: CalloutAcePlan } };
export const isCalloutPlan = (p: VoiceCallPlan): p is Extract<VoiceCallPlan, { callout: unknown }> => 'callout' in p;

/** The intake answered for the process (it was late, or its answer was not legal SVAML): the call went on without it. */
export interface VoiceFallbackApplied {
  callId: string;
  event: 'ice' | 'ace' | 'pie';
  leg?: number;
  attempt?: number;
  at: string;
  action: string;
  why: string;
}

export const voiceFallbackSignal = defineSignal<[VoiceFallbackApplied]>('voiceFallback');

/**
 * A recording the platform told of (Notify `recording_finished` or `recording_available`) about one of the
 * process's calls, or the conference it was in: the file's place as the platform gives it (`destination`).
 */
export interface VoiceRecordingNotice {
  /** The same for a repeat of the notification: its type, call, conference and destination (hashed). */
  eventId: string;
  type: 'recording_finished' | 'recording_available';
  callId: string;
  leg?: number;
  attempt?: number;
  conferenceId?: string;
  destination?: string;
  receivedAt: string;
}

export const voiceRecordingSignal = defineSignal<[VoiceRecordingNotice]>('voiceRecording');

/** Ends a callout: pending retries are dropped and ongoing calls hung up. */
export const stopCalloutUpdate = defineUpdate<{ stopped: boolean; hungUp: number }, [{ reason?: string }]>('stopCallout');

// ---------------------------------------------------------------------------------------------
// Activities (processes/voice/activities/)
// ---------------------------------------------------------------------------------------------

export type PlaceCalloutResult =
  | { placed: true; callId: string }
  /** The platform may have placed it: only a callback naming the call can tell. */
  | { placed: false; inDoubt: true; reason: string }
  | { placed: false; inDoubt: false; reason: string; errorType: string };

export interface VoiceActivities {
  placeVoiceCallout(req: { request: CalloutRequest; baseUrl: string }): Promise<PlaceCalloutResult>;
  /** The call as the platform has it; undefined when it does not know the call. */
  readVoiceCall(req: { callId: string; baseUrl?: string }): Promise<CallInfo | undefined>;
  /** Hangs up an ongoing call; false when it had ended already. */
  hangupVoiceCall(req: { callId: string; baseUrl?: string }): Promise<boolean>;
}
