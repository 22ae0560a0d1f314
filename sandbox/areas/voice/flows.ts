// How each kind of call starts: a TTS or conference callout rings its destination and asks the ACE; a custom
// callout asks the ICE first and rings whom it names; an incoming call asks the ICE of the number's application.
// No usable ICE answer is the platform's fallback: an error is played and the call fails.
import { apply, recordInstructions } from './actions.js';
import { ICE_FALLBACK_TEXT, type Answer } from './callbacks.js';
import type { CallEngine } from './calls.js';
import type { Call } from './state.js';

/** ttsCallout and conferenceCallout: ring, then ACE (if asked for) and its answer. */
export async function calloutFlow(e: CallEngine, call: Call): Promise<void> {
  if (!(await e.ring(call, call.to.endpoint))) return;
  if (call.options.dtmf) e.play(call, 'dtmf', call.options.dtmf, 'callout');
  await e.aceThenApply(call);
}

/**
 * customCallout: ICE first. hangup ends it (N/A, CANCEL); connectPstn rings its number (or the destination);
 * any other action rings the destination and is carried out when the ACE answers continue. ACE always.
 */
export async function customFlow(e: CallEngine, call: Call): Promise<void> {
  const answer = await askIce(e, call);
  if (!answer) return;
  if (!('svaml' in answer)) {
    if (!answer.notSent) return iceFallback(e, call);
    // No callback URL: nothing to ask, so the destination is simply called.
  } else {
    const { action } = answer.svaml;
    const said = recordInstructions(e, call, answer.svaml.instructions, 'ice');
    if (action.name === 'hangup') {
      if (said && !(await e.wait(call, e.state.settings.sayMs))) return;
      return e.end(call, 'N/A', 'CANCEL');
    }
    if (action.name !== 'connectPstn') call.planned = { action };
  }
  const number = 'svaml' in answer && typeof answer.svaml.action.number === 'string' ? answer.svaml.action.number : call.to.endpoint;
  if (!(await e.ring(call, number))) return;
  call.connectedTo = number;
  await e.aceThenApply(call);
}

/** An incoming call: ICE, then its answer; no answer (or no callback URL) is the ICE fallback. */
export async function incomingFlow(e: CallEngine, call: Call): Promise<void> {
  const answer = await askIce(e, call);
  if (!answer) return;
  if ('svaml' in answer) return apply(e, call, answer.svaml, 'ice');
  return iceFallback(e, call);
}

/** The ICE's answer, or undefined when something replaced the call's activity meanwhile (the flow then stands down). */
async function askIce(e: CallEngine, call: Call): Promise<Answer | undefined> {
  call.phase = 'ice';
  const v = call.version;
  const answer = await e.callbacks.ice(call);
  return e.current(call, v) ? answer : undefined;
}

/** The platform plays an error and hangs up: DiCE FAILED, GENERALERROR. */
async function iceFallback(e: CallEngine, call: Call): Promise<void> {
  e.play(call, 'error', ICE_FALLBACK_TEXT, 'ice');
  call.phase = 'playing';
  if (await e.wait(call, e.state.settings.sayMs)) e.end(call, 'FAILED', 'GENERALERROR');
}
