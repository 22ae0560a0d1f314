// One call's answers: what to say to each ICE, ACE and PIE of the call, from its plan (what the caller asked for)
// and what the call has done (answering machine, menu position). Pure, synchronous and free of I/O, and in
// contracts/ because two sides run the same code: the callback intake answers from the plan as the callback
// lands, and the call's process replays each event through its own driver to learn the answer (or answers
// itself, through an update, where the intake holds no plan for the call).
import { svamlViolations } from '../../common/wire/voice-svaml.js';
import type {
  AmdOptions,
  CallAttempt,
  CalloutAcePlan,
  CallScript,
  IncomingRule,
  Svaml,
  VoiceCallbackEvent,
  VoiceCalloutInput,
  VoiceIncomingState,
  VoiceRecordedEvent,
} from './contract.js';
import { continueCall, hangup, MAX_MENU_ROUNDS, MENU_GIVE_UP_TEXT, runMenu, svamlOfStep } from './call-script.js';

const NOT_IN_SERVICE_TEXT = 'The number you have called is not in service.';
/** An incoming call to a number without a rule (and no default rule): told so, and hung up. */
const DENY_SCRIPT: CallScript = { start: { type: 'hangup', text: NOT_IN_SERVICE_TEXT } };

/** The plan of an incoming call: the rule that matched when its ICE came, or the denial. */
export const incomingPlan = (rule: IncomingRule | undefined): CallPlan => ({ kind: 'incoming', script: rule?.script ?? DENY_SCRIPT });

/**
 * A callout's ACE plan where its answer needs nothing but the callout's input: text-to-speech and conference calls
 * (continue, or hang up on a machine); undefined for custom callouts, whose answers follow their script.
 */
export function calloutAcePlan(input: Pick<VoiceCalloutInput, 'kind' | 'amd'>): CalloutAcePlan | undefined {
  if (input.kind === 'custom') return undefined;
  // As the callout's own driver decides: an ACE that says machine is hung up unless the input says continue.
  return (input.amd?.onMachine ?? 'hangup') === 'hangup' ? 'machine-hangup' : 'continue';
}

/** The plan a callout's ACE is answered from by the intake: the same answers the callout's own driver gives. */
export const calloutPlan = (ace: CalloutAcePlan): CallPlan => ({
  kind: 'tts',
  amd: { enabled: true, onMachine: ace === 'machine-hangup' ? 'hangup' : 'continue' },
});

/**
 * Where an incoming call's recorded events have led it: CONNECTED once an answer other than hangup was given (with
 * why, for an ICE), else RINGING. The intake gives it as the process's state when the events start it, and the
 * process starts there, so the state is listed without an upsert of its own.
 */
export function incomingLead(items: readonly VoiceRecordedEvent[]): { state: VoiceIncomingState; at?: string; reason?: string } {
  for (const item of items) {
    const action = item.given?.action;
    if (item.ev && action && action !== 'hangup')
      return { state: 'CONNECTED', at: item.ev.receivedAt, ...(item.ev.event === 'ice' ? { reason: `answered with ${action}` } : {}) };
  }
  return { state: 'RINGING' };
}

/** Who gave an answer the driver only records (the intake, from the plan). */
export type GivenAnswer = NonNullable<VoiceRecordedEvent['given']>;

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

  /**
   * The SVAML for this callback, recorded on the attempt. Always legal for the event (else a plain hangup).
   * `given`: the answer was already given (by the intake from the plan): record its action, which is what the
   * platform heard, even if this driver's code would now say otherwise.
   */
  answer(ev: VoiceCallbackEvent, given?: GivenAnswer): Svaml {
    const a = this.attempt;
    if (!a.callId) a.callId = ev.callId;
    if (a.state === 'placing' || a.state === 'in_doubt') a.state = 'ringing';
    let input: string | undefined;
    let svaml: Svaml;
    if (ev.event === 'ice') svaml = this.#ice();
    else if (ev.event === 'ace') {
      // A late one (relayed after the DiCE it came before) does not reopen an ended call.
      if (a.state !== 'ended') a.state = 'answered';
      a.answeredAt ??= ev.receivedAt;
      if (ev.amd) a.amd = { status: ev.amd.status, ...(ev.amd.reason ? { reason: ev.amd.reason } : {}) };
      svaml = this.#ace();
    } else {
      input = ev.menuResult ? `${ev.menuResult.type}${ev.menuResult.value ? `:${ev.menuResult.value}` : ''}` : undefined;
      svaml = this.#pie(ev.menuResult);
    }
    // A bug must not leave the platform with an answer it ignores: fall back to ending the call cleanly.
    if (svamlViolations(ev.event, svaml).length) svaml = hangup();
    a.answers.push({ event: ev.event, at: ev.receivedAt, action: given?.action ?? svaml.action.name, by: given?.by ?? 'process', ...(input ? { input } : {}) });
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
