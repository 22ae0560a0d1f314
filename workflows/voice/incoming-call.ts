// A call from the phone network to one of the application's numbers. The intake starts this process with the
// call's ICE (update-with-start, keyed by the call ID, so a repeated ICE finds the same process and the same
// answer) and the rule that matched the called number; the process answers the ICE and every later ACE and PIE
// of the call from that rule's script, then follows the call to its end.
import { allHandlersFinished, condition, setHandler } from '@temporalio/workflow';
import {
  VOICE_INCOMING_KIND, voiceCallbackUpdate, voiceCallEndedSignal, voiceFallbackSignal,
  type CallAttempt, type CallScript, type VoiceCallEnded, type VoiceIncomingDetails, type VoiceIncomingInput, type VoiceIncomingState,
} from '../../contracts/voice.js';
import { trackProcess } from '../shared/process-state.js';
import { CallDriver } from './call-driver.js';
import { followCall } from './follow-call.js';

export const NOT_IN_SERVICE_TEXT = 'The number you have called is not in service.';
const DENY: CallScript = { start: { type: 'hangup', text: NOT_IN_SERVICE_TEXT } };

export async function voiceIncomingCall(input: VoiceIncomingInput): Promise<CallAttempt> {
  const call: CallAttempt = { attempt: 1, callId: input.callId, placedAt: new Date().toISOString(), state: 'ringing', answers: [] };
  const tracker = trackProcess<VoiceIncomingState, VoiceIncomingDetails>(VOICE_INCOMING_KIND, 'RINGING', {
    callId: input.callId, ...(input.baseUrl ? { callingBase: input.baseUrl } : {}), ...(input.from ? { from: input.from } : {}), ...(input.to ? { to: input.to } : {}), ...(input.rule ? { rule: input.rule.number } : {}), call, fallbacks: 0,
  });
  const driver = new CallDriver({ kind: 'incoming', script: input.rule?.script ?? DENY }, call);
  let ended: VoiceCallEnded | undefined;

  setHandler(voiceCallbackUpdate, (ev) => {
    const svaml = driver.answer(ev);
    if (svaml.action.name !== 'hangup') tracker.moveTo('CONNECTED', ev.event === 'ice' ? `answered with ${svaml.action.name}` : undefined);
    return svaml;
  }, {
    validator: (ev) => {
      if (ev.callId !== input.callId) throw new Error(`call ${ev.callId} is not this process's call`);
    },
  });
  setHandler(voiceCallEndedSignal, (e) => {
    if (e.callId === input.callId) ended ??= e;
  });
  setHandler(voiceFallbackSignal, (f) => {
    call.answers.push({ event: f.event, at: f.at, action: f.action, by: 'fallback' });
    tracker.update({ fallbacks: tracker.status.details.fallbacks + 1 });
  });

  await followCall(call, { ...input, ended: () => ended });
  tracker.moveTo('ENDED', `${call.result ?? 'ended'}${call.reason ? ` (${call.reason})` : ''}`);
  await condition(allHandlersFinished);
  return call;
}
