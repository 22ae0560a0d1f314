// The voice client against a stub that checks each request's application signature over the bytes received:
// paths, methods and bodies of docs/voice-wire.md, the calling address of a call taken from its ICE, and the
// platform's error codes as typed errors. And which SVAML answers each callback may take.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { ApplicationSignedAuth } from '../../../platform/auth/application.js';
import { PlatformHttp } from '../../../platform/http.js';
import { PlatformAuthError, PlatformNotFoundError, PlatformUnavailableError, PlatformValidationError } from '../../../platform/errors.js';
import { callingBaseOf, VoiceClient } from '../../../platform/voice/client.js';
import { legInstructionViolations, svamlViolations } from '../../../common/wire/voice-svaml.js';
import { APP_KEY, APP_SECRET, signedStub, type SignedSeen } from '../../helpers/platform-config.js';

const startStub = (t: TestContext, answer: (req: SignedSeen) => { status: number; body?: unknown }) => signedStub(t, answer);

const clientFor = (base: string, secret = APP_SECRET) =>
  new VoiceClient({
    http: new PlatformHttp({ timeoutMs: 2000 }),
    baseUrl: `${base}/global/`,
    configUrl: `${base}/config`,
    auth: new ApplicationSignedAuth(APP_KEY, secret),
    applicationKey: () => APP_KEY,
  });

test('callouts: signed POST of {method, <method>} to /calling/v1/callouts; the callId comes back', async (t) => {
  const stub = await startStub(t, () => ({ status: 200, body: { callId: 'call-1' } }));
  const client = clientFor(stub.base);
  const tts = {
    method: 'ttsCallout' as const,
    ttsCallout: { cli: '+46700000000', destination: { type: 'number' as const, endpoint: '+46701234567' }, locale: 'en-US', text: 'Hello', enableDice: true },
  };
  assert.deepEqual(await client.callout(tts), { callId: 'call-1' });
  // A conference's callouts go to its region's address.
  await client.callout(
    { method: 'conferenceCallout', conferenceCallout: { destination: { type: 'number', endpoint: '+46701234568' }, conferenceId: 'c1' } },
    { baseUrl: `${stub.base}/euc1` },
  );
  assert.deepEqual(
    stub.seen.map((s) => [s.method, s.url]),
    [
      ['POST', '/global/calling/v1/callouts'],
      ['POST', '/euc1/calling/v1/callouts'],
    ],
  );
  assert.deepEqual(stub.seen[0]!.body, tts);
});

test('a callout answered without a callId is an error, not a call', async (t) => {
  const stub = await startStub(t, () => ({ status: 200, body: {} }));
  await assert.rejects(
    clientFor(stub.base).callout({ method: 'customCallout', customCallout: { destination: { type: 'number', endpoint: '+46701234567' } } }),
    /without a callId/,
  );
});

test('calls and conferences: paths, methods and bodies; IDs are encoded', async (t) => {
  const stub = await startStub(t, (s) =>
    s.method === 'GET' && s.url.includes('/conferences/')
      ? { status: 200, body: { participants: [{ id: 'p1', muted: true }] } }
      : s.method === 'GET'
        ? { status: 200, body: { callId: 'a/b', status: 'ONGOING' } }
        : { status: 204 },
  );
  const client = clientFor(stub.base);
  assert.equal((await client.getCall('a/b')).status, 'ONGOING');
  await client.updateCall('a/b', { action: { name: 'hangup' } });
  await client.updateCallLeg('a/b', 'callee', [{ name: 'say', text: 'hi', locale: 'en-US' }]);
  assert.deepEqual(await client.conference('c 1'), { participants: [{ id: 'p1', muted: true }] });
  await client.manageParticipant('c 1', 'p1', 'onhold', { moh: 'music1' });
  await client.removeParticipant('c 1', 'p1');
  await client.removeAllParticipants('c 1');
  assert.deepEqual(
    stub.seen.map((s) => [s.method, s.url, s.body]),
    [
      ['GET', '/global/calling/v1/calls/id/a%2Fb', undefined],
      ['PATCH', '/global/calling/v1/calls/id/a%2Fb', { action: { name: 'hangup' } }],
      ['PATCH', '/global/calling/v1/calls/id/a%2Fb/leg/callee', { instructions: [{ name: 'say', text: 'hi', locale: 'en-US' }] }],
      ['GET', '/global/calling/v1/conferences/id/c%201', undefined],
      ['PATCH', '/global/calling/v1/conferences/id/c%201/p1', { command: 'onhold', moh: 'music1' }],
      ['DELETE', '/global/calling/v1/conferences/id/c%201/p1', undefined],
      ['DELETE', '/global/calling/v1/conferences/id/c%201', undefined],
    ],
  );
});

