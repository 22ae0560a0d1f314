// A callout (text-to-speech, conference or custom): one call per destination, each followed through its
// callbacks to an outcome (answered, busy, no answer, failed, machine) and retried on the caller's schedule.
// The ACE of a text-to-speech or conference call needs nothing this process knows (continue, or hang up on a
// machine: the plan its token carries), so the intake answers it, writes it to the store and relays it here with
// the call's DiCE (`voiceEvents`, recorded `by: plan`). Every other ICE, ACE and PIE (custom callouts, or any
// callback when the store is away) is answered here, through an update the intake waits on with a deadline;
// answers are decided from memory (call-driver.ts), never after an activity, so they come within one task.
import { allHandlersFinished, condition, setHandler, workflowInfo } from '@temporalio/workflow';
import {
  callToken,
  stopCalloutUpdate,
  VOICE_CALLOUT_KIND,
  voiceCallbackUpdate,
  voiceCallEndedSignal,
  voiceEventsSignal,
  voiceFallbackSignal,
  voiceRecordingSignal,
  type CallAttempt,
  type CallOutcome,
  type CalloutRequest,
  type CallScript,
  type CallStep,
  type VoiceCallbackEvent,
  type VoiceCallEnded,
  type VoiceCalloutDetails,
  type VoiceCalloutInput,
  type VoiceCalloutResult,
  type VoiceCalloutState,
  type VoiceLeg,
  type VoiceRecordedEvent,
} from '../../contract.js';
import { trackProcess } from '../../../shared/workflow/process-state.js';
import { CallDriver, calloutAcePlan } from '../../call-driver.js';
import { applyEnd, followCall, hangupCall, placeCallout, Waiter } from '../../workflow/follow-call.js';
import { InOrder } from '../../workflow/in-order.js';

const DEFAULT_RETRY_ON: readonly CallOutcome[] = ['busy', 'noanswer'];

/**
 * A callout whose script records a conference waits, once its calls are over, for the platform's
 * recording_available (it comes after the last call leaves the conference, so often after this callout's own
 * DiCE) for at most this long before it ends.
 */
const RECORDING_NOTICE_WAIT_MS = 30_000;

