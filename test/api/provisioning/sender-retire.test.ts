// A live CHATA sender stays watched until it is retired, end to end through the API against the sandbox on the real
// Temporal dev server: after ACTIVE the process keeps running; a quality drop and a new messaging limit sent by the
// sandbox (POST /_sandbox/provisioning/senders/{id}/health) show as its health, with a history entry giving the reason
// and a process event, the state still ACTIVE; POST /v1/senders/{id}/retire deletes the sender on the platform and ends
// the process RETIRED (the same operation answered again, a new one refused once ended).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { uniqueName, useHarness, type Harness } from '../../helpers/harness.js';
import { freshMobile, sandboxRequests, setReviewer, start, update, waitUntil, type View } from '../../helpers/provisioning.js';

interface Health {
  qualityRating?: string;
  messagingLimit?: string;
  at: string;
}

const health = (v: View) => v.details.health as Health | undefined;

async function sendHealth(h: Harness, senderId: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${h.sandbox.url}/_sandbox/provisioning/senders/${senderId}/health`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** A CHATA sender's process, ACTIVE and watched. */
async function liveSender(h: Harness, displayName: string): Promise<{ id: string; senderId: string; active: View }> {
  await setReviewer(h, { chataSenders: { outcome: 'activate', delayMs: 200 } });
  const id = await start(h, '/v1/senders/chata', { phoneNumber: freshMobile(), displayName, vertical: 'OTHER' });
  const active = await waitUntil(h, id, (v) => v.state === 'ACTIVE' && v.details.watchedSince !== undefined, 'ACTIVE and watched');
  return { id, senderId: active.details.senderId as string, active };
}

describe('a live CHATA sender is watched until retired', () => {
  // Polling only once a minute: the webhooks carry every change.
  const h = useHarness({ env: { RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS: '60000' } });

  test('a quality drop shows as its health with the reason, still ACTIVE; retire deletes it and ends the process', async () => {
    const { id, senderId, active } = await liveSender(h, 'Watched shop');
    assert.equal(active.execution.status, 'RUNNING', 'the process goes on after ACTIVE');
    assert.equal(active.history.filter((x) => x.state === 'ACTIVE').length, 1, 'ACTIVE once in the timeline');

    const sent = await sendHealth(h, senderId, { qualityRating: 'YELLOW', messagingLimit: 'TIER_1K' });
    assert.equal(sent.status, 200, JSON.stringify(sent.json));
    assert.deepEqual(
      (sent.json.events as { trigger: string }[]).map((e) => e.trigger),
      ['CHATA_SENDER_QUALITY_RATING_CHANGED', 'CHATA_SENDER_DAILY_LIMIT_CHANGED'],
    );
    const rated = await waitUntil(h, id, (v) => health(v)?.qualityRating === 'YELLOW' && health(v)?.messagingLimit === 'TIER_1K', 'health told');
    assert.equal(rated.state, 'ACTIVE');
    assert.equal(rated.execution.status, 'RUNNING');
    const reasons = rated.history.map((x) => x.reason ?? '');
    assert.ok(reasons.includes('health: quality rating unknown -> YELLOW (CHATA_SENDER_QUALITY_RATING_CHANGED)'), reasons.join('\n'));
    assert.ok(reasons.includes('health: messaging limit unknown -> TIER_1K (CHATA_SENDER_DAILY_LIMIT_CHANGED)'), reasons.join('\n'));
    assert.ok(rated.history.slice(-2).every((x) => x.state === 'ACTIVE'));

    // A further drop: the reason names where it came from.
    assert.equal((await sendHealth(h, senderId, { qualityRating: 'RED' })).status, 200);
    const red = await waitUntil(h, id, (v) => health(v)?.qualityRating === 'RED', 'RED told');
    assert.equal(red.history.at(-1)!.reason, 'health: quality rating YELLOW -> RED (CHATA_SENDER_QUALITY_RATING_CHANGED)');
    assert.equal(red.state, 'ACTIVE');

    // Each change is a process event (state unchanged, the reason says what changed).
    const events = await h.store.sql.query<{ state: string; previous_state: string; reason: string }>(
      `SELECT state, previous_state, reason FROM relayflow_events WHERE process_id = $1 AND reason LIKE 'health:%' ORDER BY n`,
      [id],
    );
    assert.deepEqual(
      events.map((e) => [e.state, e.previous_state, e.reason]),
      [
        ['ACTIVE', 'ACTIVE', 'health: quality rating unknown -> YELLOW (CHATA_SENDER_QUALITY_RATING_CHANGED)'],
        ['ACTIVE', 'ACTIVE', 'health: messaging limit unknown -> TIER_1K (CHATA_SENDER_DAILY_LIMIT_CHANGED)'],
        ['ACTIVE', 'ACTIVE', 'health: quality rating YELLOW -> RED (CHATA_SENDER_QUALITY_RATING_CHANGED)'],
      ],
    );

    const key = `retire-${senderId}`;
    const retired = await update(h, id, 'senders', 'retire', { reason: 'customer left' }, key);
    assert.equal(retired.statusCode, 200, retired.body);
    assert.deepEqual(retired.json(), { accepted: true, state: 'RETIRED' });
    const again = await update(h, id, 'senders', 'retire', { reason: 'customer left' }, key);
    assert.equal(again.statusCode, 200, again.body);
    assert.deepEqual(again.json(), { accepted: true, state: 'RETIRED' }, 'the same operation is answered the same');

    const ended = await waitUntil(h, id, (v) => v.execution.status === 'COMPLETED', 'ended');
    assert.equal(ended.state, 'RETIRED');
    assert.match(ended.history.at(-1)!.reason!, /^retired through the API \(operation .+\): customer left; the sender was deleted on the platform$/);
    assert.ok(ended.details.retiredAt);
    const deletes = await sandboxRequests(h, 'DELETE', `/chata/senders/${senderId}`);
    assert.deepEqual(
      deletes.map((r) => r.status),
      [200],
      'one delete on the platform',
    );

    const late = await update(h, id, 'senders', 'retire', {}, `${key}-late`);
    assert.equal(late.statusCode, 409, late.body);
  });

  test('the sandbox health route names the field it refuses', async () => {
    const { senderId } = await liveSender(h, 'Refused health');
    const bad = await sendHealth(h, senderId, { qualityRating: 'PURPLE' });
    assert.equal(bad.status, 400);
    assert.match(JSON.stringify(bad.json), /qualityRating.*must be one of GREEN, YELLOW, RED, UNKNOWN/);
    const empty = await sendHealth(h, senderId, {});
    assert.equal(empty.status, 400);
    assert.match(JSON.stringify(empty.json), /must name at least one of qualityRating, messagingLimit, status/);
    assert.equal((await sendHealth(h, 'no-such-sender', { qualityRating: 'RED' })).status, 404);
  });

  test('a CHATB sender under review is retired too: deleted on the platform, the process RETIRED', async () => {
    await setReviewer(h, { chatbSenders: { outcome: 'activate', delayMs: 600_000 } });
    const id = await start(h, '/v1/senders/chatb', { displayName: uniqueName('Retired'), categoryCode: 'RETAIL' });
    const inReview = await waitUntil(h, id, (v) => v.state === 'IN_REVIEW', 'IN_REVIEW');
    const senderId = inReview.details.senderId as string;
    assert.equal((await sendHealth(h, senderId, { qualityRating: 'RED' })).status, 400, 'a CHATB sender has no quality rating');
    const res = await update(h, id, 'senders', 'retire', {});
    assert.equal(res.statusCode, 200, res.body);
    assert.equal((await waitUntil(h, id, (v) => v.execution.status === 'COMPLETED', 'ended')).state, 'RETIRED');
    assert.deepEqual(
      (await sandboxRequests(h, 'DELETE', `/chatb/senders/${senderId}`)).map((r) => r.status),
      [200],
    );
  });

  test('retire of a sender not yet live deletes it too (still under review)', async () => {
    await setReviewer(h, { chataSenders: { outcome: 'activate', delayMs: 600_000 } });
    const id = await start(h, '/v1/senders/chata', { phoneNumber: freshMobile(), displayName: 'Never live', vertical: 'OTHER' });
    await waitUntil(h, id, (v) => v.state === 'PENDING', 'PENDING');
    const res = await update(h, id, 'senders', 'retire', {});
    assert.equal(res.statusCode, 200, res.body);
    const ended = await waitUntil(h, id, (v) => v.execution.status === 'COMPLETED', 'ended');
    assert.equal(ended.state, 'RETIRED');
  });
});
