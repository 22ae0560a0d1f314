// Incoming calls end to end: the caller's rule decides what happens (connect, IVR menu driven by keys), the
// intake answers every callback of the call from the rule and the call's process records each answer (by
// plan; relayed in batches, the first starting the process, and each shown in the timeline), a call is answered
// even while no worker runs (and recorded once one does), a callback the intake holds
// no plan for that the process cannot answer in time gets the spec's fallback (and the process learns of it),
// and callbacks without a valid signature change nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { VOICE_CALLBACK_PATH } from '../../../contracts/callbacks.js';
import { signApplicationRequest } from '../../../common/signing.js';
import { startHarness, type Harness } from '../../helpers/harness.js';
import {
  eventually,
  hangUp,
  incomingCall,
  OWN_NUMBERS,
  phone,
  playedText,
  pressKeys,
  putIncomingRule,
  sandboxCall,
  voiceClient,
  wireVoice,
} from '../../helpers/voice.js';

interface IncomingView {
  state: string;
  details: {
    callId: string;
    rule?: string;
    call: { state: string; result?: string; reason?: string; answers: Array<{ event: string; action: string; by: string; input?: string }> };
    fallbacks: number;
  };
}

describe('voice incoming calls', () => {
  let h: Harness;
  const [connectNumber, menuNumber, lateNumber] = OWN_NUMBERS;
  const view = async (callId: string): Promise<IncomingView> => {
    const res = await h.api({ method: 'GET', url: `/v1/processes/${encodeURIComponent(`voice-incoming:${callId}`)}` });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  const putRule = (number: string, script: unknown) => putIncomingRule(h, number, script);

  before(async () => {
    h = await startHarness({ env: { RELAYFLOW_VOICE_CHECK_EVERY_MS: '1000' } });
    await wireVoice(h);
    await voiceClient(h).assignNumbers([...OWN_NUMBERS]);
  });
  after(async () => h?.close());

  test('a call to a number with a connect rule is connected to that number, and followed to its end', async () => {
    const agent = phone();
    await putRule(connectNumber, { start: { type: 'connect', number: agent, cli: connectNumber } });
    const { callId } = await incomingCall(h, phone(), connectNumber);
    await h.waitForState(`voice-incoming:${callId}`, 'CONNECTED', 15_000);
    const call = await eventually('the agent answered', async () => {
      const c = await sandboxCall(h, callId);
      return c.connectedTo === agent ? c : undefined;
    });
    assert.equal(call.callbacks.find((c) => c.event === 'ice')?.answer?.action?.name, 'connectPstn');
    await hangUp(h, callId);
    await h.waitForState(`voice-incoming:${callId}`, 'ENDED', 15_000);
    const v = await view(callId);
    assert.equal(v.details.rule, connectNumber);
    assert.deepEqual(
      v.details.call.answers.map((a) => [a.event, a.action, a.by]),
      [
        ['ice', 'connectPstn', 'plan'],
        ['ace', 'continue', 'plan'],
      ],
    );
    assert.equal(v.details.call.result, 'ANSWERED');
  });

  test('an IVR menu is a small process: keys pressed move through the menus, a wrong key asks again', async () => {
    const sales = phone();
    await putRule(menuNumber, {
      start: { type: 'menu', menu: 'main' },
      menus: {
        main: {
          prompt: 'Press 1 for opening hours, 2 for sales.',
          options: { 1: { type: 'play', text: 'We are open from nine to five.' }, 2: { type: 'menu', menu: 'sales' } },
        },
        sales: { prompt: 'Press 1 to speak to sales.', options: { 1: { type: 'connect', number: sales } } },
      },
    });
    const { callId } = await incomingCall(h, phone(), menuNumber);
    await h.waitForState(`voice-incoming:${callId}`, 'CONNECTED', 15_000);
    const pies = async (n: number) =>
      eventually(`${n} PIE answered`, async () => {
        const c = await sandboxCall(h, callId);
        return c.callbacks.filter((x) => x.event === 'pie' && x.answer).length >= n ? c : undefined;
      });
    await pressKeys(h, callId, '9');
    await pies(1);
    await pressKeys(h, callId, '2');
    await pies(2);
    await pressKeys(h, callId, '1');
    const call = await eventually('connected to sales', async () => {
      const c = await sandboxCall(h, callId);
      return c.connectedTo === sales ? c : undefined;
    });
    assert.match(playedText(call), /Press 1 for opening hours.*That is not one of the choices.*Press 1 to speak to sales/s);
    // The ACE of the connected leg reaches the process after the sandbox connects it: wait for its answer.
    const v = await eventually('the ACE answered', async () => {
      const r = await view(callId);
      return r.details.call.answers.some((a) => a.event === 'ace') ? r : undefined;
    });
    assert.deepEqual(
      v.details.call.answers.map((a) => [a.event, a.action, a.input]),
      [
        ['ice', 'runMenu', undefined],
        ['pie', 'runMenu', 'invalidinput:9'],
        ['pie', 'runMenu', 'return:2'],
        ['pie', 'connectPstn', 'return:1'],
        ['ace', 'continue', undefined],
      ].map(([e, a, i]) => [e, a, i]),
    );
    assert.ok(
      call.callbacks.every((c) => !c.fallback),
      'no callback fell back',
    );
    await hangUp(h, callId);
    await h.waitForState(`voice-incoming:${callId}`, 'ENDED', 15_000);
  });

  test("a call's events reach its process in batches, and its timeline shows every event and answer with who gave it", async () => {
    const agent = phone();
    await putRule(menuNumber, {
      start: { type: 'menu', menu: 'main' },
      menus: { main: { prompt: 'Press 1 for an agent.', options: { 1: { type: 'connect', number: agent } } } },
    });
    const { callId } = await incomingCall(h, phone(), menuNumber);
    const processId = `voice-incoming:${callId}`;
    await h.waitForState(processId, 'CONNECTED', 15_000);
    const answered = (n: number) =>
      eventually(`${n} callbacks answered`, async () => {
        const c = await sandboxCall(h, callId);
        return c.callbacks.filter((x) => x.answer).length >= n ? c : undefined;
      });
    await pressKeys(h, callId, '7');
    await answered(2);
    await pressKeys(h, callId, '1');
    await answered(4); // the connect, then the agent's ACE
    await hangUp(h, callId);
    await h.waitForState(processId, 'ENDED', 15_000);

    const heard = (await sandboxCall(h, callId)).callbacks.filter((c) => c.answer).map((c) => [c.event, c.answer!.action!.name]);
    assert.deepEqual(heard, [
      ['ice', 'runMenu'],
      ['pie', 'runMenu'],
      ['pie', 'connectPstn'],
      ['ace', 'continue'],
    ]);
    const res = await h.api({ method: 'GET', url: `/v1/processes/${encodeURIComponent(processId)}/timeline` });
    assert.equal(res.statusCode, 200, res.body);
    type Entry = { eventId: number; kind: string; summary: string; details: Record<string, unknown> };
    const entries = res.json().entries as Entry[];
    const recorded = entries.filter((e) => e.kind === 'callback' && typeof e.details.seq === 'number');
    // What the platform was answered, each once and in order, with who answered, and the end.
    assert.deepEqual(
      recorded.map((e) => [e.details.seq, e.details.event, e.details.action, e.details.by, e.details.input]),
      [
        [1, 'ice', 'runMenu', 'plan', undefined],
        [2, 'pie', 'runMenu', 'plan', 'invalidinput:7'],
        [3, 'pie', 'connectPstn', 'plan', 'return:1'],
        [4, 'ace', 'continue', 'plan', undefined],
        [5, 'dice', undefined, undefined, undefined],
      ],
      JSON.stringify(recorded.map((e) => e.summary)),
    );
    assert.equal(recorded.at(-1)!.details.result, 'ANSWERED');
    assert.ok(
      recorded.every((e) => !e.details.duplicate),
      'each once',
    );
    // The first batch came with the start (no signal of its own); the rest in voiceEvents signals, each batch one event of the history.
    const started = entries.find((e) => e.kind === 'started')!;
    assert.equal(recorded[0]!.eventId, started.eventId, 'the ICE started the process');
    const batches = new Set(recorded.map((e) => e.eventId));
    const signals = entries.filter((e) => e.details.signal === 'voiceEvents');
    assert.equal(batches.size, 1 + signals.length, 'one start and the signals carry every event');
    assert.equal(recorded.at(-1)!.eventId, signals.at(-1)!.eventId, 'the DiCE in the last batch');
    const v = await view(callId);
    assert.deepEqual(
      v.details.call.answers.map((a) => [a.event, a.action, a.by]),
      heard.map(([event, action]) => [event, action, 'plan']),
    );
  });

  test('with no worker running, the ICE is still answered from the rule in time, and the process records it once a worker runs', async () => {
    await putRule(lateNumber, { start: { type: 'play', text: 'Thank you for calling.' } });
    await h.stopWorker();
    let callId: string;
    try {
      ({ callId } = await incomingCall(h, phone(), lateNumber));
      const call = await eventually(
        'the ICE was answered',
        async () => {
          const c = await sandboxCall(h, callId);
          return c.status === 'FINAL' ? c : undefined;
        },
        15_000,
      );
      const ice = call.callbacks.find((c) => c.event === 'ice')!;
      assert.equal(ice.answer?.action?.name, 'hangup');
      assert.ok(!ice.fallback, 'the platform did not have to fall back');
      assert.ok((ice.answeredInMs ?? 0) < 1_000, `answered from the plan without the process: ${ice.answeredInMs} ms`);
      assert.match(playedText(call), /Thank you for calling/);
    } finally {
      await h.startWorker();
    }
    await h.waitForState(`voice-incoming:${callId!}`, 'ENDED', 20_000);
    const v = await view(callId!);
    assert.deepEqual(
      v.details.call.answers.map((a) => [a.event, a.action, a.by]),
      [['ice', 'hangup', 'plan']],
    );
    assert.equal(v.details.fallbacks, 0);
  });

  test("a callback the intake holds no plan for goes to the process; one that cannot answer in time gets the spec's fallback at the deadline, and learns it", async () => {
    // An ICE answered by the process (update-with-start), as when the store was away, then an ACE while no worker runs.
    const callId = `no-plan-${Date.now()}`;
    const { appKey, appSecret } = h.config.platform.credentials;
    const post = async (payload: Record<string, unknown>) => {
      const body = JSON.stringify({ ...payload, callid: callId, custom: '', version: 1, timestamp: new Date().toISOString() });
      return h.api({
        method: 'POST',
        url: VOICE_CALLBACK_PATH,
        payload: body,
        headers: {
          'content-type': 'application/json',
          authorization: '',
          ...signApplicationRequest({ appKey, appSecret, method: 'POST', path: VOICE_CALLBACK_PATH, contentType: 'application/json', body }),
        },
      });
    };
    const ace = async () => {
      const t = Date.now();
      const res = await post({ event: 'ace', amd: { status: 'human', reason: '', duration: 1 } });
      return { res, ms: Date.now() - t };
    };
    // No ICE from the plan for this call: the ACE is the process's to answer, and there is no process yet.
    const orphan = await ace();
    assert.equal(orphan.res.statusCode, 200, orphan.res.body);
    assert.equal(orphan.res.headers['x-relayflow-answered-by'], 'fallback');
    assert.equal(orphan.res.json().action.name, 'continue', "the spec's ACE fallback");
    // A process that exists but cannot answer (no worker): the fallback comes at the deadline.
    await h.client.workflow.start('voiceIncomingCall', {
      workflowId: `voice-incoming:${callId}`,
      taskQueue: h.config.taskQueue,
      args: [{ callId, checkEveryMs: 60_000, inDoubtWaitMs: 1_000, rule: { number: lateNumber, script: { start: { type: 'play', text: 'Hello.' } } } }],
    });
    await h.stopWorker();
    let late: Awaited<ReturnType<typeof ace>>;
    try {
      late = await ace();
    } finally {
      await h.startWorker();
    }
    assert.equal(late.res.headers['x-relayflow-answered-by'], 'fallback');
    assert.equal(late.res.json().action.name, 'continue');
    assert.ok(late.ms >= 1_900, `answered at the deadline: ${late.ms} ms`);
    const v = await eventually('the process learned the fallback', async () => {
      const x = await view(callId);
      return x.details.fallbacks >= 1 ? x : undefined;
    });
    assert.ok(
      v.details.call.answers.some((a) => a.event === 'ace' && a.by === 'fallback' && a.action === 'continue'),
      JSON.stringify(v.details.call.answers),
    );
    await h.client.workflow.getHandle(`voice-incoming:${callId}`).terminate('test over');
  });

  test('callbacks without a valid signature are refused with 401 and start nothing', async () => {
    const body = JSON.stringify({ event: 'ice', callid: 'forged-call-1', cli: '+46700000000', to: { type: 'number', endpoint: connectNumber } });
    const post = (headers: Record<string, string>, payload = body) =>
      h.api({ method: 'POST', url: VOICE_CALLBACK_PATH, payload, headers: { 'content-type': 'application/json', authorization: '', ...headers } });
    const { appKey } = h.config.platform.credentials;
    const wrongSecret = Buffer.from('not-the-application-secret-32by!').toString('base64');
    const signedWrong = signApplicationRequest({
      appKey,
      appSecret: wrongSecret,
      method: 'POST',
      path: VOICE_CALLBACK_PATH,
      contentType: 'application/json',
      body,
    });
    const stale = signApplicationRequest({
      appKey,
      appSecret: h.config.platform.credentials.appSecret,
      method: 'POST',
      path: VOICE_CALLBACK_PATH,
      contentType: 'application/json',
      body,
      timestamp: new Date(Date.now() - 3_600_000).toISOString(),
    });
    const tampered = signApplicationRequest({
      appKey,
      appSecret: h.config.platform.credentials.appSecret,
      method: 'POST',
      path: VOICE_CALLBACK_PATH,
      contentType: 'application/json',
      body: body.replace('forged-call-1', 'forged-call-2'),
    });
    for (const [what, headers] of [
      ['no signature', {}],
      ['wrong secret', signedWrong],
      ['stale timestamp', stale],
      ['another body', tampered],
    ] as const) {
      const res = await post(headers as Record<string, string>);
      assert.equal(res.statusCode, 401, `${what}: ${res.body}`);
    }
    const started = await h.api({ method: 'GET', url: `/v1/processes/${encodeURIComponent('voice-incoming:forged-call-1')}` });
    assert.equal(started.statusCode, 404, 'no process was started');
    const signedBody = body.replace('forged-call-1', 'signed-call-1');
    const good = await post(
      signApplicationRequest({
        appKey,
        appSecret: h.config.platform.credentials.appSecret,
        method: 'POST',
        path: VOICE_CALLBACK_PATH,
        contentType: 'application/json',
        body: signedBody,
      }),
      signedBody,
    );
    assert.equal(good.statusCode, 200, good.body);
    assert.equal(good.json().action.name, 'connectPstn', 'the same callback, signed, is answered from the rule');
  });
});
