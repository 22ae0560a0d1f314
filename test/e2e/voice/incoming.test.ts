// Incoming calls end to end: the caller's rule decides what happens (connect, IVR menu driven by keys), the
// process answers every callback of the call, a process that cannot answer in time gets the spec's fallback
// (and learns of it), and callbacks without a valid signature change nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { VOICE_CALLBACK_PATH } from '../../../contracts/callbacks.js';
import { signApplicationRequest } from '../../../common/signing.js';
import { startHarness, type Harness } from '../../helpers/harness.js';
import { eventually, hangUp, incomingCall, OWN_NUMBERS, phone, playedText, pressKeys, sandboxCall, voiceClient, wireVoice } from '../../helpers/voice.js';

interface IncomingView { state: string; details: { callId: string; rule?: string; call: { state: string; result?: string; reason?: string; answers: Array<{ event: string; action: string; by: string; input?: string }> }; fallbacks: number } }

describe('voice incoming calls', () => {
  let h: Harness;
  const [connectNumber, menuNumber, lateNumber] = OWN_NUMBERS;
  const view = async (callId: string): Promise<IncomingView> => {
    const res = await h.api({ method: 'GET', url: `/v1/processes/${encodeURIComponent(`voice-incoming:${callId}`)}` });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  const putRule = async (number: string, script: unknown) => {
    const res = await h.api({ method: 'PUT', url: `/v1/voice/incoming-rules/${encodeURIComponent(number)}`, payload: { script } });
    assert.equal(res.statusCode, 200, res.body);
  };

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
    assert.deepEqual(v.details.call.answers.map((a) => [a.event, a.action, a.by]), [['ice', 'connectPstn', 'process'], ['ace', 'continue', 'process']]);
    assert.equal(v.details.call.result, 'ANSWERED');
  });

  test('an IVR menu is a small process: keys pressed move through the menus, a wrong key asks again', async () => {
    const sales = phone();
    await putRule(menuNumber, {
      start: { type: 'menu', menu: 'main' },
      menus: {
        main: { prompt: 'Press 1 for opening hours, 2 for sales.', options: { 1: { type: 'play', text: 'We are open from nine to five.' }, 2: { type: 'menu', menu: 'sales' } } },
        sales: { prompt: 'Press 1 to speak to sales.', options: { 1: { type: 'connect', number: sales } } },
      },
    });
    const { callId } = await incomingCall(h, phone(), menuNumber);
    await h.waitForState(`voice-incoming:${callId}`, 'CONNECTED', 15_000);
    const pies = async (n: number) => eventually(`${n} PIE answered`, async () => {
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
    const v = await view(callId);
    assert.deepEqual(v.details.call.answers.map((a) => [a.event, a.action, a.input]), [
      ['ice', 'runMenu', undefined], ['pie', 'runMenu', 'invalidinput:9'], ['pie', 'runMenu', 'return:2'], ['pie', 'connectPstn', 'return:1'], ['ace', 'continue', undefined],
    ].map(([e, a, i]) => [e, a, i]));
    assert.ok(call.callbacks.every((c) => !c.fallback), 'no callback fell back');
    await hangUp(h, callId);
    await h.waitForState(`voice-incoming:${callId}`, 'ENDED', 15_000);
  });

  test('a process that cannot answer in time: the ICE gets the spec\'s fallback (error and hangup), and the process learns it', async () => {
    await putRule(lateNumber, { start: { type: 'play', text: 'You will never hear this.' } });
    await h.stopWorker();
    let callId: string;
    try {
      ({ callId } = await incomingCall(h, phone(), lateNumber));
      const call = await eventually('the ICE was answered', async () => {
        const c = await sandboxCall(h, callId);
        return c.status === 'FINAL' ? c : undefined;
      }, 15_000);
      const ice = call.callbacks.find((c) => c.event === 'ice')!;
      assert.equal(ice.answer?.action?.name, 'hangup', 'relayflow answered the fallback itself, before the platform gave up');
      assert.ok(!ice.fallback, 'the platform did not have to fall back');
      assert.ok((ice.answeredInMs ?? 0) >= 1_900, `answered at the deadline: ${ice.answeredInMs} ms`);
      assert.match(playedText(call), /service is not available/);
      assert.doesNotMatch(playedText(call), /never hear this/);
    } finally {
      await h.startWorker();
    }
    await h.waitForState(`voice-incoming:${callId!}`, 'ENDED', 20_000);
    const v = await view(callId!);
    assert.ok(v.details.call.answers.some((a) => a.event === 'ice' && a.by === 'fallback' && a.action === 'hangup'), JSON.stringify(v.details.call.answers));
    assert.equal(v.details.fallbacks, 1);
  });

  test('callbacks without a valid signature are refused with 401 and start nothing', async () => {
    const body = JSON.stringify({ event: 'ice', callid: 'forged-call-1', cli: '+46700000000', to: { type: 'number', endpoint: connectNumber } });
    const post = (headers: Record<string, string>, payload = body) => h.api({ method: 'POST', url: VOICE_CALLBACK_PATH, payload, headers: { 'content-type': 'application/json', authorization: '', ...headers } });
    const { appKey } = h.config.platform.credentials;
    const wrongSecret = Buffer.from('not-the-application-secret-32by!').toString('base64');
    const signedWrong = signApplicationRequest({ appKey, appSecret: wrongSecret, method: 'POST', path: VOICE_CALLBACK_PATH, contentType: 'application/json', body });
    const stale = signApplicationRequest({ appKey, appSecret: h.config.platform.credentials.appSecret, method: 'POST', path: VOICE_CALLBACK_PATH, contentType: 'application/json', body, timestamp: new Date(Date.now() - 3_600_000).toISOString() });
    const tampered = signApplicationRequest({ appKey, appSecret: h.config.platform.credentials.appSecret, method: 'POST', path: VOICE_CALLBACK_PATH, contentType: 'application/json', body: body.replace('forged-call-1', 'forged-call-2') });
    for (const [what, headers] of [['no signature', {}], ['wrong secret', signedWrong], ['stale timestamp', stale], ['another body', tampered]] as const) {
      const res = await post(headers as Record<string, string>);
      assert.equal(res.statusCode, 401, `${what}: ${res.body}`);
    }
    const started = await h.api({ method: 'GET', url: `/v1/processes/${encodeURIComponent('voice-incoming:forged-call-1')}` });
    assert.equal(started.statusCode, 404, 'no process was started');
    const signedBody = body.replace('forged-call-1', 'signed-call-1');
    const good = await post(signApplicationRequest({ appKey, appSecret: h.config.platform.credentials.appSecret, method: 'POST', path: VOICE_CALLBACK_PATH, contentType: 'application/json', body: signedBody }), signedBody);
    assert.equal(good.statusCode, 200, good.body);
    assert.equal(good.json().action.name, 'connectPstn', 'the same callback, signed, is answered from the rule');
  });
});
