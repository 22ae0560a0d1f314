// The simulated calls: a callout or an incoming call from creation to its end. Ringing follows the callee rules,
// the ICE and ACE answers are read (or their fallbacks applied), and every end goes through end(), which takes the
// call out of its conference and sends the DiCE. How each kind of call starts is in flows.ts, what an SVAML
// action does in actions.ts.
import { randomUUID } from 'node:crypto';
import type { SandboxAccount } from '../../core/accounts.js';
import type { SandboxContext } from '../../core/context.js';
import type { Svaml } from '../../../common/wire/voice-svaml.js';
import type { VoiceConfigState } from '../voice-config/state.js';
import { apply, CONTINUE } from './actions.js';
import { VoiceCallbacks } from './callbacks.js';
import { Conferences } from './conferences.js';
import { calloutFlow, customFlow, incomingFlow } from './flows.js';
import { DEFAULT_ANSWER_AFTER_MS, DEFAULT_REFUSE_AFTER_MS, isoNow, type Call, type CalleeRule, type Played, type VoiceState } from './state.js';
import type { CallResult, VoiceDestination, VoiceRegion } from '../../../common/wire/voice.js';
import { Timers } from '../../core/timers.js';
import type { CalloutInput } from './validate.js';

export class CallEngine {
  readonly timers = new Timers();
  readonly conferences = new Conferences();
  readonly callbacks: VoiceCallbacks;

  constructor(
    private readonly ctx: SandboxContext,
    readonly state: VoiceState,
    config: VoiceConfigState,
  ) {
    this.callbacks = new VoiceCallbacks(ctx, state, config);
  }

  startCallout(input: CalloutInput, account: SandboxAccount, region: VoiceRegion, voiceBase: string): Call {
    const call = this.create({ ...input, account, region, voiceBase });
    this.run(call, input.kind === 'custom' ? () => customFlow(this, call) : () => calloutFlow(this, call));
    return call;
  }

  /** A call from the phone network to `to`, an application's number: ICE first. */
  startIncoming(from: string, to: string, account: SandboxAccount, region: VoiceRegion, voiceBase: string): Call {
    const options = { enableAce: true, enableDice: true, enablePie: true, amd: false, eventTargets: {} };
    const call = this.create({ kind: 'incoming', from, to: { type: 'number', endpoint: to }, domain: 'pstn', custom: '', options, account, region, voiceBase });
    this.run(call, () => incomingFlow(this, call));
    return call;
  }

  /**
   * A call from an in-app user (a data call) of `account`'s application: ICE first, like a call from the phone
   * network. To a username (app to app: both legs data) the ICE is all the application hears: no ACE, PIE or
   * DiCE (spec: "only the ICE callback is used"); to a number (app to phone) ACE and DiCE follow, no PIE.
   */
  startAppCall(user: string, to: VoiceDestination, cli: string | undefined, account: SandboxAccount, region: VoiceRegion, voiceBase: string): Call {
    const appToApp = to.type === 'username';
    const options = { enableAce: !appToApp, enableDice: !appToApp, enablePie: false, amd: false, eventTargets: {} };
    const domain = appToApp ? 'mxp' : 'pstn';
    const call = this.create({ kind: 'incoming', from: cli ?? '', to, domain, inApp: { user }, custom: '', options, account, region, voiceBase });
    this.run(call, () => incomingFlow(this, call));
    return call;
  }

  /** Waits as the call's current activity: false when cancelled, the call ended or an action replaced it. */
  async wait(call: Call, ms: number): Promise<boolean> {
    const v = call.version;
    const sleep = this.timers.cancellableSleep(ms);
    call.activity.add(sleep.cancel);
    const slept = await sleep.done;
    call.activity.delete(sleep.cancel);
    return slept && this.current(call, v);
  }

  current(call: Call, version: number): boolean {
    return call.status === 'ONGOING' && call.version === version;
  }

  /** Stops what the call is doing (its waits) and starts a new version; the menu stays. */
  interrupt(call: Call): number {
    for (const cancel of call.activity) cancel();
    call.activity.clear();
    return ++call.version;
  }

  /** An action replaces what the call is doing, menu included. */
  takeOver(call: Call): number {
    delete call.menu;
    return this.interrupt(call);
  }

  play(call: Call, kind: Played['kind'], text: string, source: string, leg?: Played['leg']): void {
    call.played.push({ at: isoNow(), kind, text, source, ...(leg ? { leg } : {}) });
  }

