// What the voice callback intake records of a call and hands to its process: the events it answered from the
// call's plan (kept in the store as an outbox until relayed) and the plan itself. The store keeps them, so they
// live here rather than in the voice processes' contract.
import type { CallInfo } from '../common/wire/voice.js';
import type { IncomingRule, RuleMatchedBy } from './voice-rules.js';

export interface VoiceFollowSettings {
  /** Read the call from the platform when no callback has come for this long (a lost DiCE costs only this). */
  checkEveryMs: number;
  /** After a callout whose answer was lost: how long to wait for any callback of that call before retrying. */
  inDoubtWaitMs: number;
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

/**
 * How the intake answers a callout's ACE without asking its process, where the answer needs nothing the process
 * knows (text-to-speech and conference callouts): `continue`, or `machine-hangup` (hang up when AMD says machine).
 */
export type CalloutAcePlan = 'continue' | 'machine-hangup';

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

/** What a call answered from its plan is answered from: an incoming call's process input, or a callout call's ACE plan. */
export type VoiceCallPlan = VoiceIncomingInput | { callout: { leg: number; attempt: number; ace: CalloutAcePlan } };
export const isCalloutPlan = (p: VoiceCallPlan): p is Extract<VoiceCallPlan, { callout: unknown }> => 'callout' in p;
