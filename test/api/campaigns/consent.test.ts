// Replies and consent against the sandbox, the store and the real Temporal server: a recipient replies STOP through
// the sandbox's phone, the next campaign to that app refuses it (suppressed, counted, never sent) and sends to the
// others; START takes it off and a later campaign sends to it again. The reply's time decides between a STOP and a
// START; a repeated webhook changes nothing twice; the suppression routes name the field of bad input; and the
// campaign's history and the API's and worker's logs hold no number.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { conversationWebhookSignature, CONVERSATION_WEBHOOK_HEADERS } from '../../../common/signing.js';
import { SANDBOX_CONVERSATION_WEBHOOK_SECRET } from '../../../common/config.js';
import { createLogger } from '../../../common/logger.js';
import { startHarness, type Harness } from '../../helpers/harness.js';
import { createApp, sandboxJson, waitForCampaignView } from '../../helpers/campaigns.js';
import { pollUntil } from '../../helpers/deadline.js';

const enc = encodeURIComponent;

/** Swedish mobiles used only here. */
const A = '+46700071001';
const B = '+46700071002';
const C = '+46700071003';
const D = '+46700071004';
const E = '+46700071005';

interface CampaignView {
  state: string;
  counts: { sent: number; suppressed: number; reasons: { reason: string; count: number }[] };
}
interface Entry {
  number: string;
  source: string;
  since: string;
}