  /** The first answer starts the billed duration (and the callout's maxDuration). */
  markAnswered(call: Call): void {
    if (call.answeredAt !== undefined) return;
    call.answeredAt = Date.now();
    const max = call.options.maxDurationS;
    if (max !== undefined) call.partyTimers.add(this.timers.after(max * 1000, () => this.end(call, 'ANSWERED', 'TIMEOUT')));
  }

  /** Rings `number` as its callee rule says: true when it answered, false when the call ended (or moved on). */
  async ring(call: Call, number: string): Promise<boolean> {
    call.phase = 'ringing';
    const rule = this.state.ruleFor(number);
    if (rule.outcome === 'busy' || rule.outcome === 'failed') {
      if (await this.wait(call, rule.answerAfterMs ?? DEFAULT_REFUSE_AFTER_MS))
        this.end(call, rule.outcome === 'busy' ? 'BUSY' : 'FAILED', rule.outcome === 'busy' ? 'CANCEL' : 'GENERALERROR');
      return false;
    }
    if (rule.outcome === 'noanswer') {
      if (await this.wait(call, this.state.settings.noAnswerMs)) this.end(call, 'NOANSWER', 'TIMEOUT');
      return false;
    }
    if (!(await this.wait(call, rule.answerAfterMs ?? DEFAULT_ANSWER_AFTER_MS))) return false;
    this.answeredBy(call, rule);
    return true;
  }

  /**
   * Sends the ACE (if the call has one) and applies its answer; the fallback is continue. An in-app callee gets
   * none (spec: ACE is for phone network and SIP calls only, not in-app destinations): the call goes on as after continue.
   */
  async aceThenApply(call: Call): Promise<void> {
    const v = call.version;
    let svaml: Svaml = CONTINUE;
    if (call.options.enableAce && call.to.type !== 'username') {
      call.phase = 'ace';
      const answer = await this.callbacks.ace(call);
      if (!this.current(call, v)) return;
      if ('svaml' in answer) svaml = answer.svaml;
    }
    await apply(this, call, svaml, 'ace');
  }

  /** Ends the call once: out of its conference, its timers stopped, DiCE (and Notify for a recorded conference left empty). */
  end(call: Call, result: CallResult, reason: string): void {
    if (call.status !== 'ONGOING') return;
    call.status = 'FINAL';
    call.result = result;
    call.reason = reason;
    call.phase = 'ended';
    call.endedAt = Date.now();
    this.takeOver(call);
    for (const cancel of call.partyTimers) cancel();
    call.partyTimers.clear();
    const emptied = this.conferences.leave(call);
    if (call.options.enableDice) this.callbacks.dice(call);
    if (emptied?.recorded) this.callbacks.recorded(call, emptied.conferenceId);
  }

  /** The other party hangs up: the callee of a callout, the caller of an incoming call. */
  partyHangsUp(call: Call): void {
    this.end(call, call.answeredAt !== undefined ? 'ANSWERED' : 'N/A', call.kind === 'incoming' ? 'CALLERHANGUP' : 'CALLEEHANGUP');
  }

  /** Every timer stops and running flows stand down at their next step. */
  reset(): void {
    this.timers.reset();
    this.conferences.clear();
  }

  close(): void {
    this.reset();
  }

  private create(
    init: Omit<CalloutInput, 'kind'> & { kind: Call['kind']; account: SandboxAccount; region: VoiceRegion; voiceBase: string; inApp?: Call['inApp'] },
  ): Call {
    const call: Call = {
      callId: randomUUID(),
      ...init,
      status: 'ONGOING',
      result: 'N/A',
      reason: 'N/A',
      phase: 'ringing',
      createdAt: Date.now(),
      played: [],
      callbacks: [],
      version: 0,
      activity: new Set(),
      partyTimers: new Set(),
      chain: Promise.resolve(),
    };
    this.state.calls.set(call.callId, call);
    return call;
  }

  private run(call: Call, flow: () => Promise<void>): void {
    flow().catch((err: unknown) => {
      this.ctx.options.logger?.error({ err, callId: call.callId }, 'sandbox voice call failed');
      this.end(call, 'FAILED', 'GENERALERROR');
    });
  }

  private answeredBy(call: Call, rule: CalleeRule): void {
    this.markAnswered(call);
    call.answeredBy = rule.outcome;
    if (rule.hangupAfterMs !== undefined) call.partyTimers.add(this.timers.after(rule.hangupAfterMs, () => this.end(call, 'ANSWERED', 'CALLEEHANGUP')));
  }
}
