// The voice callbacks (ICE, ACE, PIE, DiCE, Notify) of one call: built as the platform sends them, signed as the
// call's application, sent one after another through the sandbox's dispatcher, and recorded on the call with
// the answer read and whether the fallback applied. ICE, ACE and PIE are asked once (no retries) within
// settings.callbackTimeoutMs; DiCE is told, with the dispatcher's default retries, answer unread. Notify is sent
// once within the same timeout: the spec discards a notification with no answer in time, so it is never retried.
import { randomUUID } from 'node:crypto';
import { applicationCallbackSigner } from '../../core/callback-signers.js';
import type { CallbackResult } from '../../core/callbacks.js';
import type { SandboxContext } from '../../core/context.js';
import type { Svaml } from '../../../common/wire/voice-svaml.js';
import type { VoiceConfigState } from '../voice-config/state.js';
import type { MenuResult } from './menus.js';
import { durationOf, isoNow, type Call, type SentCallback, type VoiceState } from './state.js';
import { answerProblems } from './validate.js';

type Obj = Record<string, unknown>;
type Asked = 'ice' | 'ace' | 'pie';

/** The application's answer, or why there is none (the caller applies the event's fallback). */
export type Answer = { svaml: Svaml } | { fallbackReason: string; notSent: boolean };

export const USER_RATE = { currencyId: 'EUR', amount: 0.01 } as const;
/** The ICE fallback's message, recorded as played before the call ends. */
export const ICE_FALLBACK_TEXT = 'We are sorry, your call cannot be completed. Goodbye.';

export function callResourceUrl(call: Call): string {
  return `${call.voiceBase}/${call.region}/calling/v1/calls/id/${encodeURIComponent(call.callId)}`;
}

export class VoiceCallbacks {
  constructor(
    private readonly ctx: SandboxContext,
    private readonly state: VoiceState,
    private readonly config: VoiceConfigState,
  ) {}

  /** Sends ICE, ACE or PIE after the call's earlier callbacks and reads the answer. */
  ask(call: Call, event: Asked, extra: Obj = {}): Promise<Answer> {
    return this.inOrder(call, () => this.askNow(call, event, extra));
  }

  /**
   * The ICE. A call from an in-app user carries `user` (the caller's identity), `originationType: MXP` and, for
   * an app-to-app call, `to {type: username}` with `domain: mxp` (public reference: the ICE of an SDK call); its
   * `cli` only when the caller has one.
   */
  ice(call: Call): Promise<Answer> {
    return this.ask(call, 'ice', {
      callResourceUrl: callResourceUrl(call),
      userRate: { ...USER_RATE },
      ...(call.from ? { cli: call.from } : {}),
      ...(call.inApp ? { user: call.inApp.user } : {}),
      to: { type: call.to.type, endpoint: call.to.endpoint },
      domain: call.domain,
      originationType: call.inApp ? 'MXP' : 'PSTN',
      callHeaders: [],
    });
  }

  ace(call: Call): Promise<Answer> {
    const machine = call.answeredBy === 'machine';
    const amd = call.options.amd ? { amd: { status: machine ? 'machine' : 'human', reason: machine ? 'longgreeting' : '', duration: machine ? 3 : 1 } } : {};
    return this.ask(call, 'ace', amd);
  }

  pie(call: Call, menuResult: MenuResult): Promise<Answer> {
    return this.ask(call, 'pie', { menuResult: { ...menuResult } });
  }

  dice(call: Call): void {
    const duration = durationOf(call);
    const minutes = call.answeredAt === undefined ? 0 : Math.max(1, Math.ceil(duration / 60));
    this.tell(call, 'dice', {
      reason: call.reason,
      result: call.result,
      duration,
      from: call.from,
      to: { type: call.to.type, endpoint: call.to.endpoint },
      debit: { currencyId: USER_RATE.currencyId, amount: Math.round(minutes * USER_RATE.amount * 10_000) / 10_000 },
      userRate: { ...USER_RATE },
    });
  }

  /**
   * A recorded conference was left empty by `call`: Notify recording_finished, then recording_available, each
   * naming the conference and where the file is (public reference: the Notify's `conferenceId` and `destination`,
   * "the destination of the generated recording"). The sandbox's destination is a URL it does not serve (ours).
   */
  recorded(call: Call, conferenceId: string): void {
    const destination = `${call.voiceBase}/recordings/${randomUUID()}.mp3`;
    for (const type of ['recording_finished', 'recording_available']) this.tell(call, 'notify', { type, conferenceId, destination });
  }

