// Event subscriptions end to end on the real Temporal dev server, the sandbox and the store: every state change of a
// process reaches a subscriber, signed per Standard Webhooks (checked with its reference library), in order, with no
// phone number; a receiver that is down gets everything after it is back, in order; a redirect is not followed.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { Webhook } from 'standardwebhooks';
import { ProcessEventDelivery } from '../../../api/event-delivery-schema.js';
import { browse } from '../../helpers/browser.js';
import { pollUntil } from '../../helpers/deadline.js';
import { TEST_API_KEY, useHarness } from '../../helpers/harness.js';
import { eventually, startEventReceiver, type EventReceiver, type ReceivedEvent } from '../../helpers/event-receiver.js';
import { freshNumber, messageFor, report, startVerification } from '../../helpers/verification.js';

interface Delivered {
  type: string;
  timestamp: string;
  data: { eventId: string; processId: string; kind: string; state: string; previousState?: string; reason?: string; at: string; businessKey: string };
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
/** The body as the OpenAPI document's webhooks.processEvent describes it. */
const asDocumented = addFormats(new Ajv({ strict: false })).compile(ProcessEventDelivery);
const verified = (secret: string, e: ReceivedEvent): Delivered => {
  const body = new Webhook(secret).verify(e.body, e.headers as Record<string, string>) as Delivered;
  assert.ok(asDocumented(body), `the delivery agrees with the OpenAPI document: ${JSON.stringify(asDocumented.errors)}`);
  return body;
};

describe('process events', () => {
  const h = useHarness({ env: { RELAYFLOW_EVENTS_FIRST_RETRY_MS: '200' } });
  let receiver: EventReceiver;
  before(async () => {
    receiver = await startEventReceiver();
  });
  after(() => receiver.close());

  const subscribe = async (body: Record<string, unknown>) => {
    const res = await h.api({ method: 'POST', url: '/v1/event-subscriptions', payload: body });
    assert.equal(res.statusCode, 201, res.body);
    return res.json<{ id: string; secret: string; status: string }>();
  };
  // Each test's process is its own: other tests' deliveries (signed with other secrets) are left out before checking.
  const acceptedOf = (processId: string) => receiver.accepted.filter((e) => (JSON.parse(e.body) as Delivered).data.processId === processId);
  const eventsOf = (processId: string, secret: string) => acceptedOf(processId).map((e) => verified(secret, e));

  test("a verification's every state change arrives signed, in order, without the phone number", async () => {
    const sub = await subscribe({ url: receiver.url, kinds: ['verification'], description: 'verifications' });
    assert.match(sub.secret, /^whsec_/);
    const identity = freshNumber();
    const s = await startVerification(h, { identity, method: 'sms' });
    const sms = await messageFor(h, identity, s.current!.verificationId);
    assert.equal((await report(h, s.processId, sms.code!)).json().result, 'SUCCESSFUL');
    const done = await h.waitForState(s.processId, 'SUCCESSFUL');
    const states = (done.history as { state: string }[]).map((c) => c.state);
    const got = await eventually('every event of the verification', () => {
      const e = eventsOf(s.processId, sub.secret);
      return e.at(-1)?.data.state === 'SUCCESSFUL' ? e : undefined;
    });
    // Events tell the states listings show: the run starts STARTING, listed (and told) as PENDING, and a reason alone is no change.
    const listed = states.map((x) => (x === 'STARTING' ? 'PENDING' : x)).filter((x, i, a) => i === 0 || x !== a[i - 1]);
    assert.deepEqual(
      got.map((d) => d.data.state),
      listed,
    );
    assert.equal(got[0]!.type, 'process.started');
    assert.equal(got[0]!.data.previousState, undefined);
    for (let i = 1; i < got.length; i++) {
      assert.equal(got[i]!.type, 'process.state_changed');
      assert.equal(got[i]!.data.previousState, listed[i - 1]);
    }
    assert.equal(new Set(got.map((d) => d.data.eventId)).size, got.length, 'one event ID each');
    for (const e of receiver.accepted) assert.ok(!e.body.includes(identity.replace('+', '')), 'no phone number in any event');
    assert.equal(got[0]!.data.kind, 'verification');
    assert.equal(got[0]!.data.businessKey, s.processId.slice('verification:'.length));
    const log = await h.api({ method: 'GET', url: `/v1/event-subscriptions/${sub.id}/attempts` });
    assert.equal(log.statusCode, 200, log.body);
    assert.ok(log.json().attempts.some((a: { statusCode?: number }) => a.statusCode === 204));
    assert.equal((await h.api({ method: 'DELETE', url: `/v1/event-subscriptions/${sub.id}` })).statusCode, 204);
  });

  test('a receiver that is down gets every event once it is back, in order; the log shows the failures', async () => {
    const sub = await subscribe({ url: receiver.url, kinds: ['verification'] });
    receiver.answer({ status: 503 });
    const identity = freshNumber();
    const s = await startVerification(h, { identity, method: 'sms' });
    const sms = await messageFor(h, identity, s.current!.verificationId);
    await report(h, s.processId, sms.code!);
    await h.waitForState(s.processId, 'SUCCESSFUL');
    await eventually('failed attempts', () => (receiver.all.filter((e) => e.body.includes(s.processId)).length >= 3 ? true : undefined));
    assert.equal(eventsOf(s.processId, sub.secret).length, 0, 'nothing accepted while down');
    const view = (await h.api({ method: 'GET', url: `/v1/event-subscriptions/${sub.id}` })).json<{ failingSince?: string; pending: number }>();
    assert.ok(view.failingSince, 'the subscription says it is failing');
    assert.ok(view.pending >= 1);
    receiver.answer({ status: 200 });
    const got = await eventually('the events after the outage', () => {
      const e = eventsOf(s.processId, sub.secret);
      return e.at(-1)?.data.state === 'SUCCESSFUL' ? e : undefined;
    });
    assert.deepEqual(got.map((d) => d.data.state).slice(0, 1), ['PENDING']);
    const log = (await h.api({ method: 'GET', url: `/v1/event-subscriptions/${sub.id}/attempts` })).json<{ attempts: { statusCode?: number }[] }>();
    assert.ok(log.attempts.some((a) => a.statusCode === 503) && log.attempts.some((a) => a.statusCode === 200));
    const after = (await h.api({ method: 'GET', url: `/v1/event-subscriptions/${sub.id}` })).json<{ failingSince?: string; pending: number }>();
    assert.equal(after.failingSince, undefined);
    assert.equal(after.pending, 0);
    assert.equal((await h.api({ method: 'DELETE', url: `/v1/event-subscriptions/${sub.id}` })).statusCode, 204);
  });

  test("a redirect is not followed; replay delivers the kept events again; a rotated secret's old one still verifies", async () => {
    const target = await startEventReceiver();
    try {
      const sub = await subscribe({ url: receiver.url, kinds: ['verification'], states: ['SUCCESSFUL'] });
      receiver.answer({ status: 307, location: target.url });
      const identity = freshNumber();
      const s = await startVerification(h, { identity, method: 'sms' });
      await report(h, s.processId, (await messageFor(h, identity, s.current!.verificationId)).code!);
      await h.waitForState(s.processId, 'SUCCESSFUL');
      await eventually('a redirected attempt', () => (receiver.all.some((e) => e.body.includes(s.processId)) ? true : undefined));
      // The deliverer records the attempt once the answer is in: a moment after the receiver saw it.
      const attempts = async () =>
        (await h.api({ method: 'GET', url: `/v1/event-subscriptions/${sub.id}/attempts` })).json<{ attempts: { error?: string }[] }>().attempts;
      const [attempt] = await pollUntil(
        async () => {
          const kept = await attempts();
          return kept.length ? kept : undefined;
        },
        'the attempt recorded',
        15_000,
        50,
      );
      assert.match(attempt!.error!, /redirect .* not followed/);
      assert.equal(target.all.length, 0, 'the redirect target was never called');
      const rotated = await h.api({ method: 'POST', url: `/v1/event-subscriptions/${sub.id}/rotate-secret`, payload: { overlapSeconds: 600 } });
      assert.equal(rotated.statusCode, 200, rotated.body);
      receiver.answer({ status: 200 });
      const first = await eventually('the SUCCESSFUL event', () => eventsOf(s.processId, sub.secret)[0]);
      assert.equal(first.data.state, 'SUCCESSFUL', 'only the states it wants');
      const newSecret = rotated.json<{ secret: string }>().secret;
      const replay = await h.api({ method: 'POST', url: `/v1/event-subscriptions/${sub.id}/replay`, payload: { since: first.data.at } });
      assert.equal(replay.statusCode, 202, replay.body);
      assert.ok(replay.json<{ queued: number }>().queued >= 1);
      // The first delivery may have been claimed before the rotation (signed with the old secret alone); the replay
      // is claimed after it, so it carries both signatures.
      const replayed = await eventually('the replayed event', () => acceptedOf(s.processId)[1]);
      assert.equal(verified(newSecret, replayed).data.eventId, first.data.eventId);
      assert.equal(verified(sub.secret, replayed).data.eventId, first.data.eventId, 'the old secret still verifies during the overlap');
      assert.equal((await h.api({ method: 'DELETE', url: `/v1/event-subscriptions/${sub.id}` })).statusCode, 204);
    } finally {
      receiver.answer({ status: 204 });
      await target.close();
    }
  });

  test("the audit page shows an admin key the subscriptions, a failing one's state and its pending deliveries", async () => {
    const sub = await subscribe({ url: `${receiver.url}/page`, kinds: ['verification'], description: 'page' });
    receiver.answer({ status: 500 });
    const dir = mkdtempSync(join(tmpdir(), 'relayflow-events-page-'));
    try {
      const identity = freshNumber();
      const s = await startVerification(h, { identity, method: 'sms' });
      await eventually('a failed attempt', () => (receiver.all.some((e) => e.body.includes(s.processId)) ? true : undefined));
      const dom = await browse(`${h.apiUrl}/ui#key=${encodeURIComponent(TEST_API_KEY)}`, dir, ['--dump-dom']);
      const pane = dom.match(/<section id="events-pane"[\s\S]*?<\/section>/)?.[0] ?? '';
      assert.ok(pane && !/<section id="events-pane"[^>]*hidden/.test(pane), 'the pane is shown to an admin key');
      const row = pane.match(new RegExp(`<tr class="waiting">(?:(?!</tr>)[\\s\\S])*${sub.id}[\\s\\S]*?</tr>`))?.[0] ?? '';
      assert.ok(row.includes(`${receiver.url}/page`), pane);
      assert.match(row, /failing for/);
    } finally {
      receiver.answer({ status: 204 });
      rmSync(dir, { recursive: true, force: true });
      assert.equal((await h.api({ method: 'DELETE', url: `/v1/event-subscriptions/${sub.id}` })).statusCode, 204);
    }
  });

  test('a malformed subscription is refused naming the field, and nothing is made', async () => {
    const bad = [
      [{ url: 'ftp://example.com/x' }, 'body.url'],
      [{ url: 'https://user:pw@example.com/x' }, 'body.url'],
      [{ url: receiver.url, kinds: ['verification'], states: ['ACTIVE'] }, 'body.states.0'],
      [{ url: receiver.url, kinds: ['not-a-kind'] }, 'body.kinds.0'],
      [{ url: receiver.url, extra: 1 }, 'body'],
    ] as const;
    const before = (await h.api({ method: 'GET', url: '/v1/event-subscriptions' })).json<{ subscriptions: unknown[] }>().subscriptions.length;
    for (const [body, field] of bad) {
      const res = await h.api({ method: 'POST', url: '/v1/event-subscriptions', payload: body });
      assert.ok(res.statusCode === 400 || res.statusCode === 422, `${JSON.stringify(body)}: ${res.statusCode} ${res.body}`);
      assert.ok(
        res.json().error.details.some((d: { field: string }) => d.field.startsWith(field)),
        `${JSON.stringify(body)} names ${field}: ${res.body}`,
      );
    }
    const afterCount = (await h.api({ method: 'GET', url: '/v1/event-subscriptions' })).json<{ subscriptions: unknown[] }>().subscriptions.length;
    assert.equal(afterCount, before);
    const missing = await h.api({ method: 'GET', url: '/v1/event-subscriptions/sub_01ARZ3NDEKTSV4RRFFQ69G5FAV' });
    assert.equal(missing.statusCode, 404);
  });
});