export async function voiceCallout(input: VoiceCalloutInput): Promise<VoiceCalloutResult> {
  // The waits (before a retry, for a call in doubt, between reads) end on what an update set (a stop, a callback
  // naming the call) only once the update handlers have answered: otherwise cancelling the wait's timer and the
  // update's answer come in an order that depends on the workflow interceptors' awaits (a stop recorded with
  // OpenTelemetry's interceptors failed replay without them). The handlers never wait for the loop.
  const handlersAnswered = () => allHandlersFinished();
  const ace = calloutAcePlan(input);
  const legs: VoiceLeg[] = input.destinations.map((destination, index) => ({ index, destination, attempts: [] }));
  const tracker = trackProcess<VoiceCalloutState, VoiceCalloutDetails>(VOICE_CALLOUT_KIND, 'CALLING', {
    kind: input.kind,
    key: input.key,
    region: input.region,
    ...(input.conference ? { conferenceId: input.conference.conferenceId } : {}),
    legs,
    fallbacks: 0,
  });
  const drivers = new Map<string, CallDriver>();
  const ends = new Map<string, VoiceCallEnded>();
  let stopReason: string | undefined;
  const keyOf = (leg: number, attempt: number) => `${leg}.${attempt}`;

  /** The call a callback is about: by the token in `custom`, else by call ID. */
  function keyFor(e: { callId: string; leg?: number | undefined; attempt?: number | undefined }): string | undefined {
    if (e.leg !== undefined && e.attempt !== undefined && drivers.has(keyOf(e.leg, e.attempt))) return keyOf(e.leg, e.attempt);
    for (const [key, d] of drivers) if (d.attempt.callId === e.callId) return key;
    return undefined;
  }

  setHandler(voiceCallbackUpdate, (ev: VoiceCallbackEvent) => drivers.get(keyFor(ev)!)!.answer(ev), {
    validator: (ev) => {
      if (!keyFor(ev)) throw new Error(`call ${ev.callId} is not one of this callout's calls`);
    },
  });
  setHandler(voiceCallEndedSignal, (e) => {
    const key = keyFor(e);
    if (key && !ends.has(key)) ends.set(key, e);
  });
  // The events of each call answered from the plan (its ACE, then its DiCE), once each and in order per call.
  const recorded = new Map<string, InOrder>();
  setHandler(voiceEventsSignal, ({ items }) => {
    for (const item of items) {
      const callId = item.ev?.callId ?? item.ended?.callId;
      if (!callId) continue;
      let inOrder = recorded.get(callId);
      if (!inOrder) recorded.set(callId, (inOrder = new InOrder(applyRecorded)));
      inOrder.take([item]);
    }
  });
  function applyRecorded(item: VoiceRecordedEvent): void {
    if (item.ev) {
      const key = keyFor(item.ev);
      if (key) drivers.get(key)!.answer(item.ev, item.given);
    }
    if (item.ended) {
      const key = keyFor(item.ended);
      if (key && !ends.has(key)) ends.set(key, item.ended);
    }
  }
  setHandler(voiceFallbackSignal, (f) => {
    const key = keyFor(f);
    const attempt = key ? drivers.get(key)!.attempt : undefined;
    attempt?.answers.push({ event: f.event, at: f.at, action: f.action, by: 'fallback' });
    if (attempt && f.event === 'ace' && attempt.state !== 'ended') attempt.state = 'answered';
    tracker.update({ fallbacks: tracker.status.details.fallbacks + 1 });
  });
  // Registering this handler adds no command: runs never signalled replay as before.
  setHandler(voiceRecordingSignal, (n) => {
    const known = tracker.status.details.recordings ?? [];
    if (known.some((r) => r.eventId === n.eventId)) return;
    tracker.update({ recordings: [...known, n] });
  });
  setHandler(stopCalloutUpdate, async ({ reason }) => {
    if (stopReason !== undefined || ['COMPLETED', 'FAILED'].includes(tracker.status.state)) return { stopped: false, hungUp: 0 };
    stopReason = reason ?? 'stopped by the caller';
    const live = [...drivers.values()].map((d) => d.attempt).filter((a) => a.callId && a.state !== 'ended');
    const hung = await Promise.all(live.map((a) => hangupCall(a.callId!, input.baseUrl)));
    return { stopped: true, hungUp: hung.filter(Boolean).length };
  });

  const refresh = () => {
    if (stopReason !== undefined) return;
    const calling = legs.some((l) => l.attempts.some((a) => a.state !== 'ended'));
    const waiting = legs.some((l) => l.nextAttemptAt !== undefined);
    tracker.moveTo(calling || !waiting ? 'CALLING' : 'WAITING_RETRY');
  };

  const waiters = legs.map(() => new Waiter());

  async function runLeg(leg: VoiceLeg): Promise<void> {
    const delays = input.retry?.delaysSeconds ?? [];
    const retryOn = input.retry?.on ?? DEFAULT_RETRY_ON;
    const waiter = waiters[leg.index]!;
    for (let n = 1; stopReason === undefined; n++) {
      const key = keyOf(leg.index, n);
      const attempt: CallAttempt = { attempt: n, placedAt: new Date().toISOString(), state: 'placing', answers: [] };
      leg.attempts.push(attempt);
      drivers.set(
        key,
        new CallDriver(
          {
            kind: input.kind,
            ...(input.script ? { script: input.script } : {}),
            destination: leg.destination,
            ...(input.cli ? { cli: input.cli } : {}),
            ...(input.amd ? { amd: input.amd } : {}),
          },
          attempt,
        ),
      );
      refresh();
      const placed = await placeCallout({
        request: calloutRequest(input, leg.destination, callToken(workflowInfo().workflowId, leg.index, n, ace)),
        baseUrl: input.baseUrl,
      });
      if (placed.placed) {
        attempt.callId ??= placed.callId;
        if (attempt.state === 'placing') attempt.state = 'ringing';
      } else if (placed.inDoubt) {
        if (attempt.state === 'placing') attempt.state = 'in_doubt';
      } else {
        // Refused (a bad number, credentials): another attempt would be refused the same way.
        applyEnd(attempt, {
          callId: '',
          result: 'FAILED',
          reason: `${placed.errorType}: ${placed.reason}`,
          receivedAt: new Date().toISOString(),
          source: 'read',
        });
        leg.outcome = 'failed';
        return;
      }
      await followCall(attempt, { ...input, ended: () => ends.get(key), answered: handlersAnswered, waiter });
      leg.outcome = attempt.outcome;
      if (stopReason !== undefined || n > delays.length || !retryOn.includes(attempt.outcome!)) return;
      const waitMs = delays[n - 1]! * 1000;
      leg.nextAttemptAt = new Date(Date.now() + waitMs).toISOString();
      refresh();
      await waiter.until(() => stopReason !== undefined && handlersAnswered(), waitMs);
      delete leg.nextAttemptAt;
    }
  }

  let running = legs.length;
  await Promise.all(
    legs.map(async (leg) => {
      await runLeg(leg);
      // A leg done before the others would see its timer fire during their calls: only the last leg's is left pending.
      if (--running > 0) waiters[leg.index]!.drop();
    }),
  );
  const recordingAvailable = () => (tracker.status.details.recordings ?? []).some((r) => r.type === 'recording_available');
  if (stopReason === undefined && recordsConference(input.script) && legs.some((l) => l.attempts.some((a) => a.answeredAt)) && !recordingAvailable()) {
    // The legs' timers would fire during this wait: cancelled first. A stop meanwhile ends the wait (once its update has answered).
    for (const w of waiters) w.drop();
    await new Waiter().until(() => recordingAvailable() || (stopReason !== undefined && handlersAnswered()), RECORDING_NOTICE_WAIT_MS);
  }
  const answered = legs.some((l) => l.outcome === 'answered');
  const final: VoiceCalloutState =
    stopReason !== undefined ? 'STOPPED' : answered || legs.every((l) => l.outcome && l.outcome !== 'failed') ? 'COMPLETED' : 'FAILED';
  tracker.moveTo(final, stopReason ?? summary(legs));
  await condition(allHandlersFinished);
  return {
    state: final,
    legs: legs.map((l) => ({ destination: l.destination, attempts: l.attempts.length, ...(l.outcome ? { outcome: l.outcome } : {}), ...durationOf(l) })),
  };
}

