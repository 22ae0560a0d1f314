// What the voice switch keeps per sandbox: the calls (each with everything played to it and every callback
// sent about it), the conferences by application and region, the callee rules and the settings tests change.
// The call is the sandbox's own record; its parts on the wire (regions, destination, status, result, legs) are the
// wire's, from common/wire/voice.ts (shared with relayflow's client).
import type { SandboxAccount } from '../../core/accounts.js';
import type { CallbackEventName, Svaml } from '../../../common/wire/voice-svaml.js';
import {
  VOICE_REGIONS,
  type CallLeg,
  type CallResult,
  type CallStatus,
  type VoiceDestination,
  type VoiceDomain,
  type VoiceRegion,
} from '../../../common/wire/voice.js';
import type { MenuState } from './menus.js';

/** Path prefixes (`global` is also what the bare `/voice/calling/v1` address serves) inside the `/voice` mount and the region each serves. */
export const REGION_PREFIXES: ReadonlyArray<readonly [string, VoiceRegion]> = [['', 'global'], ...VOICE_REGIONS.map((r) => [`/${r}`, r] as const)];

export type CallKind = 'tts' | 'conference' | 'custom' | 'incoming';
type CalleeOutcome = 'answer' | 'busy' | 'noanswer' | 'failed' | 'machine';
/** What the call is doing now; `ice`/`ace`/`pie`: waiting for the application's answer. */
type CallPhase = 'ice' | 'ringing' | 'ace' | 'playing' | 'menu' | 'pie' | 'conference' | 'connected' | 'parked' | 'ended';

export interface Played {
  at: string;
  /** say / playFiles: from SVAML; text: a TTS callout's text; prompt: a menu prompt; error: the ICE fallback's message. */
  kind: 'say' | 'playFiles' | 'text' | 'prompt' | 'greeting' | 'error' | 'dtmf' | 'answer';
  text: string;
  /** Where it came from: ice, ace, pie, patch, leg, callout or menu. */
  source: string;
  leg?: CallLeg;
}

export interface SentCallback {
  event: CallbackEventName;
  sentAt: string;
  /** False when there was nowhere to send it (no callback URL) or an inline SVAML answer stood in for it. */
  sent: boolean;
  answeredInMs?: number;
  answer?: unknown;
  fallback: boolean;
  fallbackReason?: string;
}

/** What the callout asked for; the switch reads it at each step. */
export interface CalloutOptions {
  enableAce: boolean;
  enableDice: boolean;
  enablePie: boolean;
  amd: boolean;
  text?: string;
  locale?: string;
  conferenceId?: string;
  greeting?: string;
  dtmf?: string;
  maxDurationS?: number;
  /** Custom callouts: per event, a callback URL to use instead of the application's, or an inline SVAML answer. */
  eventTargets: Partial<Record<'ice' | 'ace' | 'pie', { url: string } | { svaml: Svaml }>>;
}

export interface Call {
  callId: string;
  kind: CallKind;
  region: VoiceRegion;
  account: SandboxAccount;
  /** `<sandbox>/voice`: where callResourceUrl points. */
  voiceBase: string;
  from: string;
  to: VoiceDestination;
  domain: VoiceDomain;
  /** A call from one of the application's in-app users (a data call): its ICE says originationType MXP and `user`. */
  inApp?: { user: string };
  custom: string;
  options: CalloutOptions;
  status: CallStatus;
  result: CallResult;
  reason: string;
  phase: CallPhase;
  createdAt: number;
  answeredAt?: number;
  endedAt?: number;
  /** The rule outcome of the number that answered (machine: AMD says so). */
  answeredBy?: CalleeOutcome;
  connectedTo?: string;
  /** The conference the call is (or was last) in. */
  conferenceId?: string;
  /** A custom callout's ICE action other than connectPstn: carried out when the ACE answers continue. */
  planned?: Svaml;
  menu?: MenuState;
  lastMenuResult?: Record<string, unknown>;
  played: Played[];
  callbacks: SentCallback[];
  /** Bumped whenever an action replaces what the call is doing: older waits and answers then stand down. */
  version: number;
  /** Cancels the current activity's wait (ringing, saying, a menu's timeout). */
  activity: Set<() => void>;
  /** Cancels the answering party's own hang-up and the call's maxDuration. */
  partyTimers: Set<() => void>;
  /** Callbacks of one call go out one after another (ICE, ACE, PIE, DiCE). */
  chain: Promise<void>;
}

export interface CalleeRule {
  suffix: string;
  outcome: CalleeOutcome;
  answerAfterMs?: number;
  hangupAfterMs?: number;
}

export interface VoiceSettings {
  callbackTimeoutMs: number;
  noAnswerMs: number;
  sayMs: number;
}

const DEFAULT_SETTINGS: Readonly<VoiceSettings> = { callbackTimeoutMs: 3000, noAnswerMs: 1000, sayMs: 300 };
export const DEFAULT_ANSWER_AFTER_MS = 200;
/** Busy and failed numbers answer their verdict after this long unless the rule says answerAfterMs. */
export const DEFAULT_REFUSE_AFTER_MS = 100;

export class VoiceState {
  /** Not kept: live simulations (timers, callbacks in flight), which a restart ends. */
  readonly calls = new Map<string, Call>();
  /** Not kept, nor `settings`: the run's test knobs. */
  rules: CalleeRule[] = [];
  settings: VoiceSettings = { ...DEFAULT_SETTINGS };

  /** The longest suffix rule matching `number`, or the default (answer after 200 ms, never hang up). */
  ruleFor(number: string): CalleeRule {
    let best: CalleeRule | undefined;
    for (const r of this.rules) if (number.endsWith(r.suffix) && (!best || r.suffix.length > best.suffix.length)) best = r;
    return best ?? { suffix: '', outcome: 'answer', answerAfterMs: DEFAULT_ANSWER_AFTER_MS };
  }

  /** A call the application may see on this region's address. */
  callFor(appKey: string, region: VoiceRegion, callId: string): Call | undefined {
    const c = this.calls.get(callId);
    return c && c.account.appKey === appKey && c.region === region ? c : undefined;
  }

  /** Reset or close: flows still running see FINAL at their next step and stop, sending nothing. */
  close(): void {
    this.reset();
  }

  reset(): void {
    // Flows still running see FINAL at their next step and stop, sending nothing.
    for (const c of this.calls.values()) {
      c.status = 'FINAL';
      c.phase = 'ended';
    }
    this.calls.clear();
    this.rules = [];
    this.settings = { ...DEFAULT_SETTINGS };
  }
}

export const isoNow = (): string => new Date().toISOString();

/** Whole seconds since the call was answered (until it ended); 0 if never answered. */
export function durationOf(call: Call, now = Date.now()): number {
  if (call.answeredAt === undefined) return 0;
  return Math.floor(((call.endedAt ?? now) - call.answeredAt) / 1000);
}
