// Incoming-call rules keyed by in-app user, end to end: the sandbox's in-app calls carry the caller's identity
// in their ICE as the platform's do (`user`, originationType MXP, `to {type: username}` for app to app), the
// intake picks the caller's rule first, then the callee's (user or number), then default, and the call's process
// says which rule matched and why. A phone call still follows its number's rule, and default what has none.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startHarness, uniqueName, type Harness } from '../../helpers/harness.js';
import { appCall, eventually, hangUp, incomingCall, OWN_NUMBERS, phone, putIncomingRule, sandboxCall, voiceClient, wireVoice } from '../../helpers/voice.js';

interface IncomingView {
  state: string;
  history: Array<{ state: string; reason?: string }>;
  details: {
    from?: string;
    to?: string;
    toType?: string;
    user?: string;
    rule?: string;
    ruleMatchedBy?: string;
    call: { state: string; result?: string; reason?: string; answers: Array<{ event: string; action: string; by: string }> };
  };
}

describe('voice rules keyed by in-app user', () => {
  let h: Harness;
  const keys: string[] = [];
  const alice = uniqueName('alice');
  const bob = uniqueName('bob');
  const carol = uniqueName('carol');
  const [routedNumber, otherNumber] = OWN_NUMBERS;
  const view = async (callId: string): Promise<IncomingView> => {
    const res = await h.api({ method: 'GET', url: `/v1/processes/${encodeURIComponent(`voice-incoming:${callId}`)}` });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  const putRule = async (key: string, script: unknown) => {
    await putIncomingRule(h, key, script);
    keys.push(key);
  };
  const iceAnswer = async (callId: string) =>
    eventually('the ICE answered', async () => (await sandboxCall(h, callId)).callbacks.find((c) => c.event === 'ice' && c.answer));
  /** What the ICE's answer says (its `say` instructions). */
  const said = async (callId: string) => (await iceAnswer(callId)).answer?.instructions?.filter((i) => i.name === 'say').map((i) => i.text);

  before(async () => {
    h = await startHarness({ env: { RELAYFLOW_VOICE_CHECK_EVERY_MS: '1000' } });
    await wireVoice(h);
    await voiceClient(h).assignNumbers([...OWN_NUMBERS]);
    await putRule(`user:${alice}`, { start: { type: 'play', text: "Alice's calls are recorded for training." } });
    await putRule(`to-user:${bob}`, { start: { type: 'conference', conferenceId: uniqueName('bob-room') } });
    await putRule(routedNumber, { start: { type: 'play', text: 'You called the routed number.' } });
    await putRule('default', { start: { type: 'hangup', text: 'No rule for this call.' } });
  });
  after(async () => {
    for (const key of keys) await h?.api({ method: 'DELETE', url: `/v1/voice/incoming-rules/${encodeURIComponent(key)}` });
    await h?.close();
  });

  test("an app-to-app call follows its caller's rule; the ICE is all the platform sends, and the process ends with it", async () => {
    const { callId } = await appCall(h, alice, { type: 'username', endpoint: bob });
    assert.deepEqual(await said(callId), ["Alice's calls are recorded for training."], "the caller's rule, not bob's (callee) rule");
    const ended = await h.waitForState(`voice-incoming:${callId}`, 'ENDED', 15_000);
    assert.ok(ended);
    const v = await view(callId);
    assert.equal(v.details.rule, `user:${alice}`);
    assert.equal(v.details.ruleMatchedBy, 'caller-user');
    assert.equal(v.details.user, alice);
    assert.equal(v.details.to, bob);
    assert.equal(v.details.toType, 'username');
    assert.deepEqual(
      v.details.call.answers.map((a) => [a.event, a.action, a.by]),
      [['ice', 'hangup', 'plan']],
    );
    assert.match(v.details.call.reason ?? '', /app to app/);
    const call = await sandboxCall(h, callId);
    assert.deepEqual(
      call.callbacks.map((c) => c.event),
      ['ice'],
      'app to app: no ACE, no DiCE',
    );
  });

  test("an app-to-app call from a caller without a rule follows the callee's rule", async () => {
    const { callId } = await appCall(h, carol, { type: 'username', endpoint: bob });
    const ice = await iceAnswer(callId);
    assert.equal(ice.answer?.action?.name, 'connectConf');
    await h.waitForState(`voice-incoming:${callId}`, 'ENDED', 15_000);
    const v = await view(callId);
    assert.deepEqual([v.details.rule, v.details.ruleMatchedBy, v.details.user], [`to-user:${bob}`, 'callee-user', carol]);
    await hangUp(h, callId);
  });

  test("an app-to-phone call follows its caller's rule; another caller's, the number's rule; ACE and DiCE as for any phone leg", async () => {
    const agent = phone();
    await putRule(`user:${carol}`, { start: { type: 'connect', number: agent, cli: routedNumber } });
    const { callId } = await appCall(h, carol, { type: 'number', endpoint: routedNumber });
    const ice = await iceAnswer(callId);
    assert.equal(ice.answer?.action?.name, 'connectPstn', "carol's rule, not the routed number's");
    await eventually('the agent answered', async () => ((await sandboxCall(h, callId)).connectedTo === agent ? true : undefined));
    await hangUp(h, callId);
    await h.waitForState(`voice-incoming:${callId}`, 'ENDED', 15_000);
    const v = await view(callId);
    assert.deepEqual([v.details.rule, v.details.ruleMatchedBy, v.details.user, v.details.to], [`user:${carol}`, 'caller-user', carol, routedNumber]);
    assert.equal(v.details.toType, undefined, 'a number: no type recorded');
    assert.deepEqual(
      v.details.call.answers.map((a) => [a.event, a.action]),
      [
        ['ice', 'connectPstn'],
        ['ace', 'continue'],
      ],
    );
    assert.equal(v.details.call.result, 'ANSWERED');

    const dave = uniqueName('dave');
    const other = await appCall(h, dave, { type: 'number', endpoint: routedNumber });
    assert.deepEqual(await said(other.callId), ['You called the routed number.']);
    await h.waitForState(`voice-incoming:${other.callId}`, 'ENDED', 15_000);
    const o = await view(other.callId);
    assert.deepEqual([o.details.rule, o.details.ruleMatchedBy, o.details.user], [routedNumber, 'called-number', dave]);
  });

  test("a phone call follows its number's rule even from a caller named like a user; a number without one follows default", async () => {
    const routed = await incomingCall(h, phone(), routedNumber);
    assert.deepEqual(await said(routed.callId), ['You called the routed number.']);
    await h.waitForState(`voice-incoming:${routed.callId}`, 'ENDED', 15_000);
    const r = await view(routed.callId);
    assert.deepEqual([r.details.rule, r.details.ruleMatchedBy, r.details.user], [routedNumber, 'called-number', undefined]);

    const unrouted = await incomingCall(h, phone(), otherNumber);
    assert.deepEqual(await said(unrouted.callId), ['No rule for this call.']);
    await h.waitForState(`voice-incoming:${unrouted.callId}`, 'ENDED', 15_000);
    const u = await view(unrouted.callId);
    assert.deepEqual([u.details.rule, u.details.ruleMatchedBy], ['default', 'default']);
  });
});
