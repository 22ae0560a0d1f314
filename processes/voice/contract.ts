// Voice (area A): what the API, the callback intake and the call processes share. A caller describes what a
// call should do (a CallScript); the process answers each callback with SVAML decided from that description and
// from what the call has done so far. Callouts follow their calls to an outcome and retry unanswered ones.
import { defineSignal, defineUpdate } from '@temporalio/workflow';
import type { CalloutRequest, CallInfo, VoiceRegion } from '../../common/wire/voice.js';
import type { Svaml } from '../../common/wire/voice-svaml.js';
import type { CalloutAcePlan, VoiceCallbackEvent, VoiceCallEnded, VoiceFollowSettings, VoiceRecordedEvent } from '../../contracts/voice-calls.js';
import type { CallScript, RuleMatchedBy } from '../../contracts/voice-rules.js';

export type { CalloutRequest, CallInfo } from '../../common/wire/voice.js';
export type { Svaml } from '../../common/wire/voice-svaml.js';
// What the store keeps too (incoming-call rules, a call's recorded events and plan) is written in contracts/.
export * from '../../contracts/voice-rules.js';
export * from '../../contracts/voice-calls.js';

export const VOICE_CALLOUT_KIND = 'voice-callout';
export const VOICE_INCOMING_KIND = 'voice-incoming';

/** The regional calling addresses (common/wire/voice.ts); a conference lives in one of them. */
export { VOICE_REGIONS, type VoiceRegion } from '../../common/wire/voice.js';

// ---------------------------------------------------------------------------------------------
// What a call does once it is connected: custom callouts after the answer, incoming calls, menu options
// ---------------------------------------------------------------------------------------------

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

export const voiceCallbackUpdate = defineUpdate<Svaml, [VoiceCallbackEvent]>('voiceCallback');

export const voiceCallEndedSignal = defineSignal<[VoiceCallEnded]>('voiceCallEnded');

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
