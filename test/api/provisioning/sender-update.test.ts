// A sender changed through its process (POST /v1/senders/{processId}/update), against the sandbox: a watched CHATA
// or CHATB sender's process takes the change in its run, an RCS one that ended with its sender live runs again for
// it; a reviewed change goes back to review and then live with it
// (approved) or without it (rejected, with the reviewer's words); a repeated Idempotency-Key sends nothing twice; a
// field the sender's kind does not change is a 422 naming it; a process that ended otherwise answers 409. CHATB and
// RCS changes are reviewed; a CHATA sender's business profile changes at once.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createPlatformClients } from '../../../platform/index.js';
import { useHarness, uniqueName } from '../../helpers/harness.js';
import { freshMobile, rcsBody, sandboxRequests, setReviewer, start, update, waitUntil, type View } from '../../helpers/provisioning.js';

const runOf = (v: View) => (v.execution as { runId?: string }).runId!;
const completed = (v: View) => v.execution.status === 'COMPLETED';
/** A live CHATA or CHATB sender's process does not end at ACTIVE: it goes on watching the sender. */
const watched = (v: View) => v.state === 'ACTIVE' && v.details.watchedSince !== undefined;
type Change = { operationId: string; fields: string[]; status: string; reason?: string; decidedAt?: string };
const changesOf = (v: View) => (v.details.changes ?? []) as Change[];

