// What an SVAML answer (ICE, ACE, PIE) or a call update (PATCH) does to a call: instructions are recorded as
// played, and the action hangs up, continues, joins a conference, runs a menu or rings another number. Menus
// live here too: keys pressed (control route) or the menu's timeout become a PIE whose answer is applied again.
import type { Svaml } from '../../../common/wire/voice-svaml.js';
import type { CallEngine } from './calls.js';
import { currentMenu, press, promptText, startMenu, timeoutResult, waitMsOf, type MenuResult } from './menus.js';
import { isoNow, type Call } from './state.js';
import type { CallLeg } from '../../../common/wire/voice.js';

type Obj = Record<string, unknown>;
export type ApplyEvent = 'ice' | 'ace' | 'pie' | 'patch';
export const CONTINUE: Svaml = { action: { name: 'continue' } };

/** Records say, playFiles, sendDtmf and answer; true when something was said or played (hangup waits for it). */
export function recordInstructions(e: CallEngine, call: Call, instructions: Svaml['instructions'], source: string, leg?: CallLeg): boolean {
  let said = false;
  for (const ins of instructions ?? []) {
    if (ins.name === 'say') {
      e.play(call, 'say', typeof ins.text === 'string' ? ins.text : '', source, leg);
      said = true;
    } else if (ins.name === 'playFiles') {
      const ids = Array.isArray(ins.ids) ? (ins.ids as unknown[]).map((i) => promptText(String(i))) : [];
      e.play(call, 'playFiles', ids.join(' '), source, leg);
      said = true;
    } else if (ins.name === 'sendDtmf') {
      e.play(call, 'dtmf', typeof ins.value === 'string' ? ins.value : '', source, leg);
    } else if (ins.name === 'answer') {
      e.play(call, 'answer', '', source);
      // An incoming call is answered by the application; a callout's call is answered by its callee.
      if (call.kind === 'incoming') e.markAnswered(call);
    }
  }
  return said;
}

/** Carries out `svaml` on the call. Runs synchronously up to its first wait, so a PATCH hangup has ended the call when it returns. */
export async function apply(e: CallEngine, call: Call, svaml: Svaml, event: ApplyEvent): Promise<void> {
  if (call.status !== 'ONGOING') return;
  const action = svaml.action as Obj;
  if (event === 'patch' && action.name === 'continue') {
    // A call update's continue changes nothing.
    recordInstructions(e, call, svaml.instructions, event);
    return;
  }
  const v = e.takeOver(call);
  const said = recordInstructions(e, call, svaml.instructions, event);
  switch (action.name) {
    case 'hangup':
      if (said) {
        call.phase = 'playing';
        if (!(await e.wait(call, e.state.settings.sayMs))) return;
      }
      return call.answeredAt !== undefined ? e.end(call, 'ANSWERED', 'MANAGERHANGUP') : e.end(call, 'N/A', 'CANCEL');
    case 'continue':
      return continueCall(e, call, v);
    case 'connectConf':
      return joinConference(e, call, action.conferenceId as string, {
        record: action.record === true,
        ...(typeof action.moh === 'string' ? { moh: action.moh } : {}),
      });
    case 'runMenu':
      e.markAnswered(call);
      call.menu = startMenu(action);
      return enterMenu(e, call);
    case 'connectPstn':
      return connectPstn(e, call, typeof action.number === 'string' ? action.number : call.to.endpoint, v);
    case 'connectSip':
    case 'connectMxp': {
      // Not emulated beyond this: connected at once to whatever the action names.
      e.markAnswered(call);
      const dest = action.destination as Obj | undefined;
      call.connectedTo = typeof dest?.endpoint === 'string' ? dest.endpoint : String(action.name);
      call.phase = 'connected';
      return;
    }
    case 'park':
      e.markAnswered(call);
      call.phase = 'parked';
      return;
  }
}

/**
 * continue: a TTS callout says its text and hangs up; a conference callout joins its conference; a custom
 * callout carries out what its ICE planned (if anything); otherwise the call stays connected as it is.
 */
async function continueCall(e: CallEngine, call: Call, v: number): Promise<void> {
  if (call.kind === 'tts') {
    e.play(call, 'text', call.options.text ?? '', 'callout');
    call.phase = 'playing';
    if (await e.wait(call, e.state.settings.sayMs)) e.end(call, 'ANSWERED', 'MANAGERHANGUP');
    return;
  }
  if (call.kind === 'conference') {
    if (call.options.greeting) e.play(call, 'greeting', call.options.greeting, 'callout');
    return joinConference(e, call, call.options.conferenceId!, {});
  }
  if (call.planned) {
    const planned = call.planned;
    delete call.planned;
    if (e.current(call, v)) return apply(e, call, planned, 'ice');
    return;
  }
  call.phase = 'connected';
}

function joinConference(e: CallEngine, call: Call, conferenceId: string, opts: { record?: boolean; moh?: string }): void {
  e.markAnswered(call);
  const { left } = e.conferences.join(call, conferenceId, opts);
  call.phase = 'conference';
  if (left?.recorded) e.callbacks.recorded(call, left.conferenceId);
}

/** Rings another number; when it answers the call is connected to it, and an incoming call sends an ACE. */
async function connectPstn(e: CallEngine, call: Call, number: string, v: number): Promise<void> {
  if (!(await e.ring(call, number)) || !e.current(call, v)) return;
  call.connectedTo = number;
  if (call.kind === 'incoming') return e.aceThenApply(call);
  call.phase = 'connected';
}

/** Plays the current menu's prompt and waits for keys; none in time is a `timeout` result. */
function enterMenu(e: CallEngine, call: Call): void {
  const def = currentMenu(call.menu!);
  if (def.mainPrompt) e.play(call, 'prompt', promptText(def.mainPrompt), `menu ${def.id}`);
  call.phase = 'menu';
  void e.wait(call, waitMsOf(def)).then((waited) => {
    if (waited && call.menu) void menuResult(e, call, timeoutResult(call.menu));
  });
}

export type KeysOutcome = { outcome: 'menu'; menuId: string } | { outcome: 'pie'; menuResult: MenuResult };

/** The callee presses keys in the current menu (the caller checked there is one). */
export function pressKeys(e: CallEngine, call: Call, digits: string): KeysOutcome {
  const out = press(call.menu!, digits);
  e.interrupt(call);
  if (out.kind === 'menu') {
    enterMenu(e, call);
    return { outcome: 'menu', menuId: out.menu.id };
  }
  void menuResult(e, call, out.result);
  return { outcome: 'pie', menuResult: out.result };
}

/**
 * The menu is over: PIE, and its answer is applied. No usable answer is taken as continue (the call leaves the
 * menu and goes on as after an ACE's continue). A TTS or conference callout without enablePie sends no PIE, and
 * neither does a data call (domain mxp; spec: PIE is "not for data calls").
 */
async function menuResult(e: CallEngine, call: Call, result: MenuResult): Promise<void> {
  call.lastMenuResult = { ...result, at: isoNow() };
  const v = e.takeOver(call);
  call.phase = 'pie';
  if (!call.options.enablePie || call.domain === 'mxp') return continueCall(e, call, v);
  const answer = await e.callbacks.pie(call, result);
  if (!e.current(call, v)) return;
  await apply(e, call, 'svaml' in answer ? answer.svaml : CONTINUE, 'pie');
}
