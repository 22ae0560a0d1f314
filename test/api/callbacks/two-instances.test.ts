// Every callback intake, on two API instances (two buildApp, each with its own Temporal connection and pool) on one
// PostgreSQL database, as a deployment runs them behind a front: a callback delivered at the first and repeated at
// the second is applied once. The process (or the campaign's counts) sees it once, the repeat is answered as one, and
// a voice ICE repeated gets the answer the first delivery got; a Notify and a DiCE no plan covers reach it once too. A delivery the API could not hand over (503) leaves no
// claim behind: the platform's retry is taken.
import assert from 'node:assert/strict';
import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { after, before, describe, test } from 'node:test';
import { ulid } from 'ulid';
import { buildApp } from '../../../api/app.js';
import { AesGcmPayloadCodec } from '../../../common/codec.js';
import { createLogger } from '../../../common/logger.js';
import { CONVERSATION_WEBHOOK_HEADERS, conversationWebhookSignature, signApplicationRequest, signSenderIdCallback } from '../../../common/signing.js';
import {
  CONVERSATION_WEBHOOK_PATH,
  MMS_POSTBACK_PATH,
  PROVISIONING_WEBHOOK_PATH,
  SENDERID_CALLBACK_PATH,
  VERIFICATION_CALLBACK_PATH,
  VOICE_CALLBACK_PATH,
} from '../../../contracts/callbacks.js';
import { workflowIds } from '../../../processes/kinds.js';
import { processStatusQuery } from '../../../contracts/process-status.js';
import { inboxQuery, type ResourceRef } from '../../../processes/provisioning/contract.js';
import { senderIdCallbackRelayId } from '../../../processes/senderid/senderid-registration/contract.js';
import { useHarness, uniqueName, type Harness } from '../../helpers/harness.js';
import { startPostgres, type TestPostgres } from '../../helpers/postgres.js';
import { commentEvent, signedDelivery } from '../../helpers/provisioning.js';
import { secondApiInstance } from '../../helpers/second-api.js';
import { sharedDatabaseUrl } from '../../helpers/shared-postgres.js';
import { freshNumber } from '../../helpers/verification.js';
import { eventually } from '../../helpers/voice.js';