describe('sender updates through the process', () => {
  const h = useHarness({ env: { RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS: '60000' } });
  const platform = () => createPlatformClients(h.config.platform).provisioning;

  test('CHATB: a change of a watched ACTIVE sender is reviewed, approved, then rejected with the reason; a repeated key sends nothing twice', async () => {
    await setReviewer(h, { chatbSenders: { outcome: 'activate', delayMs: 300 } });
    const id = await start(h, '/v1/senders/chatb', { displayName: uniqueName('Shop'), categoryCode: 'RETAIL' });
    const active = await waitUntil(h, id, watched, 'ACTIVE and watched');
    const senderId = active.details.senderId as string;
    const patches = async () => (await sandboxRequests(h, 'PATCH', `/chatb/senders/${senderId}`)).length;
    const decided = (n: number) => (v: View) => v.state === 'ACTIVE' && changesOf(v).length >= n && changesOf(v)[n - 1]!.status !== 'IN_REVIEW';

    const key = uniqueName('change');
    const first = await update(h, id, 'senders', 'update', { description: 'Fresh fashion every week' }, key);
    assert.equal(first.statusCode, 200, first.body);
    assert.deepEqual(first.json(), { accepted: true, state: 'IN_REVIEW' });
    const again = await update(h, id, 'senders', 'update', { description: 'Fresh fashion every week' }, key);
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.json<{ accepted: boolean }>().accepted, true);

    const approved = await waitUntil(h, id, decided(1), 'the change decided');
    assert.equal(approved.execution.status, 'RUNNING', 'still watched');
    assert.equal(runOf(approved), runOf(active), 'the same run');
    assert.deepEqual(
      changesOf(approved).map((c) => [c.operationId, c.fields, c.status]),
      [[key, ['description'], 'APPROVED']],
    );
    assert.ok(!JSON.stringify(approved.details).includes('Fresh fashion'), 'the values are not in the details');
    assert.ok(
      approved.history.some((s) => s.state === 'IN_REVIEW'),
      'the change went through review',
    );
    assert.equal(await patches(), 1, 'one PATCH for the two requests');
    assert.equal((await platform().chatbSenders.get(senderId)).description, 'Fresh fashion every week');

    // The same key once decided: answered from the process's record, nothing sent.
    const late = await update(h, id, 'senders', 'update', { description: 'Fresh fashion every week' }, key);
    assert.equal(late.statusCode, 200, late.body);
    assert.equal(late.json<{ accepted: boolean }>().accepted, true);
    assert.equal(await patches(), 1);

    await setReviewer(h, { chatbSenders: { outcome: 'reject', delayMs: 300, comment: 'Subcategory does not match the shop' } });
    const rejectedKey = uniqueName('change');
    const second = await update(h, id, 'senders', 'update', { categoryCode: 'RETAIL', subcategoryCode: 'ELECTRONICS' }, rejectedKey);
    assert.equal(second.statusCode, 200, second.body);
    const rejected = await waitUntil(h, id, decided(2), 'the second change decided');
    assert.equal(rejected.state, 'ACTIVE', 'the sender stays live without the change');
    const [earlier, last] = changesOf(rejected);
    assert.equal(earlier!.status, 'APPROVED', 'the earlier change is still shown');
    assert.deepEqual(
      [last!.operationId, last!.fields, last!.status, last!.reason],
      [rejectedKey, ['categoryCode', 'subcategoryCode'], 'REJECTED', 'Subcategory does not match the shop'],
    );
    assert.match(rejected.history.at(-1)!.reason!, /rejected: Subcategory does not match the shop/);
    assert.equal((await platform().chatbSenders.get(senderId)).subcategoryCode, undefined, 'the platform kept the old fields');
    assert.equal(await patches(), 2);
  });

  test('CHATA: the business profile changes at once; the watching process records it and stays ACTIVE', async () => {
    await setReviewer(h, { chataSenders: { outcome: 'activate', delayMs: 200 } });
    const id = await start(h, '/v1/senders/chata', { phoneNumber: freshMobile(), displayName: 'Acme shoes' });
    // A live CHATA sender is watched: the change reaches the running process, no new run.
    const active = await waitUntil(h, id, (v) => v.state === 'ACTIVE' && v.details.watchedSince !== undefined, 'ACTIVE and watched');
    const senderId = active.details.senderId as string;

    const key = uniqueName('profile');
    const res = await update(h, id, 'senders', 'update', { about: 'Shoes for every season', photoUrl: 'https://acme.example/logo.png' }, key);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { accepted: true, state: 'ACTIVE' });
    const changed = await waitUntil(h, id, (v) => changesOf(v).length > 0, 'the change recorded');
    assert.equal(changed.state, 'ACTIVE');
    assert.equal(runOf(changed), runOf(active), 'the same run');
    assert.deepEqual(
      changesOf(changed).map((c) => [c.operationId, c.fields, c.status]),
      [[key, ['about', 'photoUrl'], 'APPLIED']],
    );
    assert.ok(
      changed.history.slice(active.history.length).every((s) => s.state === 'ACTIVE'),
      'no review',
    );
    assert.ok(!JSON.stringify(changed.details).includes('Shoes for every season'));
    const sender = await platform().chataSenders.get(senderId);
    assert.deepEqual([sender.about, sender.photoUrl], ['Shoes for every season', 'https://acme.example/logo.png']);

    const wrongKind = await update(h, id, 'senders', 'update', { categoryCode: 'RETAIL' });
    assert.equal(wrongKind.statusCode, 422, wrongKind.body);
    assert.match(wrongKind.body, /body\.categoryCode: a CHATA sender's change takes only description, about, photoUrl/);
  });

  test("RCS: a LAUNCHED sender's change is reviewed: approved, then rejected with the reason; one PATCH per key", async () => {
    await setReviewer(h, { rcs: { outcome: 'launch', delayMs: 300, rejectCountries: [] } });
    const id = await start(h, '/v1/senders/rcs', rcsBody(uniqueName('Acme RCS')));
    const launched = await waitUntil(h, id, (v) => completed(v) && v.state === 'LAUNCHED', 'LAUNCHED and ended', 30_000);
    const senderId = launched.details.senderId as string;
    const patches = async () => (await sandboxRequests(h, 'PATCH', `/rcs/senders/${senderId}`)).length;

    const key = uniqueName('profile');
    const body = { description: 'Parcel tracking and returns', websites: [{ url: 'https://returns.example' }] };
    const first = await update(h, id, 'senders', 'update', body, key);
    assert.equal(first.statusCode, 200, first.body);
    assert.deepEqual(first.json(), { accepted: true, state: 'IN_REVIEW' });
    assert.equal((await update(h, id, 'senders', 'update', body, key)).statusCode, 200);
    const approved = await waitUntil(h, id, (v) => completed(v) && runOf(v) !== runOf(launched), 'the change run ended', 30_000);
    assert.equal(approved.state, 'LAUNCHED');
    assert.deepEqual(
      changesOf(approved).map((c) => [c.fields, c.status]),
      [[['description', 'websites'], 'APPROVED']],
    );
    assert.equal(await patches(), 1, 'one PATCH for the two requests');
    const countries = approved.details.countryStatus as Record<string, { status: string }>;
    assert.equal(countries.FR!.status, 'LAUNCHED', 'the countries stay launched');
    assert.equal((await platform().rcs.get(senderId)).description, 'Parcel tracking and returns');

    await setReviewer(h, { rcs: { outcome: 'reject', delayMs: 300, rejectCountries: [], comment: 'The banner shows another brand' } });
    const banner = { url: 'https://acme.example/other-banner.png', width: 1440, height: 448 };
    const second = await update(h, id, 'senders', 'update', { banner });
    assert.equal(second.statusCode, 200, second.body);
    const rejected = await waitUntil(h, id, (v) => completed(v) && runOf(v) !== runOf(approved), 'the second change run ended', 30_000);
    assert.equal(rejected.state, 'LAUNCHED', 'the sender stays launched without the change');
    assert.deepEqual(
      changesOf(rejected).map((c) => [c.fields, c.status, c.reason]),
      [
        [['description', 'websites'], 'APPROVED', undefined],
        [['banner'], 'REJECTED', 'The banner shows another brand'],
      ],
    );
    assert.notEqual((await platform().rcs.get(senderId)).banner?.url, banner.url);
    assert.equal(await patches(), 2);

    const small = await update(h, id, 'senders', 'update', { banner: { ...banner, height: 400 } });
    assert.equal(small.statusCode, 422, small.body);
    assert.match(small.body, /body\.banner/);
  });

  test('a process stopped while its change is under review ends STOPPED, the change shown as still in review', async () => {
    await setReviewer(h, { chatbSenders: { outcome: 'activate', delayMs: 200 } });
    const id = await start(h, '/v1/senders/chatb', { displayName: uniqueName('Shop'), categoryCode: 'RETAIL' });
    await waitUntil(h, id, watched, 'ACTIVE and watched');
    await setReviewer(h, { chatbSenders: { outcome: 'activate', delayMs: 600_000 } });
    const changed = await update(h, id, 'senders', 'update', { description: 'Slow review' });
    assert.deepEqual(changed.json(), { accepted: true, state: 'IN_REVIEW' });
    const second = await update(h, id, 'senders', 'update', { description: 'Another' });
    assert.equal(second.statusCode, 409, second.body);
    assert.match(second.body, /under review: send the next one once it is decided/);
    const stop = await update(h, id, 'senders', 'stop', { reason: 'enough' });
    assert.equal(stop.statusCode, 200, stop.body);
    const stopped = await waitUntil(h, id, completed, 'ended');
    assert.equal(stopped.state, 'STOPPED');
    assert.deepEqual(
      changesOf(stopped).map((c) => c.status),
      ['IN_REVIEW'],
    );
  });

  test('bad fields are 400 or 422 naming the field; a process that ended without a live sender is 409', async () => {
    await setReviewer(h, { chatbSenders: { outcome: 'reject', delayMs: 100, comment: 'No' } });
    const id = await start(h, '/v1/senders/chatb', { displayName: uniqueName('Shop'), categoryCode: 'RETAIL' });
    const failed = await waitUntil(h, id, (v) => completed(v) || v.execution.status === 'FAILED', 'ended');
    assert.equal(failed.state, 'FAILED');

    const about = await update(h, id, 'senders', 'update', { about: 'Hello' });
    assert.equal(about.statusCode, 422, about.body);
    assert.match(
      about.json<{ error: { message: string } }>().error.message,
      /body\.about: a CHATB sender's change takes only description, categoryCode, subcategoryCode/,
    );
    const rename = await update(h, id, 'senders', 'update', { displayName: 'Other' });
    assert.equal(rename.statusCode, 400, rename.body);
    assert.match(rename.body, /displayName/);
    const empty = await update(h, id, 'senders', 'update', {});
    assert.equal(empty.statusCode, 400, empty.body);

    const ended = await update(h, id, 'senders', 'update', { description: 'New words' });
    assert.equal(ended.statusCode, 409, ended.body);
    assert.match(
      ended.json<{ error: { message: string } }>().error.message,
      /has ended FAILED: only a process that ended with its sender ACTIVE takes a change/,
    );
    assert.equal((await sandboxRequests(h, 'PATCH', '/chatb/senders/')).filter((r) => r.path.includes(failed.details.senderId as string)).length, 0);
  });
});
