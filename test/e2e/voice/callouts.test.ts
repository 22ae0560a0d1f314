// Callouts end to end through the API, against the sandbox's switch and the real Temporal server: a
// text-to-speech call's ACE is answered from the plan its token carries (continue, or hang up on a machine) and
// recorded in the process with its DiCE, a custom call's callbacks by the process (never by a fallback while the
// worker is up), each call is followed to its outcome, an unanswered call is retried on the caller's schedule, and
// a conference is managed through the API.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useHarness, uniqueName } from '../../helpers/harness.js';
import {
  callout,
  eventually,
  sandboxControl,
  phone,
  playedText,
  sandboxCall,
  sandboxConferences,
  setCallees,
  startCallout,
  voiceSettings,
  wireVoice,
} from '../../helpers/voice.js';

describe('voice callouts', () => {
  const h = useHarness({ env: { RELAYFLOW_VOICE_CHECK_EVERY_MS: '1000', RELAYFLOW_VOICE_IN_DOUBT_WAIT_MS: '2000' } }, async (h) => {
    await wireVoice(h);
    await voiceSettings(h, { noAnswerMs: 500, sayMs: 200 });
  });

  test('a text-to-speech callout is answered: the ACE is answered from the plan, the text is played, the outcome is answered', async () => {
    const destination = phone();
    const processId = await startCallout(h, 'tts', { key: uniqueName('tts'), destination, text: 'Your parcel arrives today.', cli: '+4685000101' });
    const done = await h.waitForState(processId, 'COMPLETED', 20_000);
    const view = await callout(h, processId);
    const [leg] = view.details.legs;
    assert.equal(leg!.outcome, 'answered', JSON.stringify(done));
    assert.equal(leg!.attempts.length, 1);
    const attempt = leg!.attempts[0]!;
    assert.equal(attempt.result, 'ANSWERED');
    assert.deepEqual(
      attempt.answers.map((a) => [a.event, a.action, a.by]),
      [['ace', 'continue', 'plan']],
    );
    const call = await sandboxCall(h, attempt.callId!);
    assert.match(playedText(call), /Your parcel arrives today\./);
    const ace = call.callbacks.find((c) => c.event === 'ace');
    assert.ok(ace && !ace.fallback, `the ACE was answered in time: ${JSON.stringify(ace)}`);
    assert.equal(view.details.fallbacks, 0);
  });

  test("an unanswered call is retried on the caller's schedule and answered the second time", async () => {
    const destination = phone('77');
    await setCallees(h, [{ suffix: '77', outcome: 'noanswer' }]);
    const processId = await startCallout(h, 'tts', { destination, text: 'Second try.', retry: { delaysSeconds: [3] } });
    const waiting = await h.waitForState(processId, 'WAITING_RETRY', 15_000);
    assert.ok(waiting, 'waits for the retry after no answer');
    let view = await callout(h, processId);
    assert.equal(view.details.legs[0]!.attempts[0]!.outcome, 'noanswer');
    assert.equal(view.details.legs[0]!.attempts[0]!.result, 'NOANSWER');
    await setCallees(h, [{ suffix: '77', outcome: 'answer' }]);
    await h.waitForState(processId, 'COMPLETED', 20_000);
    view = await callout(h, processId);
    const leg = view.details.legs[0]!;
    assert.deepEqual(
      leg.attempts.map((a) => a.outcome),
      ['noanswer', 'answered'],
    );
    assert.equal(leg.outcome, 'answered');
    assert.notEqual(leg.attempts[0]!.callId, leg.attempts[1]!.callId, 'each attempt is its own call');
  });

  test('a busy callee is retried only as scheduled, and an answering machine is hung up on (each an outcome, not a failure)', async () => {
    await setCallees(h, [
      { suffix: '55', outcome: 'busy' },
      { suffix: '66', outcome: 'machine' },
    ]);
    const busy = await startCallout(h, 'tts', { destination: phone('55'), text: 'Busy.', retry: { delaysSeconds: [1] } });
    const machine = await startCallout(h, 'tts', { destination: phone('66'), text: 'Machine.', amd: { enabled: true } });
    const ended = await h.waitForState(busy, 'COMPLETED', 20_000);
    assert.match(JSON.stringify(ended), /busy after 2 attempts/, 'the outcome is in the history');
    const b = (await callout(h, busy)).details.legs[0]!;
    assert.deepEqual(
      b.attempts.map((a) => a.outcome),
      ['busy', 'busy'],
      'one retry, as scheduled, then it stops',
    );
    await h.waitForState(machine, 'COMPLETED', 20_000);
    const m = (await callout(h, machine)).details.legs[0]!;
    assert.equal(m.outcome, 'machine');
    assert.deepEqual(
      m.attempts[0]!.answers.map((a) => [a.action, a.by]),
      [['hangup', 'plan']],
      'the ACE with amd machine is answered with hangup, from the plan',
    );
    const call = await sandboxCall(h, m.attempts[0]!.callId!);
    assert.doesNotMatch(playedText(call), /Machine\./, 'the message is not played to the machine');
  });

  test('a conference callout: participants joined, muted, held, one removed, then all', async () => {
    const conferenceId = uniqueName('conf');
    const destinations = [phone(), phone(), phone()];
    const processId = await startCallout(h, 'conference', { conferenceId, destinations, region: 'euc1', greeting: 'Welcome to the weekly call.' });
    const conf = await eventually('three participants in the conference', async () => {
      const c = (await sandboxConferences(h)).find((x) => x.conferenceId === conferenceId);
      return c && c.participants.length === 3 ? c : undefined;
    });
    assert.equal(conf.region, 'euc1', 'the conference lives in the region of the callout');
    const view = await callout(h, processId);
    const callIds = view.details.legs.map((l) => l.attempts[0]!.callId!);
    assert.equal(new Set(callIds).size, 3);

    const url = `/v1/voice/conferences/${conferenceId}`;
    const command = (callId: string, cmd: string) =>
      h.api({ method: 'POST', url: `${url}/participants/${callId}/commands?region=euc1`, payload: { command: cmd } });
    assert.equal((await command(callIds[0]!, 'mute')).statusCode, 204);
    assert.equal((await command(callIds[1]!, 'onhold')).statusCode, 204);
    const info = await h.api({ method: 'GET', url: `${url}?region=euc1` });
    assert.equal(info.statusCode, 200, info.body);
    const byId = new Map((info.json().participants as Array<{ id: string; muted: boolean; onhold: boolean }>).map((p) => [p.id, p]));
    assert.equal(byId.get(callIds[0]!)?.muted, true);
    assert.equal(byId.get(callIds[1]!)?.onhold, true);
    assert.equal(byId.get(callIds[2]!)?.muted, false);
    assert.equal((await h.api({ method: 'GET', url: `${url}?region=use1` })).statusCode, 404, 'another region does not know the conference');

    assert.equal((await h.api({ method: 'DELETE', url: `${url}/participants/${callIds[2]}?region=euc1` })).statusCode, 204);
    const removed = await eventually("the removed participant's call ended in the process", async () => {
      const a = (await callout(h, processId)).details.legs[2]!.attempts[0]!;
      return a.state === 'ended' ? a : undefined;
    });
    assert.equal(removed.reason, 'MANAGERHANGUP');
    assert.equal(removed.outcome, 'answered');
    assert.equal((await h.api({ method: 'DELETE', url: `${url}/participants?region=euc1` })).statusCode, 204);
    await h.waitForState(processId, 'COMPLETED', 20_000);
    const final = await callout(h, processId);
    assert.deepEqual(
      final.details.legs.map((l) => l.outcome),
      ['answered', 'answered', 'answered'],
    );
    assert.equal(final.details.fallbacks, 0);
  });
  test("a recorded conference: each Notify is answered at once, and the recording reaches the callout's details and timeline once though delivered twice", async () => {
    const conferenceId = uniqueName('rec');
    const processId = await startCallout(h, 'custom', {
      key: uniqueName('rec'),
      destination: phone(),
      region: 'euc1',
      script: { start: { type: 'conference', conferenceId, record: true } },
    });
    const joined = await eventually('the callee in the recorded conference', async () => {
      const c = (await sandboxConferences(h)).find((x) => x.conferenceId === conferenceId);
      return c?.participants.length === 1 ? c.participants[0] : undefined;
    });
    // Every callback from here on (the DiCE and both Notify) is delivered twice.
    await sandboxControl(h, 'POST', '/_sandbox/callback-faults', { duplicate: 3 });
    try {
      assert.equal((await h.api({ method: 'DELETE', url: `/v1/voice/conferences/${conferenceId}/participants?region=euc1` })).statusCode, 204);
      // The sandbox sends Notify once, never again (spec: no answer in time, discarded): relayflow must answer it at once.
      const notifies = await eventually('both Notify answered', async () => {
        const n = (await sandboxCall(h, joined.callId)).callbacks.filter((c) => c.event === 'notify');
        return n.length === 2 && n.every((x) => x.answeredInMs !== undefined) ? n : undefined;
      });
      for (const notify of notifies) {
        assert.equal(notify.fallback, false, `not discarded: ${notify.fallbackReason}`);
        assert.ok(notify.answeredInMs! < 1_000, `answered at once (${notify.answeredInMs} ms)`);
      }
    } finally {
      await sandboxControl(h, 'DELETE', '/_sandbox/faults');
    }
    const sent = (
      (await sandboxControl(h, 'GET', '/_sandbox/callbacks?area=voice')) as { callbacks: Array<{ body: Record<string, unknown> }> }
    ).callbacks.filter((c) => c.body.event === 'notify' && c.body.callid === joined.callId);
    assert.deepEqual(
      sent.map((c) => c.body.type).sort(),
      ['recording_available', 'recording_available', 'recording_finished', 'recording_finished'],
      'each Notify delivered twice',
    );

    await h.waitForState(processId, 'COMPLETED', 20_000);
    const view = await callout(h, processId);
    assert.deepEqual(
      view.details.legs[0]!.attempts[0]!.answers.map((a) => [a.event, a.action, a.by]),
      [
        ['ice', 'connectPstn', 'process'],
        ['ace', 'connectConf', 'process'],
      ],
      "a custom call's callbacks follow its script: answered by the process",
    );
    const destination = sent[0]!.body.destination as string;
    // Once each, in whichever order the intake handed them over (the two Notifies race, each delivered twice).
    assert.deepEqual(
      (view.details.recordings ?? []).map((r) => [r.type, r.callId, r.leg, r.attempt, r.conferenceId, r.destination]).sort(),
      [
        ['recording_available', joined.callId, 0, 1, conferenceId, destination],
        ['recording_finished', joined.callId, 0, 1, conferenceId, destination],
      ],
      'each recording notification once, with where the file is',
    );
    const timeline = await h.api({ method: 'GET', url: `/v1/processes/${encodeURIComponent(processId)}/timeline` });
    assert.equal(timeline.statusCode, 200, timeline.body);
    const signals = (timeline.json().entries as Array<{ details: { signal?: string; duplicate?: boolean } }>).filter(
      (e) => e.details.signal === 'voiceRecording',
    );
    assert.equal(signals.length, 2, 'one entry per notification in the timeline');
    assert.ok(signals.every((e) => !e.details.duplicate));
  });
});
