// A call from the phone network to one of the application's numbers, keyed by the call ID. Two ways in:
// - answered from the plan (the usual one): the intake answers each ICE, ACE and PIE from the rule that matched
//   the called number, writes the event and its answer to the store first, and relays them here in batches: the
//   first batch starts this process (in its input, with the state it leads to given at the start), later ones
//   come as `voiceEvents` signals (at the call's end, and at most about once a second while it lasts). The process
//   replays each through its own driver, so its state (menu position, the timeline with `by: plan`) is what the
//   platform heard, and learns the DiCE the same way;
// - answered by the process (where the intake holds no plan for the call, e.g. its store was away): the ICE
//   starts this process by update-with-start with the rule, and the process answers each callback itself.
// Either way the process then follows the call to its end; an app-to-app call (to an in-app user) ends with its
// ICE's answer, since the platform sends nothing more about it (spec: app to app, only the ICE is used).
import { allHandlersFinished, condition, setHandler } from '@temporalio/workflow';
import {
  isAppToApp,
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
} from '../../contract.js';
import { trackProcess } from '../../../shared/workflow/process-state.js';
import { CallDriver, incomingLead, incomingPlan } from '../../call-driver.js';
import { followCall, Waiter } from '../../workflow/follow-call.js';
import { InOrder } from '../../workflow/in-order.js';

export async function voiceIncomingCall(input: VoiceIncomingInput): Promise<CallAttempt> {
  const call: CallAttempt = { attempt: 1, callId: input.callId, placedAt: new Date().toISOString(), state: 'ringing', answers: [] };
  // Started by its first events: it starts in the state they lead to (the one the intake listed at the start), and
  // its history says how it got there.
  const first = input.events ?? [];
  const lead = incomingLead(first);
  const tracker = trackProcess<VoiceIncomingState, VoiceIncomingDetails>(VOICE_INCOMING_KIND, lead.state, {
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
  if (lead.state !== 'RINGING' && lead.at) {
    const rang = first[0]?.ev?.receivedAt ?? lead.at;
    tracker.status.since = lead.at;
    tracker.status.history.splice(0, 1, { state: 'RINGING', at: rang }, { state: lead.state, at: lead.at, ...(lead.reason ? { reason: lead.reason } : {}) });
  }
  const driver = new CallDriver(incomingPlan(input.rule), call);
  let ended: VoiceCallEnded | undefined;
  const answered = (ev: { event: string }, action: string) => {
    if (action !== 'hangup' && tracker.status.state === 'RINGING') tracker.moveTo('CONNECTED', ev.event === 'ice' ? `answered with ${action}` : undefined);
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

  const events = new InOrder((next) => {
    if (next.ev && next.ev.callId === input.callId) {
      driver.answer(next.ev, next.given);
      answered(next.ev, next.given?.action ?? 'hangup');
    }
    if (next.ended && next.ended.callId === input.callId) ended ??= next.ended;
  });
  events.take(first);
  setHandler(voiceEventsSignal, ({ items }) => events.take(items));

  const waiter = new Waiter();
  if (isAppToApp(input)) {
    const iced = await waiter.until(() => call.answers.length > 0 || ended !== undefined, input.inDoubtWaitMs);
    call.state = 'ended';
    call.endedAt = new Date().toISOString();
    call.reason = iced ? 'app to app: the platform reports nothing after the ICE' : 'app to app: no ICE answer reached the process';
  } else await followCall(call, { ...input, ended: () => ended, waiter });
  tracker.moveTo('ENDED', `${call.result ?? 'ended'}${call.reason ? ` (${call.reason})` : ''}`);
  await condition(allHandlersFinished);
  return call;
}
