// The voice client against the sandbox's voice switch (sandbox/areas/voice/): callouts ring numbers by the
// callee rules set through /_sandbox/voice, the switch asks a local receiver (the application) by signed ICE,
// ACE and PIE callbacks and applies its SVAML or the fallback, DiCE and Notify report the end; conferences are
// regional. docs/voice-wire.md "Sandbox switch".
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SANDBOX_CREDENTIALS } from '../../../common/config.js';
import { PlatformNotFoundError, PlatformValidationError } from '../../../platform/errors.js';
import { callingBaseOf, VoiceClient } from '../../../platform/voice/client.js';
import type { CalloutRequest } from '../../../common/wire/voice.js';
import { createSandbox, type Sandbox } from '../../../sandbox/index.js';
import { VoiceCallbackReceiver, type ReceivedCallback } from '../../helpers/voice-callback-receiver.js';
import { sandboxClients } from '../../helpers/sandbox-clients.js';
import { pollUntil } from '../../helpers/deadline.js';

describe('voice client against the sandbox switch', () => {
  interface Played {
    kind: string;
    text: string;
    source: string;
    leg?: string;
  }
  interface Sent {
    event: string;
    sent: boolean;
    fallback: boolean;
    fallbackReason?: string;
    answer?: unknown;
    answeredInMs?: number;
  }
  interface CallRecord {
    callId: string;
    kind: string;
    region: string;
    status: string;
    result: string;
    reason: string;
    phase: string;
    connectedTo?: string;
    conferenceId?: string;
    played: Played[];
    callbacks: Sent[];
    menu: { current: string } | null;
  }

  let sb: Sandbox;
  let client: VoiceClient;
  let rx: VoiceCallbackReceiver;

  const CALLEE = '+46701234567';
  const CLI = '+46700000001';
  const OWN_NUMBER = '+4685000101';

  before(async () => {
    sb = await createSandbox();
    await sb.listen();
    client = sandboxClients(sb).voice;
    rx = await VoiceCallbackReceiver.start((key) => sb.accounts.find((a) => a.appKey === key)?.appSecret);
  });
  after(async () => {
    await rx?.close();
    await sb?.close();
  });
  beforeEach(async () => {
    await fetch(`${sb.url}/_sandbox/reset`, { method: 'POST' });
    rx.clear();
    await client.setCallbackUrls({ primary: rx.url });
  });

  async function control(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
    const res = await fetch(`${sb.url}/_sandbox/voice${path}`, {
      method,
      ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  }
  const record = async (callId: string) => (await control('GET', `/calls/${callId}`)).body as CallRecord;
  const region = (r: string) => `${sb.platformUrls().voice}/${r}`;

  const until = <T>(fn: () => Promise<T | undefined>, what: string, timeoutMs = 4000): Promise<T> => pollUntil(fn, what, timeoutMs, 25);
  const inPhase = (callId: string, phase: string) =>
    until(async () => ((await record(callId)).phase === phase ? true : undefined), `${callId} in phase ${phase}`);

  function assertSigned(): void {
    assert.ok(rx.received.length > 0, 'callbacks were received');
    for (const c of rx.received) {
      assert.equal(c.signatureOk, true, `${c.event} of ${c.callid} signed: ${c.signatureFailure}`);
      assert.match(String(c.headers.authorization), new RegExp(`^Application ${SANDBOX_CREDENTIALS.appKey}:`));
      assert.equal(c.body.applicationKey, SANDBOX_CREDENTIALS.appKey);
    }
  }

  const tts = (endpoint: string, extra: Record<string, unknown> = {}): CalloutRequest => ({
    method: 'ttsCallout',
    ttsCallout: { cli: CLI, destination: { type: 'number', endpoint }, text: 'Your code is 1234', enableAce: true, enableDice: true, ...extra },
  });
  const events = (callId: string) => rx.of(callId).map((c) => c.event);
  const texts = (r: CallRecord) => r.played.map((p) => p.text);

  test('a TTS callout answered: ACE continue, its say and the text played, DiCE ANSWERED / MANAGERHANGUP', async () => {
    rx.answer = (cb) => (cb.event === 'ace' ? { json: { instructions: [{ name: 'say', text: 'Hello first' }], action: { name: 'continue' } } } : undefined);
    const { callId } = await client.callout(tts(CALLEE, { custom: 'ref-1' }));
    const dice = await rx.next(callId, 'dice');
    assert.deepEqual(events(callId), ['ace', 'dice']);
    assert.equal(dice.body.result, 'ANSWERED');
    assert.equal(dice.body.reason, 'MANAGERHANGUP');
    assert.equal(dice.body.custom, 'ref-1');
    assert.equal(dice.body.from, CLI);
    assert.deepEqual(dice.body.to, { type: 'number', endpoint: CALLEE });
    assert.deepEqual(dice.body.debit, { currencyId: 'EUR', amount: 0.01 });
    const r = await record(callId);
    assert.deepEqual(texts(r), ['Hello first', 'Your code is 1234']);
    assert.equal(r.callbacks[0]!.event, 'ace');
    assert.equal(r.callbacks[0]!.fallback, false);
    assert.deepEqual(r.callbacks[0]!.answer, { instructions: [{ name: 'say', text: 'Hello first' }], action: { name: 'continue' } });
    const info = await client.getCall(callId);
    assert.deepEqual([info.status, info.result, info.reason, info.custom], ['FINAL', 'ANSWERED', 'MANAGERHANGUP', 'ref-1']);
    assertSigned();
  });

  test('busy and unanswered numbers (longest suffix wins): DiCE BUSY / CANCEL and NOANSWER / TIMEOUT, no ACE', async () => {
    assert.equal(
      (
        await control('PUT', '/callees', {
          rules: [
            { suffix: '11', outcome: 'answer' },
            { suffix: '4411', outcome: 'busy' },
            { suffix: '4412', outcome: 'noanswer' },
          ],
        })
      ).status,
      200,
    );
    assert.equal((await control('PUT', '/settings', { noAnswerMs: 200 })).status, 200);
    const busy = await client.callout(tts('+46701234411'));
    const none = await client.callout(tts('+46701234412'));
    const [b, n] = await Promise.all([rx.next(busy.callId, 'dice'), rx.next(none.callId, 'dice')]);
    assert.deepEqual([b.body.result, b.body.reason, b.body.duration], ['BUSY', 'CANCEL', 0]);
    assert.deepEqual([n.body.result, n.body.reason, n.body.duration], ['NOANSWER', 'TIMEOUT', 0]);
    assert.deepEqual(events(busy.callId), ['dice']);
    assert.deepEqual(events(none.callId), ['dice']);
    assert.deepEqual((await record(busy.callId)).played, []);
    assertSigned();
  });

  test('AMD: the ACE says machine for a machine number, human otherwise, and nothing when not asked for', async () => {
    await control('PUT', '/callees', { rules: [{ suffix: '4413', outcome: 'machine' }] });
    const machine = await client.callout(tts('+46701234413', { amd: { enabled: true } }) as CalloutRequest);
    const human = await client.callout(tts(CALLEE, { amd: { enabled: true } }) as CalloutRequest);
    const plain = await client.callout(tts(CALLEE));
    const [m, h, p] = await Promise.all([rx.next(machine.callId, 'ace'), rx.next(human.callId, 'ace'), rx.next(plain.callId, 'ace')]);
    assert.deepEqual(m.body.amd, { status: 'machine', reason: 'longgreeting', duration: 3 });
    assert.deepEqual(h.body.amd, { status: 'human', reason: '', duration: 1 });
    assert.equal(p.body.amd, undefined);
    await rx.next(plain.callId, 'dice');
    assertSigned();
  });

  test('a slow application: ACE falls back to continue, ICE to an error and FAILED / GENERALERROR', async () => {
    await control('PUT', '/settings', { callbackTimeoutMs: 300 });
    await client.assignNumbers([OWN_NUMBER]);
    rx.answer = (cb) => (cb.event === 'ace' || cb.event === 'ice' ? { delayMs: 1000, json: { action: { name: 'hangup' } } } : undefined);
    const { callId } = await client.callout(tts(CALLEE));
    const incoming = (await control('POST', '/incoming', { from: '+46701111111', to: OWN_NUMBER })).body as { callId: string };
    const [dice, iceDice] = await Promise.all([rx.next(callId, 'dice'), rx.next(incoming.callId, 'dice')]);
    assert.deepEqual([dice.body.result, dice.body.reason], ['ANSWERED', 'MANAGERHANGUP']);
    const r = await record(callId);
    assert.equal(r.callbacks[0]!.fallback, true);
    assert.match(r.callbacks[0]!.fallbackReason!, /no answer within 300 ms/);
    assert.ok(r.callbacks[0]!.answeredInMs! < 900, 'the switch did not wait for the late answer');
    assert.ok(texts(r).includes('Your code is 1234'), 'continue played the text');
    assert.deepEqual([iceDice.body.result, iceDice.body.reason], ['FAILED', 'GENERALERROR']);
    const ri = await record(incoming.callId);
    assert.equal(ri.callbacks[0]!.fallback, true);
    assert.equal(ri.played[0]!.kind, 'error');
    assertSigned();
  });

  test('illegal or unreadable answers are no answers: ICE continue fails the call, ACE connectPstn and non-JSON continue', async () => {
    // Each answer is read however loaded the machine: only what it says makes the fallback here, never its time.
    await control('PUT', '/settings', { callbackTimeoutMs: 10_000 });
    await client.assignNumbers([OWN_NUMBER]);
    let aces = 0;
    rx.answer = (cb) => {
      if (cb.event === 'ice') return { json: { action: { name: 'continue' } } };
      if (cb.event === 'ace') return aces++ === 0 ? { json: { action: { name: 'connectPstn', number: CALLEE } } } : { text: 'ok' };
      return undefined;
    };
    const incoming = (await control('POST', '/incoming', { from: '+46701111111', to: OWN_NUMBER })).body as { callId: string };
    const dice = await rx.next(incoming.callId, 'dice');
    assert.deepEqual([dice.body.result, dice.body.reason], ['FAILED', 'GENERALERROR']);
    assert.match((await record(incoming.callId)).callbacks[0]!.fallbackReason!, /continue is not allowed in answer to ICE/);
    const first = await client.callout(tts(CALLEE));
    await rx.next(first.callId, 'dice');
    const second = await client.callout(tts(CALLEE));
    await rx.next(second.callId, 'dice');
    const [r1, r2] = [await record(first.callId), await record(second.callId)];
    assert.match(r1.callbacks[0]!.fallbackReason!, /connectPstn is not allowed in answer to ACE/);
    assert.match(r2.callbacks[0]!.fallbackReason!, /not JSON/);
    assert.deepEqual([r1.result, r1.reason, texts(r1)], ['ANSWERED', 'MANAGERHANGUP', ['Your code is 1234']]);
    assertSigned();
  });

  const MENUS = {
    name: 'runMenu',
    locale: 'en-US',
    mainMenu: 'main',
    menus: [
      {
        id: 'main',
        mainPrompt: '#tts[Press 1 for yes, 2 for more]',
        repeats: 1,
        maxDigits: 1,
        timeoutMills: 5000,
        options: [
          { dtmf: '1', action: 'return(yes)' },
          { dtmf: '2', action: 'menu(more)' },
        ],
      },
      { id: 'more', mainPrompt: '#tts[Press 3]', options: [{ dtmf: '3', action: 'return(three)' }] },
    ],
  };

  test('a custom callout: ICE connectPstn, ACE runMenu, keys to a sub-menu and an option, PIE say + hangup', async () => {
    rx.answer = (cb) => {
      if (cb.event === 'ice') return { json: { action: { name: 'connectPstn', number: '+46709990001', cli: CLI } } };
      if (cb.event === 'ace') return { json: { action: MENUS } };
      if (cb.event === 'pie') return { json: { instructions: [{ name: 'say', text: 'Thanks, goodbye' }], action: { name: 'hangup' } } };
      return undefined;
    };
    const { callId } = await client.callout({
      method: 'customCallout',
      customCallout: { cli: CLI, destination: { type: 'number', endpoint: CALLEE }, custom: 'c-1', ice: rx.url, ace: rx.url, pie: rx.url },
    });
    const ice = await rx.next(callId, 'ice');
    assert.equal(ice.body.callResourceUrl, `${sb.url}/voice/global/calling/v1/calls/id/${callId}`);
    assert.deepEqual([ice.body.cli, ice.body.to, ice.body.originationType, ice.body.custom], [CLI, { type: 'number', endpoint: CALLEE }, 'PSTN', 'c-1']);
    await inPhase(callId, 'menu');
    assert.deepEqual((await control('POST', `/calls/${callId}/dtmf`, { digits: '2' })).body, { callId, outcome: 'menu', menuId: 'more' });
    assert.equal((await record(callId)).menu?.current, 'more');
    assert.equal(rx.of(callId, 'pie').length, 0, 'a sub-menu sends no PIE');
    await control('POST', `/calls/${callId}/dtmf`, { digits: '3' });
    const pie = await rx.next(callId, 'pie');
    assert.deepEqual(pie.body.menuResult, { menuId: 'more', type: 'return', value: 'three', inputMethod: 'dtmf' });
    const dice = await rx.next(callId, 'dice');
    assert.deepEqual([dice.body.result, dice.body.reason], ['ANSWERED', 'MANAGERHANGUP']);
    assert.deepEqual(events(callId), ['ice', 'ace', 'pie', 'dice']);
    const r = await record(callId);
    assert.equal(r.connectedTo, '+46709990001');
    assert.deepEqual(texts(r), ['Press 1 for yes, 2 for more', 'Press 3', 'Thanks, goodbye']);
    assert.equal((await control('POST', `/calls/${callId}/dtmf`, { digits: '1' })).status, 409);
    assertSigned();
  });

  test("an in-app user's call: its ICE carries user and originationType MXP; app to app sends only the ICE, app to phone ICE, ACE and DiCE", async () => {
    const appKey = sb.accounts[0]!.appKey;
    rx.answer = (cb) => (cb.event === 'ice' ? { json: { action: { name: 'connectConf', conferenceId: 'app-room' } } } : undefined);
    const app = (await control('POST', '/app-calls', { user: 'alice', to: { type: 'username', endpoint: 'bob' }, applicationKey: appKey })).body as {
      callId: string;
    };
    const ice = await rx.next(app.callId, 'ice');
    assert.equal(ice.body.user, 'alice');
    assert.equal(ice.body.originationType, 'MXP');
    assert.equal(ice.body.domain, 'mxp');
    assert.deepEqual(ice.body.to, { type: 'username', endpoint: 'bob' });
    assert.equal(ice.body.cli, undefined, 'no cli: the caller has none');
    await inPhase(app.callId, 'conference');
    await control('POST', `/calls/${app.callId}/hangup`);
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(events(app.callId), ['ice'], 'app to app: only the ICE, no DiCE');

    rx.answer = (cb) => (cb.event === 'ice' ? { json: { action: { name: 'connectPstn', number: CALLEE } } } : undefined);
    const phone = (await control('POST', '/app-calls', { user: 'alice', to: { type: 'number', endpoint: CALLEE }, cli: CLI, applicationKey: appKey })).body as {
      callId: string;
    };
    const phoneIce = await rx.next(phone.callId, 'ice');
    assert.deepEqual([phoneIce.body.user, phoneIce.body.originationType, phoneIce.body.domain, phoneIce.body.cli], ['alice', 'MXP', 'pstn', CLI]);
    assert.deepEqual(phoneIce.body.to, { type: 'number', endpoint: CALLEE });
    await rx.next(phone.callId, 'ace');
    await control('POST', `/calls/${phone.callId}/hangup`);
    await rx.next(phone.callId, 'dice');
    assert.deepEqual(events(phone.callId), ['ice', 'ace', 'dice']);

    for (const body of [
      { to: { type: 'username', endpoint: 'bob' }, applicationKey: appKey },
      { user: 'al ice', to: { type: 'username', endpoint: 'bob' }, applicationKey: appKey },
      { user: 'alice', to: { type: 'number', endpoint: '0701234567' }, applicationKey: appKey },
      { user: 'alice', to: { type: 'username', endpoint: 'bob' }, applicationKey: 'nobody' },
    ]) {
      assert.equal((await control('POST', '/app-calls', body)).status, 400, JSON.stringify(body));
    }
    assertSigned();
  });

  test('an in-app callee gets no ACE and a data call (domain mxp) no PIE: the call goes on as after continue', async () => {
    rx.answer = (cb) => (cb.event === 'ice' ? { json: { action: MENUS } } : { json: { action: { name: 'hangup' } } });
    const { callId } = await client.callout({
      method: 'customCallout',
      customCallout: { cli: CLI, destination: { type: 'username', endpoint: 'alice' }, domain: 'mxp', ice: rx.url, ace: rx.url, pie: rx.url },
    } as CalloutRequest);
    await inPhase(callId, 'menu');
    assert.equal(rx.of(callId, 'ace').length, 0, 'no ACE for an in-app callee');
    assert.equal((await control('POST', `/calls/${callId}/dtmf`, { digits: '1' })).status, 200);
    await inPhase(callId, 'connected');
    assert.equal(rx.of(callId, 'pie').length, 0, 'no PIE for a data call');
    assert.deepEqual(
      (await record(callId)).callbacks.map((c) => c.event),
      ['ice'],
    );
    await control('POST', `/calls/${callId}/hangup`);
    await rx.next(callId, 'dice');
    assert.deepEqual(events(callId), ['ice', 'dice']);

    // The same callout to a phone number still gets its ACE.
    const pstn = await client.callout({
      method: 'customCallout',
      customCallout: { cli: CLI, destination: { type: 'number', endpoint: CALLEE }, ice: rx.url, ace: rx.url, pie: rx.url },
    });
    await rx.next(pstn.callId, 'ace');
    await rx.next(pstn.callId, 'dice');
    assert.deepEqual(events(pstn.callId), ['ice', 'ace', 'dice']);
  });

  test('menu results: timeout, a free sequence, invalid input', async () => {
    const pies: ReceivedCallback[] = [];
    const collect = { name: 'runMenu', menus: [{ id: 'pin', mainPrompt: '#tts[Your PIN]', maxDigits: 4, timeoutMills: 5000 }] };
    const quick = {
      name: 'runMenu',
      menus: [{ id: 'quick', mainPrompt: '#tts[Quick]', repeats: 1, timeoutMills: 100, options: [{ dtmf: '1', action: 'return' }] }],
    };
    rx.answer = (cb) => {
      if (cb.event === 'ice') return { json: { action: { name: 'connectPstn' } } };
      if (cb.event === 'ace') return { json: { action: quick } };
      if (cb.event !== 'pie') return undefined;
      pies.push(cb);
      if (pies.length === 1) return { json: { action: collect } };
      if (pies.length === 2) return { json: { action: { ...quick, menus: [{ ...quick.menus[0], timeoutMills: 5000 }] } } };
      return { json: { action: { name: 'hangup' } } };
    };
    const { callId } = await client.callout({ method: 'customCallout', customCallout: { cli: CLI, destination: { type: 'number', endpoint: CALLEE } } });
    await until(async () => (pies.length === 1 ? true : undefined), 'the timeout PIE');
    assert.deepEqual(pies[0]!.body.menuResult, { menuId: 'quick', type: 'timeout', value: '', inputMethod: 'dtmf' });
    await until(async () => ((await record(callId)).menu?.current === 'pin' ? true : undefined), 'the PIN menu');
    await control('POST', `/calls/${callId}/dtmf`, { digits: '1234' });
    await until(async () => ((await record(callId)).menu?.current === 'quick' ? true : undefined), 'the quick menu again');
    assert.deepEqual(pies[1]!.body.menuResult, { menuId: 'pin', type: 'sequence', value: '1234', inputMethod: 'dtmf' });
    await control('POST', `/calls/${callId}/dtmf`, { digits: '9' });
    const dice = await rx.next(callId, 'dice');
    assert.deepEqual(pies[2]!.body.menuResult, { menuId: 'quick', type: 'invalidinput', value: '9', inputMethod: 'dtmf' });
    assert.deepEqual([dice.body.result, dice.body.reason], ['ANSWERED', 'MANAGERHANGUP']);
    assertSigned();
  });

  test("an incoming call: ICE to the number's application, connectPstn, ACE when the callee answers, the caller hangs up", async () => {
    await client.assignNumbers([OWN_NUMBER]);
    rx.answer = (cb) => {
      if (cb.event === 'ice')
        return { json: { instructions: [{ name: 'say', text: 'Connecting you' }], action: { name: 'connectPstn', number: '+46702222222' } } };
      if (cb.event === 'ace') return { json: { action: { name: 'continue' } } };
      return undefined;
    };
    const refused = await control('POST', '/incoming', { from: '+46701111111', to: '+4685000102' });
    assert.equal(refused.status, 400, 'a number not assigned to an application');
    assert.match(JSON.stringify(refused.body), /to must be/);
    const { callId } = (await control('POST', '/incoming', { from: '+46701111111', to: OWN_NUMBER })).body as { callId: string };
    const ice = await rx.next(callId, 'ice');
    assert.deepEqual([ice.body.cli, ice.body.to, ice.body.custom], ['+46701111111', { type: 'number', endpoint: OWN_NUMBER }, '']);
    await rx.next(callId, 'ace');
    await inPhase(callId, 'connected');
    const base = callingBaseOf(String(ice.body.callResourceUrl));
    assert.equal(base, region('global'));
    const info = await client.getCall(callId, { baseUrl: base! });
    assert.deepEqual([info.status, info.from], ['ONGOING', '+46701111111']);
    await assert.rejects(client.getCall(callId, { baseUrl: region('euc1') }), PlatformNotFoundError, 'the call lives in its own region');
    assert.equal((await control('POST', `/calls/${callId}/hangup`)).status, 200);
    const dice = await rx.next(callId, 'dice');
    assert.deepEqual([dice.body.result, dice.body.reason], ['ANSWERED', 'CALLERHANGUP']);
    const r = await record(callId);
    assert.deepEqual([r.connectedTo, texts(r)], ['+46702222222', ['Connecting you']]);
    assert.deepEqual(events(callId), ['ice', 'ace', 'dice']);
    assertSigned();
  });

  const conferenceCallout = (endpoint: string, conferenceId: string): CalloutRequest => ({
    method: 'conferenceCallout',
    conferenceCallout: { cli: CLI, destination: { type: 'number', endpoint }, conferenceId, enableAce: true, enableDice: true },
  });
  const participantsOf = (conferenceId: string, r: string, n: number) =>
    until(async () => {
      const c = await client.conference(conferenceId, { baseUrl: region(r) }).catch(() => undefined);
      return c && c.participants.length === n ? c.participants : undefined;
    }, `${n} participants in ${conferenceId}`);

  test('a conference on euc1: participants, mute and hold, regional scope, remove one then all', async () => {
    const euc1 = { baseUrl: region('euc1') };
    const a = await client.callout(conferenceCallout('+46701000001', 'room-1'), euc1);
    const b = await client.callout(conferenceCallout('+46701000002', 'room-1'), euc1);
    const listed = await participantsOf('room-1', 'euc1', 2);
    assert.deepEqual(
      listed.map((p) => [p.id, p.cli]).sort(),
      [
        [a.callId, '+46701000001'],
        [b.callId, '+46701000002'],
      ].sort(),
    );
    await client.manageParticipant('room-1', a.callId, 'mute', euc1);
    await client.manageParticipant('room-1', b.callId, 'onhold', { ...euc1, moh: 'ring' });
    const after = await client.conference('room-1', euc1);
    assert.deepEqual(
      after.participants.map((p) => [p.id, p.muted, p.onhold]).sort(),
      [
        [a.callId, true, false],
        [b.callId, false, true],
      ].sort(),
    );
    await assert.rejects(client.conference('room-1', { baseUrl: region('use1') }), PlatformNotFoundError);
    await assert.rejects(client.conference('room-1'), PlatformNotFoundError, 'global is another region');
    await assert.rejects(client.getCall(a.callId), PlatformNotFoundError);
    await assert.rejects(
      client.manageParticipant('room-1', a.callId, 'shout' as 'mute', euc1),
      (e: unknown) => e instanceof PlatformValidationError && /command/.test(e.message),
    );
    await assert.rejects(client.manageParticipant('room-1', 'no-such-call', 'mute', euc1), PlatformNotFoundError);
    const listedByControl = (await control('GET', '/conferences')).body as Array<{ conferenceId: string; region: string; participants: unknown[] }>;
    assert.deepEqual(
      listedByControl.map((c) => [c.conferenceId, c.region, c.participants.length]),
      [['room-1', 'euc1', 2]],
    );

    await client.removeParticipant('room-1', a.callId, euc1);
    const diceA = await rx.next(a.callId, 'dice');
    assert.deepEqual([diceA.body.result, diceA.body.reason], ['ANSWERED', 'MANAGERHANGUP']);
    assert.deepEqual(
      (await client.conference('room-1', euc1)).participants.map((p) => p.id),
      [b.callId],
    );
    await client.removeAllParticipants('room-1', euc1);
    const diceB = await rx.next(b.callId, 'dice');
    assert.equal(diceB.body.reason, 'MANAGERHANGUP');
    await assert.rejects(client.conference('room-1', euc1), PlatformNotFoundError, 'an empty conference is gone');
    assert.deepEqual(events(a.callId), ['ace', 'dice']);
    assert.equal(rx.received.filter((c) => c.event === 'notify').length, 0, 'not recorded: no Notify');
    assertSigned();
  });

  test('a recorded conference (ACE connectConf record) sends Notify recording_finished, then recording_available, when its last participant leaves', async () => {
    rx.answer = (cb) => {
      if (cb.event === 'ice') return { json: { action: { name: 'connectPstn' } } };
      if (cb.event === 'ace')
        return { json: { instructions: [{ name: 'say', text: 'Joining' }], action: { name: 'connectConf', conferenceId: 'rec-1', record: true } } };
      return undefined;
    };
    const { callId } = await client.callout(
      { method: 'customCallout', customCallout: { cli: CLI, destination: { type: 'number', endpoint: CALLEE } } },
      { baseUrl: region('apse1') },
    );
    await participantsOf('rec-1', 'apse1', 1);
    const confs = (await control('GET', '/conferences')).body as Array<{ recorded: boolean }>;
    assert.equal(confs[0]!.recorded, true);
    await client.removeAllParticipants('rec-1', { baseUrl: region('apse1') });
    const available = await rx.waitFor((c) => c.callid === callId && c.event === 'notify' && c.body.type === 'recording_available');
    const [finished, second] = rx.of(callId, 'notify');
    assert.deepEqual([finished!.body.type, second?.body.type], ['recording_finished', 'recording_available'], 'finished first');
    for (const n of [finished!, available]) {
      assert.equal(n.body.conferenceId, 'rec-1');
      assert.match(String(n.body.destination), /\/voice\/recordings\/[0-9a-f-]{36}\.mp3$/, 'where the file is');
    }
    assert.equal(finished!.body.destination, available.body.destination, 'one recording');
    assert.deepEqual(events(callId), ['ice', 'ace', 'dice', 'notify', 'notify']);
    assert.equal((await record(callId)).region, 'apse1');
    assertSigned();
  });

  test('a Notify with no answer in time is discarded, not retried (spec: "no response in time: notification discarded")', async () => {
    await control('PUT', '/settings', { callbackTimeoutMs: 300 });
    rx.answer = (cb) => {
      if (cb.event === 'ice') return { json: { action: { name: 'connectPstn' } } };
      if (cb.event === 'ace') return { json: { action: { name: 'connectConf', conferenceId: 'rec-late', record: true } } };
      if (cb.event === 'notify') return { delayMs: 1_000 };
      return undefined;
    };
    const { callId } = await client.callout(
      { method: 'customCallout', customCallout: { cli: CLI, destination: { type: 'number', endpoint: CALLEE } } },
      { baseUrl: region('apse1') },
    );
    await participantsOf('rec-late', 'apse1', 1);
    await client.removeAllParticipants('rec-late', { baseUrl: region('apse1') });
    await rx.waitFor((c) => c.callid === callId && c.event === 'notify' && c.body.type === 'recording_available');
    const sent = await until(async () => (await record(callId)).callbacks.find((c) => c.event === 'notify' && c.fallback), 'the Notify recorded as discarded');
    assert.match(sent.fallbackReason ?? '', /^discarded: no answer within 300 ms$/);
    // Well past the dispatcher's first retry (1 s): still one Notify of each type.
    await new Promise((r) => setTimeout(r, 2_500));
    assert.deepEqual(
      rx.of(callId, 'notify').map((n) => n.body.type),
      ['recording_finished', 'recording_available'],
      'each sent once, never retried',
    );
  });

  test('callout validation: 40001 naming the field and the rule; destination.number is taken for endpoint', async () => {
    const refused = async (req: unknown, pattern: RegExp) =>
      assert.rejects(
        client.callout(req as CalloutRequest),
        (e: unknown) => e instanceof PlatformValidationError && e.code === '40001' && pattern.test(e.message),
      );
    await refused(tts('0701234567'), /ttsCallout\.destination\.endpoint must be E\.164 with \+/);
    await refused(tts(CALLEE, { cli: 'abc' }), /ttsCallout\.cli must be E\.164/);
    await refused(
      { method: 'ttsCallout', ttsCallout: { destination: { type: 'number', endpoint: CALLEE } } },
      /ttsCallout\.text or ttsCallout\.prompts is required/,
    );
    await refused(
      { method: 'conferenceCallout', conferenceCallout: { destination: { type: 'number', endpoint: CALLEE } } },
      /conferenceCallout\.conferenceId is required/,
    );
    await refused({ method: 'smsCallout', smsCallout: {} }, /method must be/);
    await refused(tts(CALLEE, { dtmf: '12x' }), /ttsCallout\.dtmf must match/);
    await refused(
      { method: 'customCallout', customCallout: { destination: { type: 'number', endpoint: CALLEE }, ice: '{"action":{"name":"continue"}}' } },
      /customCallout\.ice must be .*continue is not allowed/,
    );
    const { callId } = await client.callout({
      method: 'ttsCallout',
      ttsCallout: { destination: { type: 'number', number: CALLEE }, text: 'Hi' },
    } as unknown as CalloutRequest);
    assert.equal((await record(callId)).callbacks.length, 0, 'no ACE or DiCE unless enabled');
    assert.deepEqual((await client.getCall(callId)).to, { type: 'number', endpoint: CALLEE } as unknown);
    assert.equal(((await control('GET', '/calls')).body as unknown[]).length, 1);
  });

  test('call updates: legs take only playFiles and say; PATCH before the answer is refused, continue changes nothing, hangup ends', async () => {
    await control('PUT', '/callees', { rules: [{ suffix: '9999', outcome: 'answer', answerAfterMs: 3000 }] });
    const slow = await client.callout(tts('+46701239999'));
    await assert.rejects(
      client.updateCall(slow.callId, { action: { name: 'hangup' } }),
      (e: unknown) => e instanceof PlatformValidationError && /not answered/.test(e.message),
    );
    await control('POST', `/calls/${slow.callId}/hangup`);

    const { callId } = await client.callout(conferenceCallout(CALLEE, 'room-2'));
    await participantsOf('room-2', 'global', 1);
    await assert.rejects(
      client.updateCallLeg(callId, 'caller', [{ name: 'hangup' as 'say' }]),
      (e: unknown) => e instanceof PlatformValidationError && /only playFiles and say/.test(e.message),
    );
    await assert.rejects(
      client.updateCall(callId, { action: { name: 'runMenu' } }),
      (e: unknown) => e instanceof PlatformValidationError && /action\.name/.test(e.message),
    );
    await client.updateCallLeg(callId, 'callee', [{ name: 'say', text: 'Hello leg' }]);
    await client.updateCall(callId, { action: { name: 'continue' } });
    assert.equal((await record(callId)).phase, 'conference', 'continue changed nothing');
    await client.updateCall(callId, { instructions: [{ name: 'say', text: 'Bye' }], action: { name: 'hangup' } });
    const dice = await rx.next(callId, 'dice');
    assert.deepEqual([dice.body.result, dice.body.reason], ['ANSWERED', 'MANAGERHANGUP']);
    const r = await record(callId);
    assert.deepEqual(
      r.played.map((p) => [p.text, p.source, p.leg]),
      [
        ['Hello leg', 'leg', 'callee'],
        ['Bye', 'patch', undefined],
      ],
    );
    await assert.rejects(client.updateCall(callId, { action: { name: 'hangup' } }), PlatformNotFoundError, 'an ended call');
    assert.deepEqual((await rx.next(slow.callId, 'dice')).body.reason, 'CALLEEHANGUP');
    assertSigned();
  });

  test('reset forgets calls and cancels their timers: a ringing call never sends its ACE', async () => {
    await control('PUT', '/callees', { rules: [{ suffix: '', outcome: 'answer', answerAfterMs: 300 }] });
    await client.callout(tts(CALLEE));
    assert.equal(((await control('GET', '/calls')).body as unknown[]).length, 1);
    await fetch(`${sb.url}/_sandbox/reset`, { method: 'POST' });
    assert.deepEqual((await control('GET', '/calls')).body, []);
    assert.deepEqual((await control('GET', '/callees')).body, { rules: [] });
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(rx.received.length, 0);
  });

  test('control routes refuse what they cannot use: bad rules, settings, digits; unknown calls', async () => {
    assert.equal((await control('PUT', '/callees', { rules: [{ suffix: '1', outcome: 'maybe' }] })).status, 400);
    assert.equal((await control('PUT', '/callees', { rules: [{ suffix: '1', outcome: 'answer', answerAfterMs: -5 }] })).status, 400);
    assert.equal((await control('PUT', '/settings', { sayMs: 'soon' })).status, 400);
    assert.equal((await control('PUT', '/settings', { ringMs: 5 })).status, 400);
    assert.deepEqual((await control('GET', '/settings')).body, { callbackTimeoutMs: 3000, noAnswerMs: 1000, sayMs: 300 }, 'nothing changed');
    assert.equal((await control('POST', '/calls/nope/dtmf', { digits: '1' })).status, 404);
    assert.equal((await control('POST', '/calls/nope/hangup')).status, 404);
    const { callId } = await client.callout(tts(CALLEE));
    assert.equal((await control('POST', `/calls/${callId}/dtmf`, { digits: 'x' })).status, 400);
    assert.equal((await control('POST', `/calls/${callId}/dtmf`, { digits: '1' })).status, 409, 'ringing, not in a menu');
    assert.equal((await control('POST', '/incoming', { from: 'me', to: OWN_NUMBER })).status, 400);
  });
});
