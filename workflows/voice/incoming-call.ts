// A call from the phone network to one of the application's numbers, keyed by the call ID. Two ways in:
// - answered from the plan (the usual one): the intake answers each ICE, ACE and PIE from the rule that matched
//   the called number, writes the event and its answer to the store first, and relays them here in order
//   (signal-with-start `voiceEvents`, the first one starts this process); the process replays each through its
//   own driver, so its state (menu position, the timeline with `by: plan`) is what the platform heard, and
//   learns the DiCE the same way;
// - answered by the process (where the intake holds no plan for the call, e.g. its store was away): the ICE
//   starts this process by update-with-start with the rule, and the process answers each callback itself.
// Either way the process then follows the call to its end; an app-to-app call (to an in-app user) ends with its
// ICE's answer, since the platform sends nothing more about it (spec: app to app, only the ICE is used).
import { allHandlersFinished, condition, patched, setHandler } from '@temporalio/workflow';
import {
  VOICE_INCOMING_KIND,
  voiceCallbackUpdate,
  voiceCallEndedSignal,
  voiceEventsSignal,
  voiceFallbackSignal,
  type CallAttempt,
  type VoiceCallEnded,
  type VoiceIncomingDetails,
  type VoiceIncomingInput,
  type VoiceIncomingState,
  type VoiceRecordedEvent,
} from '../../contracts/voice.js';
import { trackProcess } from '../shared/process-state.js';
import { CallDriver, incomingPlan } from '../../contracts/voice-call-driver.js';
import { isAppToApp } from '../../contracts/voice-rule-keys.js';
import { followCall } from './follow-call.js';

/** Events answered from the plan are relayed to the process (signal `voiceEvents`) and replayed through its driver. */
const INCOMING_ANSWERED_BY_PLAN_PATCH = 'voice-incoming-answered-by-plan';
/** An app-to-app call (its callee an in-app user) ends with its ICE's answer: the platform sends nothing more. */
const INCOMING_APP_TO_APP_PATCH = 'voice-incoming-app-to-app';

export async function voiceIncomingCall(input: VoiceIncomingInput): Promise<CallAttempt> {
  const call: CallAttempt = { attempt: 1, callId: input.callId, placedAt: new Date().toISOString(), state: 'ringing', answers: [] };
  const tracker = trackProcess<VoiceIncomingState, VoiceIncomingDetails>(VOICE_INCOMING_KIND, 'RINGING', {
    callId: input.callId,
    ...(input.baseUrl ? { callingBase: input.baseUrl } : {}),
    ...(input.from ? { from: input.from } : {}),
    ...(input.to ? { to: input.to } : {}),
    ...(input.toType ? { toType: input.toType } : {}),
    ...(input.user ? { user: input.user } : {}),
    ...(input.rule ? { rule: input.rule.number } : {}),
    ...(input.ruleMatchedBy ? { ruleMatchedBy: input.ruleMatchedBy } : {}),
    call,
    fallbacks: 0,
  });
  const driver = new CallDriver(incomingPlan(input.rule), call);
  let ended: VoiceCallEnded | undefined;
  const answered = (ev: { event: string }, action: string) => {
    if (action !== 'hangup') tracker.moveTo('CONNECTED', ev.event === 'ice' ? `answered with ${action}` : undefined);
  };

  setHandler(
    voiceCallbackUpdate,
    (ev) => {
      const svaml = driver.answer(ev);
      answered(ev, svaml.action.name);
      return svaml;
    },
    {
      validator: (ev) => {
        if (ev.callId !== input.callId) throw new Error(`call ${ev.callId} is not this process's call`);
      },
    },
  );
  setHandler(voiceCallEndedSignal, (e) => {
    if (e.callId === input.callId) ended ??= e;
  });
  setHandler(voiceFallbackSignal, (f) => {
    call.answers.push({ event: f.event, at: f.at, action: f.action, by: 'fallback' });
    tracker.update({ fallbacks: tracker.status.details.fallbacks + 1 });
  });

  // Each event once and in order of `seq`: the relay may repeat a batch (another API instance, a retry after a
  // lost answer) or deliver a later batch first; what is not next yet waits in `early`.
  let applied = 0;
  const early = new Map<number, VoiceRecordedEvent>();
  setHandler(voiceEventsSignal, ({ items }) => {
    if (!patched(INCOMING_ANSWERED_BY_PLAN_PATCH)) return;
    for (const item of items) if (item.seq > applied) early.set(item.seq, item);
    for (let next = early.get(applied + 1); next; next = early.get(applied + 1)) {
      early.delete(++applied);
      if (next.ev && next.ev.callId === input.callId) {
        driver.answer(next.ev, next.given);
        answered(next.ev, next.given?.action ?? 'hangup');
      }
      if (next.ended && next.ended.callId === input.callId) ended ??= next.ended;
    }
  });

  // Behind a patch: a run an older worker began for such an input followed the call (reads of it) instead.
  if (isAppToApp(input) && patched(INCOMING_APP_TO_APP_PATCH)) {
    const iced = await condition(() => call.answers.length > 0 || ended !== undefined, input.inDoubtWaitMs);
    call.state = 'ended';
    call.endedAt = new Date().toISOString();
    call.reason = iced ? 'app to app: the platform reports nothing after the ICE' : 'app to app: no ICE answer reached the process';
  } else await followCall(call, { ...input, ended: () => ended });
  tracker.moveTo('ENDED', `${call.result ?? 'ended'}${call.reason ? ` (${call.reason})` : ''}`);
  await condition(allHandlersFinished);
  return call;
}