  /** Fire and forget, still after the call's earlier callbacks (a DiCE never overtakes an ACE). */
  private tell(call: Call, event: 'dice' | 'notify', extra: Obj): void {
    void this.inOrder(call, async () => {
      if (this.state.calls.get(call.callId) !== call) return; // reset meanwhile
      const url = this.config.callbacks.get(call.account.appKey)?.primary;
      const rec: SentCallback = { event, sentAt: isoNow(), sent: url !== undefined, fallback: false };
      call.callbacks.push(rec);
      if (url === undefined) return;
      const started = Date.now();
      const timeoutMs = this.state.settings.callbackTimeoutMs;
      // Spec: "If a Notify callback gets no response in time, the notification is discarded."
      const once = event === 'notify' ? { retrySchedule: [], timeoutMs } : {};
      void this.ctx.callbacks.dispatch({ area: 'voice', url, body: this.payload(call, event, extra), signer: this.signer(call), ...once }).then((r) => {
        rec.answeredInMs = Date.now() - started;
        if (r.delivered) return;
        if (event === 'notify') {
          rec.fallback = true;
          rec.fallbackReason = `discarded: ${undeliveredReason(r, rec.answeredInMs, timeoutMs)}`;
        } else rec.fallbackReason = `not delivered: ${r.outcome}`;
      });
    });
  }

  private inOrder<T>(call: Call, fn: () => Promise<T>): Promise<T> {
    const run = call.chain.then(fn);
    call.chain = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private async askNow(call: Call, event: Asked, extra: Obj): Promise<Answer> {
    if (call.status !== 'ONGOING') return { fallbackReason: 'the call ended first', notSent: true };
    const rec: SentCallback = { event, sentAt: isoNow(), sent: false, fallback: false };
    call.callbacks.push(rec);
    const target = call.options.eventTargets[event];
    if (target && 'svaml' in target) {
      // A custom callout gave this event's SVAML inline: nothing is sent.
      rec.answer = target.svaml;
      rec.answeredInMs = 0;
      return { svaml: target.svaml };
    }
    const url = target && 'url' in target ? target.url : this.config.callbacks.get(call.account.appKey)?.primary;
    if (url === undefined) return this.fellBack(rec, 'not sent: the application has no callback URL', true);
    rec.sent = true;
    const timeoutMs = this.state.settings.callbackTimeoutMs;
    const started = Date.now();
    const res = await this.ctx.callbacks.dispatch({
      area: 'voice',
      url,
      body: this.payload(call, event, extra),
      signer: this.signer(call),
      retrySchedule: [],
      timeoutMs,
    });
    rec.answeredInMs = Date.now() - started;
    if (!res.delivered) return this.fellBack(rec, undeliveredReason(res, rec.answeredInMs, timeoutMs), false);
    let answer: unknown;
    try {
      answer = JSON.parse(res.responseText ?? '');
    } catch {
      return this.fellBack(rec, 'the answer is not JSON', false);
    }
    rec.answer = answer;
    const problems = answerProblems(event, answer);
    // An incoming call has no destination of its own to connect.
    if (
      !problems.length &&
      call.kind === 'incoming' &&
      event === 'ice' &&
      (answer as Svaml).action.name === 'connectPstn' &&
      (answer as Svaml).action.number === undefined
    )
      problems.push('action.number: required for connectPstn on an incoming call');
    if (problems.length) return this.fellBack(rec, `illegal SVAML for ${event.toUpperCase()}: ${problems.join('; ')}`, false);
    return { svaml: answer as Svaml };
  }

  private fellBack(rec: SentCallback, reason: string, notSent: boolean): Answer {
    rec.fallback = true;
    rec.fallbackReason = reason;
    return { fallbackReason: reason, notSent };
  }

  private signer(call: Call) {
    return applicationCallbackSigner(call.account.appKey, call.account.appSecret);
  }

  private payload(call: Call, event: string, extra: Obj): Obj {
    return { event, callid: call.callId, timestamp: isoNow(), version: 1, custom: call.custom, applicationKey: call.account.appKey, ...extra };
  }
}

function undeliveredReason(res: CallbackResult, elapsedMs: number, timeoutMs: number): string {
  if (res.status !== undefined) return `answered HTTP ${res.status}`;
  if (res.outcome === 'dropped') return 'dropped by a callback fault';
  if (res.outcome === 'cancelled') return 'cancelled (the sandbox was reset or closed)';
  return elapsedMs >= timeoutMs - 50 ? `no answer within ${timeoutMs} ms` : 'could not be delivered (connection failed)';
}
