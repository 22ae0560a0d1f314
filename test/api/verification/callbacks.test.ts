// POST /callbacks/verification: signature first, then one schema per event (400 naming the field; extra
// fields allowed); both names of the SMS receipt; an unknown event is acknowledged and changes nothing; a Successful
// receipt the store cannot take is a 503 (the platform sends it again).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildApp } from '../../../api/app.js';
import { AesGcmPayloadCodec } from '../../../common/codec.js';
import { createLogger } from '../../../common/logger.js';
import { openCampaignStore } from '../../../store/index.js';
import { useHarness, setSandboxVerificationConfig } from '../../helpers/harness.js';
import { freshStoreSnapshot } from '../../helpers/store-snapshot.js';
import { freshNumber, platformStarts, postCallback, signedCallback, startVerification, statusOf } from '../../helpers/verification.js';

describe('verification callbacks', () => {
  const h = useHarness();

  /** A running SMS process and the fields its callbacks carry. */
  async function running() {
    const identity = freshNumber();
    const s = await startVerification(h, { identity, method: 'sms', reference: 'order-1' });
    const custom = (await platformStarts(h, identity))[0]!.custom!;
    return { s, base: { id: s.current!.verificationId, method: 'sms', identity: { type: 'number', endpoint: identity }, reference: 'order-1', custom } };
  }

  test('a signed body that breaks its event schema is a 400 naming the field; an unsigned one is a 401 first', async () => {
    const { base } = await running();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...base, event: 'VerificationResultEvent', id: undefined, status: 'SUCCESSFUL' }, 'body.id'],
      [{ ...base, event: 'VerificationResultEvent' }, 'body.status'],
      [{ ...base, event: 'VerificationSmsDeliveredEvent', smsResult: 'Maybe' }, 'body.smsResult'],
      [{ ...base, event: 'VerificationRequestEvent', identity: {} }, 'body.identity.endpoint'],
      [{ ...base }, 'body.event'],
    ];
    for (const [body, field] of cases) {
      const res = await postCallback(h, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      const { error } = (await res.json()) as { error: { details: { field: string }[] } };
      assert.ok(
        error.details.some((d) => d.field === field),
        `${field}: ${JSON.stringify(error)}`,
      );
    }
    const unsigned = await fetch(`${h.apiUrl}/callbacks/verification`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ event: 'VerificationResultEvent' }),
    });
    assert.equal(unsigned.status, 401);
  });

  test('an unknown event is acknowledged and changes nothing, even for a relayflow process', async () => {
    const { s, base } = await running();
    const res = await postCallback(h, { ...base, event: 'VerificationSomethingNewEvent', status: 'FAIL', reason: 'Expired' });
    assert.equal(res.status, 200);
    await new Promise((r) => setTimeout(r, 300));
    const view = await statusOf(h, s.processId);
    assert.equal(view.state, 'PENDING');
    assert.equal((view.details.platformVerifications as { status: string }[])[0]!.status, 'PENDING');
  });

  for (const event of ['SmsDeliveredEvent', 'VerificationSmsDeliveredEvent']) {
    test(`${event} Failed ends the SMS step`, async () => {
      const { s, base } = await running();
      const res = await postCallback(h, { ...base, event, smsResult: 'Failed' });
      assert.equal(res.status, 200);
      const ended = await h.waitForState(s.processId, 'FAIL');
      assert.match((ended.history as { reason?: string }[]).at(-1)!.reason!, /SMS delivery failure/);
    });
  }

  test('a Successful receipt the store cannot take is a 503, so the platform sends it again; the store back, it is taken', async () => {
    const { s, base } = await running();
    // An API instance whose store is down (its database closed under it).
    const store = await openCampaignStore({ dataDir: '', inMemory: true, embeddedFrom: await freshStoreSnapshot() });
    const logger = createLogger({ name: 'test', level: 'silent' });
    const app = await buildApp({ config: h.config, client: h.client, codec: new AesGcmPayloadCodec(h.config.codecKeys), logger, store });
    try {
      await store.sql.close();
      const receipt = { ...base, event: 'VerificationSmsDeliveredEvent', smsResult: 'Successful' };
      const { path, raw, headers } = await signedCallback(h.config.platform.credentials, receipt);
      const down = await app.inject({ method: 'POST', url: path, headers, payload: raw });
      assert.equal(down.statusCode, 503, down.body);
      assert.ok(down.headers['retry-after'], 'with Retry-After');
      // The platform's retry reaches an instance whose store answers.
      assert.equal((await postCallback(h, receipt)).status, 200);
      const rows = await h.store.sql.query('SELECT event_id FROM relayflow_sms_receipts WHERE process_id = $1', [s.processId]);
      assert.equal(rows.length, 1);
    } finally {
      await app.close();
    }
  });

  test("the sandbox's receipt under either name reaches the process", async () => {
    for (const name of ['SmsDeliveredEvent', 'VerificationSmsDeliveredEvent']) {
      await setSandboxVerificationConfig(h.sandbox.url, { smsDeliveredEventName: name });
      const { s } = await running();
      let view = await statusOf(h, s.processId);
      for (let i = 0; i < 50 && !view.details.smsDelivery; i++) {
        await new Promise((r) => setTimeout(r, 100));
        view = await statusOf(h, s.processId);
      }
      assert.equal(view.details.smsDelivery, 'Successful', name);
    }
  });
});