/** Whether any step of the script joins a recorded conference. */
function recordsConference(script: CallScript | undefined): boolean {
  if (!script) return false;
  const steps: CallStep[] = [script.start, ...Object.values(script.menus ?? {}).flatMap((m) => Object.values(m.options))];
  return steps.some((s) => s.type === 'conference' && s.record === true);
}

function durationOf(leg: VoiceLeg): { durationSeconds?: number } {
  const d = leg.attempts.at(-1)?.durationSeconds;
  return d === undefined ? {} : { durationSeconds: d };
}

function summary(legs: VoiceLeg[]): string {
  return legs.map((l) => `${l.outcome ?? 'unknown'} after ${l.attempts.length} attempt${l.attempts.length === 1 ? '' : 's'}`).join('; ');
}

function calloutRequest(input: VoiceCalloutInput, destination: string, custom: string): CalloutRequest {
  const common = {
    destination: { type: 'number' as const, endpoint: destination },
    custom,
    ...(input.cli ? { cli: input.cli } : {}),
  };
  const amd = input.amd?.enabled ? { amd: { enabled: true } } : {};
  switch (input.kind) {
    case 'tts':
      return {
        method: 'ttsCallout',
        ttsCallout: { ...common, domain: 'pstn', locale: input.locale ?? 'en-US', text: input.text ?? '', enableAce: true, enableDice: true, ...amd },
      };
    case 'conference':
      return {
        method: 'conferenceCallout',
        conferenceCallout: {
          ...common,
          domain: 'pstn',
          conferenceId: input.conference!.conferenceId,
          enableAce: true,
          enableDice: true,
          ...amd,
          ...(input.locale ? { locale: input.locale } : {}),
          ...(input.conference!.greeting ? { greeting: input.conference!.greeting } : {}),
          ...(input.conference!.moh ? { mohClass: input.conference!.moh } : {}),
          ...(input.maxDurationSeconds ? { maxDuration: input.maxDurationSeconds } : {}),
        },
      };
    case 'custom':
      return { method: 'customCallout', customCallout: { ...common, ...(input.maxDurationSeconds ? { maxDuration: input.maxDurationSeconds } : {}) } };
  }
}
