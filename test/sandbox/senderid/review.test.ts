// Sender ID sandbox area: the simulated review walk and its signed callbacks, verified the way a
// receiver does (hex HMAC-SHA1 of the raw body with the secret set through callback-configuration),
// and the callback faults (drop, duplicate, reorder, delay).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { alphaBody, company, pdf, senderIdSuite, signatureOf, sleep, waitFor, type Body, type Client } from '../../helpers/sandbox-senderid.js';

const SECRET = 'd1c7ccbf-919d-462f-8587-dec95a1b11ee';

async function until(c: Client, id: string, state: string): Promise<Body> {
  let r: Body;
  const deadline = Date.now() + 5000;
  for (;;) {
    r = (await c.api('GET', `/registrations/${id}`)).body;
    if (r.status === state) return r;
    if (Date.now() > deadline) throw new Error(`registration ${id} is ${r.status}, not ${state}`);
    await sleep(10);
  }
}

describe('senderId sandbox: review walk and callbacks', () => {
  const { c, receiver } = senderIdSuite();

  test('stop for attachments, upload, update, PENDING_APPROVAL, APPROVED; every callback signed with the configured secret', async () => {
    assert.equal((await c.api('PUT', '/callback-configuration', { hmacSecret: SECRET })).status, 200);
    const r = (await c.api('POST', '/registrations', alphaBody(receiver.url))).body;
    const waiting = await until(c, r.id, 'PENDING_ATTACHMENTS');
    assert.match(waiting.logs.at(-1).message, /Letter of authorisation/);
    assert.match(waiting.etaDate, /^\d{4}-\d\d-\d\d$/);
    await sleep(60);
    assert.equal((await c.api('GET', `/registrations/${r.id}`)).body.status, 'PENDING_ATTACHMENTS', 'it waits');

    await c.api('POST', `/registrations/${r.id}/attachments/att-au-loa`, pdf());
    await waitFor(() => receiver.received.some((d) => d.body.eventType === 'ATTACHMENT_STATUS_CHANGED'), 'the upload callback');
    assert.equal((await c.api('GET', `/registrations/${r.id}`)).body.status, 'PENDING_ATTACHMENTS', 'an upload alone does not resume');
    assert.equal((await c.api('PUT', `/registrations/${r.id}`, { notificationContacts: ['ops@acme.example'] })).status, 200);
    const done = await until(c, r.id, 'APPROVED');
    assert.equal(done.senderId, 'ACME');
    assert.deepEqual(
      done.logs.map((l: Body) => l.registrationState),
      ['IN_QUEUE', 'IN_PROGRESS', 'PENDING_ATTACHMENTS', 'IN_PROGRESS', 'PENDING_APPROVAL', 'APPROVED'],
    );

    await waitFor(() => receiver.states().length === 5, 'five state callbacks');
    assert.deepEqual(receiver.states(), ['IN_PROGRESS', 'PENDING_ATTACHMENTS', 'IN_PROGRESS', 'PENDING_APPROVAL', 'APPROVED']);
    for (const d of receiver.received) {
      assert.equal(d.path, '/callbacks/senderid');
      assert.equal(d.headers['content-type'], 'application/json');
      assert.equal(d.headers['x-service-signature'], signatureOf(SECRET, d.rawBody), 'hex HMAC-SHA1 of the raw body');
      assert.notEqual(d.headers['x-service-signature'], signatureOf('another secret', d.rawBody));
      assert.equal(d.body.registrationId, r.id);
      assert.equal(typeof d.body.eventId, 'string');
      assert.match(d.body.timestamp, /Z$/);
    }
    const last = receiver.received.filter((d) => d.body.eventType === 'REGISTRATION_STATE_CHANGED').at(-1)!.body;
    assert.equal(last.previousState, 'PENDING_APPROVAL');
    assert.equal(last.senderId, 'ACME');
    const upload = receiver.received.find((d) => d.body.eventType === 'ATTACHMENT_STATUS_CHANGED')!.body;
    assert.equal(upload.uploadStatus, 'COMPLETED');
  });

  test('long number: the platform assigns the sender ID on approval; rejection ends REJECTED with the reason in logs', async () => {
    await c.control('PUT', '/senderid/reviewer', { pendingApproval: 'never' });
    const long = (
      await c.api('POST', '/registrations', { policyId: 'pol-au-long-standard', requestDetails: [{ additionalDetails: [company, { useCase: 'OTP' }] }] })
    ).body;
    const approved = await until(c, long.id, 'APPROVED');
    assert.match(approved.senderId, /^\+614\d{8}$/);
    assert.deepEqual(
      approved.logs.map((l: Body) => l.registrationState),
      ['IN_QUEUE', 'IN_PROGRESS', 'APPROVED'],
    );

    await c.control('PUT', '/senderid/reviewer', { outcome: 'reject', rejectionReason: 'Brand not verified.' });
    const brand = (await c.api('POST', '/registrations', { ...alphaBody(), policyId: 'pol-au-alpha-brand' })).body;
    const rejected = await until(c, brand.id, 'REJECTED');
    assert.equal(rejected.logs.at(-1).message, 'Brand not verified.');
    assert.equal((await c.api('PUT', `/registrations/${brand.id}`, { notificationContacts: [] })).status, 409);
  });

  test('outcome pending: PENDING with the reviewer message until the caller updates; forced states reach the receiver', async () => {
    await c.control('PUT', '/senderid/callback-url', { url: receiver.url });
    await c.control('PUT', '/senderid/reviewer', { outcome: 'pending', pendingApproval: 'never', stopForAttachments: 'never' });
    const r = (await c.api('POST', '/registrations', alphaBody())).body;
    const pending = await until(c, r.id, 'PENDING');
    assert.match(pending.logs.at(-1).message, /update the registration/);
    await c.api('PUT', `/registrations/${r.id}`, { requestDetails: alphaBody().requestDetails });
    await until(c, r.id, 'APPROVED');
    const forced = await c.control('POST', `/senderid/registrations/${r.id}/state`, { state: 'ON_HOLD', message: 'Audit.' });
    assert.equal(forced.body.status, 'ON_HOLD');
    await waitFor(() => receiver.states().at(-1) === 'ON_HOLD', 'the forced state');
    assert.equal(receiver.received.at(-1)!.headers['x-service-signature'], undefined, 'no secret configured: unsigned');
  });

  test('faults: drop, duplicate (same eventId), reorder, delay; the area lists each fate', async () => {
    await c.api('PUT', '/callback-configuration', { hmacSecret: SECRET });
    await c.control('PUT', '/senderid/reviewer', { pendingApproval: 'never', stopForAttachments: 'never' });
    await c.control('PUT', '/senderid/callback-faults', { drop: 1, duplicate: 1 });
    const a = (await c.api('POST', '/registrations', alphaBody(receiver.url))).body;
    await until(c, a.id, 'APPROVED');
    await waitFor(() => receiver.received.length === 2, 'the duplicated APPROVED');
    await sleep(40);
    assert.deepEqual(receiver.states(), ['APPROVED', 'APPROVED']);
    assert.equal(receiver.received[0]!.body.eventId, receiver.received[1]!.body.eventId);
    const fates = (await c.control('GET', '/senderid/callbacks')).body.callbacks.map((e: Body) => `${e.event.registrationState}:${e.delivery}:${e.duplicated}`);
    assert.deepEqual(fates, ['IN_PROGRESS:dropped:false', 'APPROVED:sent:true']);

    await receiver.reset();
    await c.control('PUT', '/senderid/callback-faults', { reorder: true });
    const b = (await c.api('POST', '/registrations', alphaBody(receiver.url))).body;
    await until(c, b.id, 'APPROVED');
    await waitFor(() => receiver.received.length === 2, 'both callbacks');
    assert.deepEqual(receiver.states(), ['APPROVED', 'IN_PROGRESS']);

    await receiver.reset();
    await c.control('PUT', '/senderid/callback-faults', { delayMs: 150 });
    const started = Date.now();
    const d = (await c.api('POST', '/registrations', alphaBody(receiver.url))).body;
    await until(c, d.id, 'APPROVED');
    await waitFor(() => receiver.received.length === 2, 'the delayed callbacks');
    assert.ok(Date.now() - started >= 150);
  });

  test('a non-2xx answer is retried; a secret rotated meanwhile signs the retry', async () => {
    await c.api('PUT', '/callback-configuration', { hmacSecret: 'old-secret' });
    await c.control('PUT', '/senderid/reviewer', { stopForAttachments: 'never', pendingApproval: 'never', stepMs: 60_000 });
    const r = (await c.api('POST', '/registrations', alphaBody(receiver.url))).body;
    receiver.script = [500];
    await c.control('POST', `/senderid/registrations/${r.id}/state`, { state: 'ON_HOLD' });
    await waitFor(() => receiver.received.length === 1, 'the first attempt');
    await c.api('PUT', '/callback-configuration', { hmacSecret: 'new-secret' });
    await waitFor(() => receiver.received.length === 2, 'the retry', 5000);
    const [first, retry] = receiver.received;
    assert.equal(first!.body.eventId, retry!.body.eventId);
    assert.equal(first!.headers['x-service-signature'], signatureOf('old-secret', first!.rawBody));
    assert.equal(retry!.headers['x-service-signature'], signatureOf('new-secret', retry!.rawBody));
  });
});