describe('replies and consent', () => {
  let h: Harness;
  let appId: string;
  let logs = '';
  const logger = createLogger({
    name: 'consent-test',
    level: 'info',
    destination: new Writable({
      write(chunk: Buffer, _enc, done) {
        logs += chunk.toString('utf8');
        done();
      },
    }),
  });
  before(async () => {
    h = await startHarness({ env: { RELAYFLOW_CAMPAIGN_CHUNK_SIZE: '50' }, logger });
    appId = await createApp(h, 100);
  });
  after(async () => h?.close());

  const campaign = async (recipients: string[]) => {
    const res = await h.api({ method: 'POST', url: '/v1/campaigns/conversation', payload: { appId, region: 'eu', message: { text: 'Sale on' }, recipients } });
    assert.equal(res.statusCode, 202, res.body);
    const { processId } = res.json<{ processId: string }>();
    const done = await waitForCampaignView<CampaignView>(h, processId, (v) => ['COMPLETED', 'FAILED'].includes(v.state));
    assert.equal(done.state, 'COMPLETED');
    return { processId, done };
  };
  const list = async (app = appId) => {
    const res = await h.api({ method: 'GET', url: `/v1/apps/${app}/suppressions?pageSize=1000` });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ suppressions: Entry[] }>().suppressions;
  };
  const reply = (from: string, text: string) => sandboxJson(h, 'POST', `/_sandbox/conversation/apps/${appId}/inbound`, { from, text });
  const accepted = async () => (await sandboxJson<{ counts: Record<string, number> }>(h, 'GET', `/_sandbox/conversation/recipients?appId=${appId}`)).counts;
  const waitForList = (ok: (l: Entry[]) => boolean, what: string) =>
    pollUntil(
      async () => {
        const l = await list();
        return ok(l) ? l : undefined;
      },
      what,
      15_000,
      50,
    );

  /** A signed MESSAGE_INBOUND as the platform sends it, straight to the API. */
  const inbound = (o: { id: string; from: string; text: string; at: string }) => {
    const raw = JSON.stringify({
      app_id: appId,
      accepted_time: new Date().toISOString(),
      event_time: new Date().toISOString(),
      project_id: 'p',
      message: {
        id: o.id,
        direction: 'TO_APP',
        contact_message: { text_message: { text: o.text } },
        channel_identity: { channel: 'SMS', identity: o.from.slice(1), app_id: appId },
        accept_time: o.at,
      },
    });
    const nonce = randomUUID();
    const timestamp = String(Math.floor(Date.now() / 1000));
    const hd = CONVERSATION_WEBHOOK_HEADERS;
    return h.app.inject({
      method: 'POST',
      url: '/callbacks/conversation',
      payload: raw,
      headers: {
        'content-type': 'application/json',
        [hd.nonce]: nonce,
        [hd.timestamp]: timestamp,
        [hd.algorithm]: 'HmacSHA256',
        [hd.signature]: conversationWebhookSignature(SANDBOX_CONVERSATION_WEBHOOK_SECRET, raw, nonce, timestamp),
      },
    });
  };

  test('a recipient who replied STOP is refused by the next campaign and counted as suppressed; START lets it back', async () => {
    // The first campaign wires the app's webhook (delivery reports and replies).
    const first = await campaign([A, B, C]);
    assert.equal(first.done.counts.sent, 3);

    const stopped = await reply(A, '  sToP ');
    assert.ok(stopped.messageId);
    const entries = await waitForList((l) => l.length === 1, 'the STOP on the list');
    assert.equal(entries[0]!.number, A);
    assert.equal(entries[0]!.source, 'reply');
    // Free text is acknowledged and dropped: nobody else is listed.
    await reply(B, 'stop sending me these please');

    const second = await campaign([A, B, C]);
    assert.equal(second.done.counts.sent, 2);
    assert.equal(second.done.counts.suppressed, 1);
    assert.ok(second.done.counts.reasons.some((r) => /suppression list/.test(r.reason) && r.count === 1));
    const page = await h.api({ method: 'GET', url: `/v1/campaigns/${enc(second.processId)}/recipients?status=suppressed` });
    assert.equal(page.statusCode, 200, page.body);
    assert.deepEqual(
      page.json<{ recipients: { seq: number; attempts: number }[] }>().recipients.map((r) => [r.seq, r.attempts]),
      [[0, 0]],
    );
    assert.deepEqual(await accepted(), { [A]: 1, [B]: 2, [C]: 2 });
    assert.equal((await list()).length, 1);

    // No number in the campaign's history (payloads are encrypted; nothing else may carry one either).
    const history = JSON.stringify(await h.client.workflow.getHandle(second.processId).fetchHistory(), (_k, v: unknown) =>
      v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v,
    );
    for (const n of [A, B, C]) {
      assert.ok(!history.includes(n.slice(3)), `${n} in the history`);
      assert.ok(!history.includes(Buffer.from(n).toString('base64').slice(0, 12)), `${n} (base64) in the history`);
    }

    await reply(A, 'START');
    await waitForList((l) => l.length === 0, 'the START off the list');
    const third = await campaign([A, B, C]);
    assert.equal(third.done.counts.sent, 3);
    assert.equal(third.done.counts.suppressed, 0);
    assert.deepEqual(await accepted(), { [A]: 2, [B]: 3, [C]: 3 });
  });

  test("the reply's time decides: a late STOP older than a START does not suppress again", async () => {
    const t = Date.now();
    const at = (s: number) => new Date(t + s * 1000).toISOString();
    const stop = await inbound({ id: `01${randomUUID().replace(/-/g, '').slice(0, 24).toUpperCase()}`, from: D, text: 'STOP', at: at(1) });
    assert.equal(stop.statusCode, 200, stop.body);
    assert.equal(stop.json().outcome, 'opt_out');
    const start = await inbound({ id: `02${randomUUID().replace(/-/g, '').slice(0, 24).toUpperCase()}`, from: D, text: 'unstop', at: at(3) });
    assert.equal(start.json().outcome, 'opt_in');
    // An older STOP (another message) arriving last: stale, the START stands.
    const late = await inbound({ id: `03${randomUUID().replace(/-/g, '').slice(0, 24).toUpperCase()}`, from: D, text: 'Stop', at: at(2) });
    assert.equal(late.statusCode, 200, late.body);
    assert.equal(late.json().outcome, 'stale');
    assert.equal(late.json().suppressed, false);
    assert.ok(!(await list()).some((e) => e.number === D));
  });

  test('a repeated inbound webhook changes nothing twice', async () => {
    // Directly: the same message again (a new signature) is a duplicate, answered so, and the entry keeps its time.
    const id = `04${randomUUID().replace(/-/g, '').slice(0, 24).toUpperCase()}`;
    const msg = { id, from: E, text: 'QUIT', at: new Date().toISOString() };
    assert.equal((await inbound(msg)).json().outcome, 'opt_out');
    const before = (await list()).find((e) => e.number === E);
    assert.ok(before);
    const again = await inbound(msg);
    assert.equal(again.statusCode, 200);
    assert.deepEqual(again.json(), { duplicate: true });
    assert.deepEqual(
      (await list()).find((e) => e.number === E),
      before,
    );

    // Through the sandbox: its webhook faults send the next reply twice; the list changes once.
    await h.api({ method: 'DELETE', url: `/v1/apps/${appId}/suppressions/${enc(E)}` });
    await sandboxJson(h, 'PUT', '/_sandbox/conversation/webhook-faults', { duplicate: 1 });
    await reply(E, 'unsubscribe');
    const counts = await pollUntil(
      async () => {
        const c = await sandboxJson<{ duplicated: number; made: number }>(h, 'GET', '/_sandbox/conversation/inbound');
        const l = await list();
        return c.duplicated >= 1 && l.some((e) => e.number === E) ? c : undefined;
      },
      'the duplicated reply',
      15_000,
      50,
    );
    assert.ok(counts.duplicated >= 1);
    assert.equal((await list()).filter((e) => e.number === E).length, 1);
    await sandboxJson(h, 'PUT', '/_sandbox/conversation/webhook-faults', {});
    const metrics = await (await fetch(`${h.apiUrl}/metrics`)).text();
    assert.match(metrics, /relayflow_callbacks_total\{kind="conversation",outcome="duplicate"\} [1-9]/);
  });

  test('the suppression routes: add (idempotent), read paged, remove; bad input names the field', async () => {
    const other = await createApp(h, 10);
    const put = (n: string) => h.api({ method: 'PUT', url: `/v1/apps/${other}/suppressions/${enc(n)}` });
    const added = await put('+46 70 007 10 06');
    assert.equal(added.statusCode, 201, added.body);
    assert.equal(added.json().number, '+46700071006');
    assert.equal(added.json().source, 'api');
    assert.equal((await put('+46700071006')).statusCode, 200);
    assert.equal((await put('+46700071007')).statusCode, 201);

    const page1 = await h.api({ method: 'GET', url: `/v1/apps/${other}/suppressions?pageSize=1` });
    assert.equal(page1.json().suppressions.length, 1);
    const page2 = await h.api({ method: 'GET', url: `/v1/apps/${other}/suppressions?pageSize=1&pageToken=${page1.json().nextPageToken}` });
    assert.equal(page2.json().suppressions.length, 1);
    assert.notEqual(page2.json().suppressions[0].number, page1.json().suppressions[0].number);
    const page3 = await h.api({ method: 'GET', url: `/v1/apps/${other}/suppressions?pageSize=1&pageToken=${page2.json().nextPageToken}` });
    assert.deepEqual(page3.json(), { suppressions: [], nextPageToken: '' });
    // Another app's list is its own.
    assert.ok(!(await list()).some((e) => e.number === '+46700071006'));

    const bad = await put('12345');
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().error.details[0].field, 'path.number');
    const badApp = await h.api({ method: 'PUT', url: `/v1/apps/not-an-app/suppressions/${enc(A)}` });
    assert.equal(badApp.statusCode, 400);
    assert.equal(badApp.json().error.details[0].field, 'path.appId');
    const badToken = await h.api({ method: 'GET', url: `/v1/apps/${other}/suppressions?pageToken=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA` });
    assert.equal(badToken.statusCode, 400);
    assert.equal(badToken.json().error.details[0].field, 'query.pageToken');

    assert.equal((await h.api({ method: 'DELETE', url: `/v1/apps/${other}/suppressions/${enc('+46700071006')}` })).statusCode, 204);
    assert.equal((await h.api({ method: 'DELETE', url: `/v1/apps/${other}/suppressions/${enc('+46700071006')}` })).statusCode, 404);
    assert.deepEqual(
      (await list(other)).map((e) => e.number),
      ['+46700071007'],
    );
  });

  test("no number in the API's or the worker's logs", () => {
    // The suppression routes' requests and the replies' callbacks were logged (their numbers masked).
    assert.match(logs, /\/suppressions\//);
    assert.match(logs, /callbacks\/conversation/);
    for (const n of [A, B, C, D, E, '+46700071006', '+46700071007']) assert.ok(!logs.includes(n.slice(3)), `${n} in the logs`);
  });
});
