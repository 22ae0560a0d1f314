// One call's answers: what the process says to each ICE, ACE and PIE of the call, from what the caller asked
// for and what the call has done (answering machine, menu position). Synchronous and free of I/O, so an
// update handler answers within one workflow task: the platform waits on it for a few seconds at most.
import { svamlViolations } from '../../common/voice-svaml.js';
import type { AmdOptions, CallAttempt, CallScript, Svaml, VoiceCallbackEvent } from '../../contracts/voice.js';
import { continueCall, hangup, MAX_MENU_ROUNDS, MENU_GIVE_UP_TEXT, runMenu, svamlOfStep } from './svaml-of-step.js';

export interface CallPlan {
  kind: 'tts' | 'conference' | 'custom' | 'incoming';
  /** custom and incoming calls. */
  script?: CallScript;
  /** custom callouts: the number the ICE answer connects. */
  destination?: string;
  cli?: string;
  amd?: AmdOptions;
}

const DEFAULT_INVALID_TEXT = 'That is not one of the choices.';

export class CallDriver {
  #menu: string | undefined;
  #rounds = 0;

  constructor(
    private readonly plan: CallPlan,
    readonly attempt: CallAttempt,
  ) {}

  get machineHungUp(): boolean {
    return this.attempt.amd?.status === 'machine' && (this.plan.amd?.onMachine ?? 'hangup') === 'hangup';
  }

  /** The SVAML for this callback, recorded on the attempt. Always legal for the event (else a plain hangup). */
  answer(ev: VoiceCallbackEvent): Svaml {
    const a = this.attempt;
    if (!a.callId) a.callId = ev.callId;
    if (a.state === 'placing' || a.state === 'in_doubt') a.state = 'ringing';
    let input: string | undefined;
    let svaml: Svaml;
    if (ev.event === 'ice') svaml = this.#ice();
    else if (ev.event === 'ace') {
      a.state = 'answered';
      a.answeredAt ??= ev.receivedAt;
      if (ev.amd) a.amd = { status: ev.amd.status, ...(ev.amd.reason ? { reason: ev.amd.reason } : {}) };
      svaml = this.#ace();
    } else {
      input = ev.menuResult ? `${ev.menuResult.type}${ev.menuResult.value ? `:${ev.menuResult.value}` : ''}` : undefined;
      svaml = this.#pie(ev.menuResult);
    }
    // A bug must not leave the platform with an answer it ignores: fall back to ending the call cleanly.
    if (svamlViolations(ev.event, svaml).length) svaml = hangup();
    a.answers.push({ event: ev.event, at: ev.receivedAt, action: svaml.action.name, by: 'process', ...(input ? { input } : {}) });
    return svaml;
  }

  #ice(): Svaml {
    const { kind, script, destination, cli } = this.plan;
    if (kind === 'custom' && destination) return { action: { name: 'connectPstn', number: destination, ...(cli ? { cli } : {}) } };
    if (kind === 'incoming' && script) return this.#step(script.start, 'ice');
    // tts and conference callouts are placed by the platform without an ICE; if one comes, let the callout go on.
    return destination ? { action: { name: 'connectPstn', number: destination } } : hangup();
  }

  #ace(): Svaml {
    if (this.machineHungUp) return hangup();
    const { kind, script } = this.plan;
    if (kind === 'custom' && script) return this.#step(script.start, 'ace');
    // tts: the platform plays the text; conference: it joins the conference; incoming: the callee is connected.
    return continueCall();
  }

  #pie(result: VoiceCallbackEvent['menuResult']): Svaml {
    const script = this.plan.script;
    const menu = this.#menu !== undefined ? script?.menus?.[this.#menu] : undefined;
    if (!script || !menu || !result) return hangup();
    if (result.type === 'return' && result.value !== undefined && result.value in menu.options) return this.#step(menu.options[result.value]!, 'pie');
    if (result.type === 'hangup') return hangup();
    if (++this.#rounds > MAX_MENU_ROUNDS || result.type === 'timeout') return hangup(MENU_GIVE_UP_TEXT, menu.locale);
    // An invalid key (or a sequence the menu does not take): say so and ask again.
    return runMenu(this.#menu!, menu, 'pie', menu.invalidText ?? DEFAULT_INVALID_TEXT);
  }

  #step(step: CallScript['start'], event: 'ice' | 'ace' | 'pie'): Svaml {
    const script = this.plan.script!;
    if (step.type === 'menu') {
      this.#menu = step.menu;
      if (++this.#rounds > MAX_MENU_ROUNDS) return hangup(MENU_GIVE_UP_TEXT);
    }
    return svamlOfStep(step, event, script, this.plan.cli ? { cli: this.plan.cli } : {});
  }
}