describe('a callback repeated at a second API instance is applied once', () => {
  let url = '';
  let own: TestPostgres | undefined;
  before(async () => {
    url = (await sharedDatabaseUrl()) ?? (own = await startPostgres()).url;
  });
  const h: Harness = useHarness(() => ({ env: { RELAYFLOW_DATABASE_URL: url } }));
  const second = secondApiInstance(h, () => url);
  after(async () => {
    await own?.stop();
  });

  type Delivery = { url: string; payload: string; headers: Record<string, string> };
  const at = (app: FastifyInstance, d: Delivery) => app.inject({ method: 'POST', ...d });
  /** The first delivery at one instance, the repeat at the other: both answers. */
  async function twice(first: () => Delivery, again: () => Delivery = first): Promise<[LightMyRequestResponse, LightMyRequestResponse]> {
    const a = await at(h.app, first());
    assert.equal(a.statusCode, 200, a.body);
    const b = await at(second.app, again());
    assert.equal(b.statusCode, 200, b.body);
    return [a, b];
  }
  const seenRows = async (intake: string) =>
    await second.store.sql.query<{ event_id: string; handed: boolean }>(
      'SELECT event_id, handed_at IS NOT NULL AS handed FROM relayflow_seen_callbacks WHERE intake = $1',
      [intake],
    );
  /** Signals the workflow took (a signal-with-start's included), from its history. */
  async function signalsOf(workflowId: string): Promise<number> {
    let n = 0;
    const history = await h.client.workflow.getHandle(workflowId).fetchHistory();
    for (const e of history.events ?? []) if (e.workflowExecutionSignaledEventAttributes) n++;
    return n;
  }
  const applicationSigned = (path: string, body: unknown): Delivery => {
    const payload = JSON.stringify(body);
    const { appKey, appSecret } = h.config.platform.credentials;
    return {
      url: path,
      payload,
      headers: signApplicationRequest({ appKey, appSecret, method: 'POST', path, contentType: 'application/json; charset=UTF-8', body: payload }),
    };
  };

  test('provisioning: the resource inbox gets the event once; the repeat (a new nonce) is answered as a duplicate', async () => {
    const resource: ResourceRef = { channel: 'RCS', resourceType: 'SENDER', resourceId: ulid() };
    const event = commentEvent(resource, 1);
    const secret = h.config.api.provisioningWebhookSecret!;
    const [, repeat] = await twice(() => ({ url: PROVISIONING_WEBHOOK_PATH, ...signedDelivery(secret, event) }));
    assert.deepEqual(repeat.json(), { duplicate: true });
    const inboxId = workflowIds.resourceInbox(resource.channel, resource.resourceType, resource.resourceId);
    const inbox = await h.client.workflow.getHandle(inboxId).query(inboxQuery);
    assert.deepEqual([inbox.received, inbox.duplicates], [1, 0]);
    assert.equal(await signalsOf(inboxId), 1);
    assert.deepEqual(
      (await seenRows('provisioning')).filter((r) => r.event_id === event.eventId),
      [{ event_id: event.eventId, handed: true }],
    );
  });

  test('provisioning: a delivery the API could not hand over (Temporal away) leaves no claim; the retry at the other instance is taken', async () => {
    const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
    await connection.close();
    const down = await buildApp({
      config: h.config,
      client: new Client({ connection }),
      codec: new AesGcmPayloadCodec(h.config.codecKeys),
      logger: createLogger({ name: 'test', level: 'silent' }),
      store: second.store,
    });
    try {
      const resource: ResourceRef = { channel: 'RCS', resourceType: 'SENDER', resourceId: ulid() };
      const event = commentEvent(resource, 1);
      const delivery = () => ({ url: PROVISIONING_WEBHOOK_PATH, ...signedDelivery(h.config.api.provisioningWebhookSecret!, event) });
      const failed = await at(down, delivery());
      assert.equal(failed.statusCode, 503, failed.body);
      assert.ok(failed.headers['retry-after']);
      assert.deepEqual(
        (await seenRows('provisioning')).filter((r) => r.event_id === event.eventId),
        [],
        'the claim was removed',
      );
      const retried = await at(second.app, delivery());
      assert.equal(retried.statusCode, 200, retried.body);
      assert.deepEqual(retried.json(), {}, 'taken, not a duplicate');
      const inbox = await h.client.workflow.getHandle(workflowIds.resourceInbox('RCS', 'SENDER', resource.resourceId)).query(inboxQuery);
      assert.equal(inbox.received, 1);
    } finally {
      await down.close();
    }
  });

  test("sender ID: the registration's relay gets the hint once, in one run", async () => {
    const registrationId = uniqueName('reg-twice');
    const body = { eventId: uniqueName('evt'), eventType: 'REGISTRATION_STATE_CHANGED', registrationId, registrationState: 'IN_PROGRESS' };
    const payload = JSON.stringify(body);
    const secret = h.config.api.senderIdCallbackSecrets[0]!;
    const delivery = () => ({
      url: SENDERID_CALLBACK_PATH,
      payload,
      headers: { 'content-type': 'application/json', ...signSenderIdCallback(secret, payload) },
    });
    const relay = h.client.workflow.getHandle(senderIdCallbackRelayId(h.config.platform.credentials.projectId, registrationId));
    const first = await at(h.app, delivery());
    assert.equal(first.statusCode, 200, first.body);
    const { runId } = await relay.describe();
    const repeat = await at(second.app, delivery());
    assert.equal(repeat.statusCode, 200, repeat.body);
    assert.deepEqual(repeat.json(), { duplicate: true });
    // The platform does not know the registration: the relay ends, and a second hint would have started a second run.
    await eventually('the relay ended', async () => ((await relay.describe()).status.name !== 'RUNNING' ? true : undefined));
    assert.equal((await relay.describe()).runId, runId, 'one run');
    assert.equal(await signalsOf(relay.workflowId), 1);
  });

  test("verification: an SDK verification's request gets the same answer twice and its process gets each event once", async () => {
    const verificationId = `sdk-${ulid()}`;
    const base = { id: verificationId, method: 'sms', identity: { type: 'number', endpoint: freshNumber() } };
    const [asked, askedAgain] = await twice(() => applicationSigned(VERIFICATION_CALLBACK_PATH, { ...base, event: 'VerificationRequestEvent' }));
    assert.deepEqual(asked.json(), { action: 'allow' });
    assert.deepEqual(askedAgain.json(), asked.json(), 'the same answer');
    const [, resultAgain] = await twice(() =>
      applicationSigned(VERIFICATION_CALLBACK_PATH, { ...base, event: 'VerificationResultEvent', status: 'FAIL', reason: 'Expired' }),
    );
    assert.deepEqual(resultAgain.json(), { duplicate: true });
    const processId = workflowIds['sdk-verification'](verificationId);
    await h.waitForState(processId, 'FAIL');
    assert.equal(await signalsOf(processId), 2, 'the request and the result, once each');
  });

  test('conversation and MMS: a delivery report folded into its campaign once', async () => {
    const campaignId = ulid();
    await h.store.createCampaign({
      id: campaignId,
      processId: `campaign:${campaignId}`,
      kind: 'conversation-campaign',
      requestHash: 'h',
      recipients: [
        { seq: 0, recipient: '+46700000001', status: 'pending' },
        { seq: 1, recipient: '+46700000002', status: 'pending' },
      ],
      total: 2,
      duplicates: 0,
    });
    const report = JSON.stringify({
      app_id: 'app',
      event_time: new Date().toISOString(),
      message_delivery_report: { message_id: ulid(), status: 'DELIVERED', metadata: `rf:${campaignId}:0` },
    });
    const conversation = (): Delivery => {
      const nonce = ulid();
      const timestamp = String(Math.floor(Date.now() / 1000));
      const k = CONVERSATION_WEBHOOK_HEADERS;
      return {
        url: CONVERSATION_WEBHOOK_PATH,
        payload: report,
        headers: {
          'content-type': 'application/json',
          [k.nonce]: nonce,
          [k.timestamp]: timestamp,
          [k.algorithm]: 'HmacSHA256',
          [k.signature]: conversationWebhookSignature(h.config.api.conversationWebhookSecret!, report, nonce, timestamp),
        },
      };
    };
    const [first, repeat] = await twice(conversation);
    assert.deepEqual([first.json(), repeat.json()], [{ accepted: true }, { duplicate: true }]);
    const postback = JSON.stringify({ code: 'N102', 'tracking-id': ulid(), 'client-reference': `rf:${campaignId}:1`, timestamp: new Date().toISOString() });
    const mms = (): Delivery => ({
      url: `${MMS_POSTBACK_PATH}/${h.config.api.mmsPostbackToken}`,
      payload: postback,
      headers: { 'content-type': 'application/json' },
    });
    const [mmsFirst, mmsRepeat] = await twice(mms);
    assert.deepEqual([mmsFirst.json(), mmsRepeat.json()], [{ accepted: true }, { duplicate: true }]);
    const reports = await second.store.sql.query<{ seq: number }>('SELECT seq FROM relayflow_delivery_reports WHERE campaign_id = $1 ORDER BY seq', [
      campaignId,
    ]);
    assert.deepEqual(
      reports.map((r) => r.seq),
      [0, 1],
    );
    assert.deepEqual((await second.store.counts(campaignId))?.delivery, { delivered: 2 });
    assert.equal((await seenRows('conversation')).length, 1);
    assert.equal((await seenRows('mms')).length, 1);
  });

  test('voice: a repeated ICE gets the same answer; the call and its end reach the process once', async () => {
    const callId = `twice-${ulid()}`;
    const ice = applicationSigned(VOICE_CALLBACK_PATH, { event: 'ice', callid: callId, cli: '+46700000009', to: { type: 'number', endpoint: '+4685000199' } });
    const [answered, again] = await twice(() => ice);
    assert.deepEqual(again.json(), answered.json(), 'the same SVAML');
    assert.equal(answered.json().action.name, 'hangup', 'no rule for the number: not in service');
    assert.equal(again.headers['x-relayflow-answered-by'], 'plan');
    const dice = applicationSigned(VOICE_CALLBACK_PATH, { event: 'dice', callid: callId, result: 'ANSWERED', reason: 'CALLERHANGUP' });
    await twice(() => dice);
    const handle = h.client.workflow.getHandle(workflowIds['voice-incoming'](callId));
    await eventually('the process ended on its DiCE', async () => ((await handle.describe()).status.name === 'COMPLETED' ? true : undefined));
    const details = (await handle.query(processStatusQuery)).details as { call: { answers: Array<{ event: string; by: string }> } };
    assert.deepEqual(
      details.call.answers.map((a) => [a.event, a.by]),
      [['ice', 'plan']],
    );
    const events = await second.store.sql.query<{ seq: number }>('SELECT seq FROM relayflow_voice_events WHERE call_id = $1', [callId]);
    assert.equal(events.length, 2, 'the ICE and the DiCE, once each');
  });

  test("voice: a callout's recording notification and the end of a call it did not plan reach it once", async () => {
    // A running workflow plays the callout: what reaches it is counted in its history.
    const own: ResourceRef = { channel: 'RCS', resourceType: 'SENDER', resourceId: ulid() };
    const stand = workflowIds.resourceInbox(own.channel, own.resourceType, own.resourceId);
    await h.client.workflow.start('resourceInbox', { workflowId: stand, taskQueue: h.config.taskQueue, args: [{ resource: own, idleMs: 3_600_000 }] });
    try {
      const callId = `callout-${ulid()}`;
      const custom = `rf:${stand}#1.1`;
      const notify = applicationSigned(VOICE_CALLBACK_PATH, { event: 'notify', type: 'recording_finished', callid: callId, custom, destination: 'rec.wav' });
      const [noted, notedAgain] = await twice(() => notify);
      assert.deepEqual([noted.json(), notedAgain.json()], [{}, {}], 'a Notify is answered 200 whatever becomes of it');
      const dice = applicationSigned(VOICE_CALLBACK_PATH, { event: 'dice', callid: callId, custom, result: 'ANSWERED', reason: 'CALLEEHANGUP' });
      await twice(() => dice);
      // A Notify's signal may land after its answer (it has the answer's deadline, then goes on).
      const signalled = await eventually('both signals', async () => ((await signalsOf(stand)) >= 2 ? signalsOf(stand) : undefined), 10_000);
      assert.equal(signalled, 2, 'the notification and the end, once each');
      assert.deepEqual(
        (await seenRows('voice')).filter((r) => r.event_id.includes(callId)).map((r) => r.handed),
        [true, true],
      );
    } finally {
      await h.client.workflow.getHandle(stand).terminate('test done');
    }
  });
});
