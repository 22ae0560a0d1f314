// The voice client against the sandbox's configuration address (sandbox/areas/voice-config/): both sides of
// docs/voice-wire.md "Configuration" agree, and what the sandbox refuses comes back as the voice error family.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SANDBOX_CREDENTIALS } from '../../../common/config.js';
import { ApplicationSignedAuth } from '../../../platform/auth/application.js';
import { PlatformHttp } from '../../../platform/http.js';
import { PlatformAuthError, PlatformValidationError } from '../../../platform/errors.js';
import { VoiceClient } from '../../../platform/voice/client.js';
import { createSandbox, type Sandbox } from '../../../sandbox/index.js';
import { sandboxClients } from '../../helpers/sandbox-clients.js';

describe("voice client against the sandbox's configuration address", () => {
  let sb: Sandbox;
  let client: VoiceClient;

  before(async () => {
    sb = await createSandbox();
    await sb.listen();
    client = sandboxClients(sb).voice;
  });
  after(async () => sb?.close());

  test("the account's numbers, assigned to the application and back", async () => {
    const before = await client.numbers();
    assert.deepEqual(
      before.map((n) => [n.number, n.capability, n.applicationKey]),
      [
        ['+4685000101', 'voice', undefined],
        ['+4685000102', 'voice', undefined],
        ['+4685000103', 'voice', undefined],
        ['+4685000109', 'sms', undefined],
      ],
    );
    await client.assignNumbers(['+4685000101', '+4685000102']);
    assert.deepEqual(
      (await client.numbers()).filter((n) => n.applicationKey === SANDBOX_CREDENTIALS.appKey).map((n) => n.number),
      ['+4685000101', '+4685000102'],
    );
    await client.unassignNumber('+4685000102');
    assert.deepEqual(
      (await client.numbers()).filter((n) => n.applicationKey).map((n) => n.number),
      ['+4685000101'],
    );
  });

  test('numbers the account does not own with that capability, or not assigned, are refused (40001) and change nothing', async () => {
    const before = await client.numbers();
    await assert.rejects(
      client.assignNumbers(['+46899999999']),
      (e: unknown) => e instanceof PlatformValidationError && /not numbers of this account/.test(e.message),
    );
    await assert.rejects(client.assignNumbers(['+4685000109']), (e: unknown) => e instanceof PlatformValidationError, 'an SMS number is not a voice number');
    await assert.rejects(client.unassignNumber('+4685000103'), (e: unknown) => e instanceof PlatformValidationError && /not assigned/.test(e.message));
    assert.deepEqual(await client.numbers(), before);
  });

  test('callback URLs: set, read back; a URL that is not absolute http(s) is refused', async () => {
    await client.setCallbackUrls({ primary: 'https://relayflow.test/callbacks/voice', fallback: 'http://backup.test/voice' });
    assert.deepEqual(await client.callbackUrls(), { primary: 'https://relayflow.test/callbacks/voice', fallback: 'http://backup.test/voice' });
    await assert.rejects(
      client.setCallbackUrls({ primary: '/callbacks/voice' }),
      (e: unknown) => e instanceof PlatformValidationError && /url.primary/.test(e.message),
    );
    assert.equal((await client.callbackUrls())?.primary, 'https://relayflow.test/callbacks/voice');
  });

  test('a request signed with the wrong secret is refused with 40102', async () => {
    const wrong = new VoiceClient({
      http: new PlatformHttp({ timeoutMs: 5000 }),
      baseUrl: sb.platformUrls().voice,
      configUrl: sb.platformUrls().voiceConfig,
      auth: new ApplicationSignedAuth(SANDBOX_CREDENTIALS.appKey, Buffer.from('not-the-sandbox-secret-32-bytes!').toString('base64')),
      applicationKey: () => SANDBOX_CREDENTIALS.appKey,
    });
    await assert.rejects(wrong.numbers(), (e: unknown) => e instanceof PlatformAuthError && /40102|signature/i.test(`${e.code} ${e.message}`));
  });
});