test('configuration: numbers and callback URLs on the configuration address, by application key', async (t) => {
  const stub = await startStub(t, (s) => {
    if (s.method === 'GET' && s.url.endsWith('/numbers'))
      return {
        status: 200,
        body: {
          numbers: [
            { number: '+4681234', capability: 'voice', applicationkey: APP_KEY },
            { number: '+4685678', capability: 'sms' },
          ],
        },
      };
    if (s.method === 'GET') return { status: 200, body: { url: { primary: 'https://relayflow.test/callbacks/voice' } } };
    return { status: 200, body: {} };
  });
  const client = clientFor(stub.base);
  assert.deepEqual(await client.numbers(), [
    { number: '+4681234', capability: 'voice', applicationKey: APP_KEY },
    { number: '+4685678', capability: 'sms' },
  ]);
  await client.assignNumbers(['+4685678']);
  await client.unassignNumber('+4681234');
  assert.deepEqual(await client.callbackUrls(), { primary: 'https://relayflow.test/callbacks/voice' });
  await client.setCallbackUrls({ primary: 'https://relayflow.test/callbacks/voice', fallback: 'https://backup.test/voice' });
  assert.deepEqual(
    stub.seen.map((s) => [s.method, s.url, s.body]),
    [
      ['GET', '/config/v1/configuration/numbers', undefined],
      ['POST', '/config/v1/configuration/numbers', { numbers: ['+4685678'], applicationkey: APP_KEY, capability: 'voice' }],
      ['DELETE', '/config/v1/configuration/numbers', { number: '+4681234', applicationkey: APP_KEY, capability: 'voice' }],
      ['GET', `/config/v1/configuration/callbacks/applications/${APP_KEY}`, undefined],
      [
        'POST',
        `/config/v1/configuration/callbacks/applications/${APP_KEY}`,
        { url: { primary: 'https://relayflow.test/callbacks/voice', fallback: 'https://backup.test/voice' } },
      ],
    ],
  );
});

test("the platform's error codes come back as typed errors", async (t) => {
  const codes: Record<string, { status: number; body: unknown }> = {
    '/global/calling/v1/calls/id/bad': { status: 400, body: { errorCode: 40001, message: 'Invalid SVAML' } },
    '/global/calling/v1/calls/id/gone': { status: 404, body: { errorCode: 40400, message: 'Call not found' } },
    '/global/calling/v1/calls/id/busy': { status: 503, body: { errorCode: 50300, message: 'Try again' } },
  };
  const stub = await startStub(t, (s) => codes[s.url] ?? { status: 500, body: { errorCode: 50000, message: 'boom' } });
  const client = clientFor(stub.base);
  await assert.rejects(
    client.updateCall('bad', { action: { name: 'hangup' } }),
    (e: unknown) => e instanceof PlatformValidationError && /Invalid SVAML/.test(e.message),
  );
  await assert.rejects(client.getCall('gone'), (e: unknown) => e instanceof PlatformNotFoundError);
  await assert.rejects(client.getCall('busy'), (e: unknown) => e instanceof PlatformUnavailableError && e.retryable);
  // A wrong secret: the stub refuses the signature (40102).
  await assert.rejects(
    clientFor(stub.base, Buffer.from('another-secret-another-secret-32').toString('base64')).getCall('x'),
    (e: unknown) => e instanceof PlatformAuthError,
  );
});

test('an incoming call is managed on the address its ICE gave', () => {
  assert.equal(callingBaseOf('https://calling-euc1.api.sinch.com/calling/v1/calls/id/abc'), 'https://calling-euc1.api.sinch.com');
  assert.equal(callingBaseOf('http://127.0.0.1:4010/voice/euc1/calling/v1/calls/id/abc'), 'http://127.0.0.1:4010/voice/euc1');
  assert.equal(callingBaseOf('not a url'), undefined);
});

test('SVAML: exactly one action, legal for the event; instructions legal too', () => {
  assert.deepEqual(
    svamlViolations('ice', { instructions: [{ name: 'answer' }, { name: 'say', text: 'hi' }], action: { name: 'connectConf', conferenceId: 'c1' } }),
    [],
  );
  assert.deepEqual(svamlViolations('ace', { action: { name: 'continue' } }), []);
  assert.deepEqual(svamlViolations('pie', { action: { name: 'connectPstn', number: '+46701234567' } }), []);
  assert.deepEqual(svamlViolations('ice', { action: { name: 'continue' } }), ['action.name: continue is not allowed in answer to ICE']);
  assert.deepEqual(svamlViolations('ace', { action: { name: 'park' } }), ['action.name: park is not allowed in answer to ACE']);
  assert.deepEqual(svamlViolations('ace', { instructions: [{ name: 'answer' }], action: { name: 'continue' } }), [
    'instructions[0].name: answer is not allowed in answer to ACE',
  ]);
  assert.deepEqual(svamlViolations('ice', { instructions: [] }), ['action: exactly one action is required']);
  assert.deepEqual(svamlViolations('ice', { action: [{ name: 'hangup' }, { name: 'hangup' }] }), ['action: exactly one action is required']);
  assert.deepEqual(svamlViolations('pie', { action: { name: 'dance' } }), ['action.name: unknown action "dance"']);
  assert.deepEqual(svamlViolations('dice', { action: { name: 'hangup' } }), ['dice is answered with an empty body, not SVAML']);
});

test('a call leg takes only playFiles and say', () => {
  assert.deepEqual(
    legInstructionViolations([
      { name: 'say', text: 'hi' },
      { name: 'playFiles', ids: ['a'] },
    ]),
    [],
  );
  assert.deepEqual(legInstructionViolations([{ name: 'sendDtmf', value: '1' }]), ['instructions[0].name: only playFiles and say manage a call leg']);
  assert.deepEqual(legInstructionViolations([]), ['instructions: a non-empty list is required']);
});
