// The parts of the areas that keep their state in the kit's tables (sandbox/core/kept.ts, table.ts) rather than
// the maps they had: MMS saved templates and per-recipient counts, voice numbers' assignments, the verification
// dashboard's callback URL, a conversation's id per app and contact. A restart on the same dataDir keeps each,
// and what a client does with them afterwards behaves as if there had been no restart.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSandbox, type Sandbox } from '../../../sandbox/index.js';
import { account, bearerToken, client, savedStates, seedDataDir, tempDir, type Body } from '../../helpers/sandbox-persistence.js';

const P = account.projectId;
const CONV = `/conversation/eu/v1/projects/${P}`;
const NUMBERS = '/voice-config/v1/configuration/numbers';
/** The first voice number of the sandbox's first account. */
const VOICE_NUMBER = '+4685000101';
const RECIPIENT = '15551230002';

describe('sandbox persistence: the kit-kept parts after a restart', () => {
  const data = tempDir('sandbox-kept-');
  const open: Sandbox[] = [];
  before(() => seedDataDir(data.dir));
  after(async () => {
    for (const sb of open) await sb.close();
    data.remove();
  });
  const start = async () => {
    const sb = await createSandbox({ dataDir: data.dir });
    open.push(sb);
    await sb.listen();
    return sb;
  };

  test('MMS templates and counts, number assignments, the callback URL and conversation ids come back', async () => {
    const first = await start();
    const token = await bearerToken(first.url);
    const c1 = client(first.url, token);

    const saved = await c1.mms({
      action: 'savemms',
      'service-id': 'svc-1',
      'message-subject': 'Sale',
      'fallback-sms-text': 'See it',
      slide: [{ 'message-text': 'Hello' }],
    });
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    const mmsId = saved.body['mms-id'] as string;
    for (let i = 0; i < 2; i++) {
      const sent = await c1.mms({ action: 'sendsavedmms', 'service-id': 'svc-1', to: RECIPIENT, 'mms-id': mmsId, 'fallback-sms-text': 'See it' });
      assert.equal(sent.status, 200, JSON.stringify(sent.body));
    }

    const assigned = await c1.signed('POST', NUMBERS, { numbers: [VOICE_NUMBER], applicationkey: account.appKey, capability: 'voice' });
    assert.equal(assigned.status, 200, JSON.stringify(assigned.body));
    assert.equal((await c1.control('PUT', '/verification/config', { callbackUrl: 'https://callbacks.example/verification' })).status, 200);

    const app = await c1.oauth('POST', `${CONV}/apps`, { display_name: 'kept conversations' });
    assert.equal(app.status, 200, JSON.stringify(app.body));
    const send = async (c: typeof c1, text: string) => {
      const sent = await c.oauth('POST', `${CONV}/messages:send`, {
        app_id: app.body.id,
        recipient: { identified_by: { channel_identities: [{ channel: 'SMS', identity: '+46700000456' }] } },
        message: { text_message: { text } },
      });
      assert.equal(sent.status, 200, JSON.stringify(sent.body));
      return (await c.oauth('GET', `${CONV}/messages/${sent.body.message_id}`)).body.conversation_id as string;
    };
    const conversationId = await send(c1, 'before');
    assert.ok(conversationId);
    await first.close();
    const before = savedStates(first);

    const second = await start();
    assert.deepEqual(savedStates(second), before, 'the restored state is the saved one');
    const c2 = client(second.url, token);

    // The saved MMS is still this account's: a send of it is accepted, and counted with the two before.
    const again = await c2.mms({ action: 'sendsavedmms', 'service-id': 'svc-1', to: RECIPIENT, 'mms-id': mmsId, 'fallback-sms-text': 'See it' });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal((await c2.control('GET', '/mms/recipients')).body.counts[RECIPIENT], 3);
    const stats = (await c2.control('GET', '/mms/stats')).body;
    assert.deepEqual([stats.accepted, stats.saved, stats.duplicateRecipients], [3, 1, 1]);

    const numbers = (await c2.signed('GET', NUMBERS)).body.numbers as Body[];
    assert.equal(numbers.find((n) => n.number === VOICE_NUMBER)?.applicationkey, account.appKey);
    assert.equal((await c2.control('GET', '/verification/config')).body.callbackUrl, 'https://callbacks.example/verification');
    assert.equal(await send(c2, 'after'), conversationId, 'the same app and contact, the same conversation');
  });
});
