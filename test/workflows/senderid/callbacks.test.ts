// Sender ID callbacks end to end: a dropped callback (the periodic read still ends the process right), a
// secret rotation (the old and the new secret accepted, a third refused), refused bad signatures (401,
// nothing signalled) and the adoption of a registration relayflow did not create.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createPlatformClients } from '../../../platform/index.js';
import { startHarness, useHarness, uniqueName, type Harness } from '../../helpers/harness.js';
import {
  brandRegistration,
  callbackAnswers,
  company,
  postCallback,
  SEEN_STEP_MS,
  senderIdView,
  setCallbackFaults,
  setPlatformSecret,
  setReviewer,
  startRegistration,
  states,
  waitForView,
  wireSenderId,
} from '../../helpers/senderid.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('sender ID: a dropped callback is caught by the periodic read', () => {
  const h = useHarness({ env: { RELAYFLOW_SENDERID_POLL_INTERVAL_MS: '1000' } }, async (h) => {
    await wireSenderId(h);
  });

  test('every callback dropped: the process still ends APPROVED, by reads alone', async () => {
    await setReviewer(h, { outcome: 'approve', stepMs: 200, pendingApproval: 'never' });
    await setCallbackFaults(h, { drop: 1000 });
    try {
      const id = await startRegistration(h, brandRegistration(uniqueName('drop')));
      const v = await waitForView(h, id, (x) => x.state === 'APPROVED', 'APPROVED', 20_000);
      assert.equal(v.details.callbacks, 0, 'no callback reached the process');
      assert.ok(v.details.reads >= 1);
      assert.match(v.history.at(-1)!.reason ?? '', /periodic read/);
    } finally {
      await setCallbackFaults(h, {});
    }
  });
});

describe('sender ID: secret rotation, bad signatures, adoption', () => {
  let h: Harness;
  const [NEW, OLD, THIRD] = ['new-senderid-secret', 'old-senderid-secret', 'third-senderid-secret'];
  before(async () => {
    h = await startHarness({ env: { RELAYFLOW_SENDERID_POLL_INTERVAL_MS: '3600000', RELAYFLOW_SENDERID_CALLBACK_SECRETS: `${NEW},${OLD}` } });
    await wireSenderId(h, OLD);
  });
  after(async () => h.close());

  test('rotation: callbacks signed with the old secret, then the new one, move the process; a third secret is refused', async () => {
    // IN_PROGRESS is waited for: it must last until the process reads it.
    await setReviewer(h, { outcome: 'approve', stepMs: SEEN_STEP_MS, pendingApproval: 'always' });
    const id = await startRegistration(h, brandRegistration(uniqueName('rot')));
    await waitForView(h, id, (x) => x.state === 'IN_PROGRESS', 'IN_PROGRESS (old secret)');
    await setPlatformSecret(h, NEW);
    const v = await waitForView(h, id, (x) => x.state === 'APPROVED', 'APPROVED (new secret)');
    assert.ok(v.details.callbacks >= 3, JSON.stringify(v.details));
    const body = {
      eventId: uniqueName('evt'),
      eventType: 'REGISTRATION_STATE_CHANGED',
      registrationId: v.details.registrationId,
      registrationState: 'APPROVED',
    };
    assert.equal((await postCallback(h, body, OLD)).statusCode, 200);
    assert.equal((await postCallback(h, { ...body, eventId: uniqueName('evt') }, NEW)).statusCode, 200);
    assert.equal((await postCallback(h, { ...body, eventId: uniqueName('evt') }, THIRD)).statusCode, 401);

    // A platform signing with a secret relayflow does not hold: nothing reaches the process.
    await setPlatformSecret(h, THIRD);
    await setReviewer(h, { outcome: 'approve', stepMs: 200, pendingApproval: 'always' });
    const stuck = await startRegistration(h, brandRegistration(uniqueName('third')));
    // Until relayflow has answered one of its callbacks (a fixed wait passed unchecked when none came in time).
    const { registrationId } = (await waitForView(h, stuck, (x) => Boolean(x.details.registrationId), 'created')).details;
    const deadline = Date.now() + 20_000;
    let answers: number[] = [];
    while (!(answers = await callbackAnswers(h, registrationId!)).length && Date.now() < deadline) await sleep(100);
    assert.ok(answers.length && answers.every((status) => status === 401), JSON.stringify(answers));
    const s = await senderIdView(h, stuck);
    assert.equal(s.details.callbacks, 0);
    assert.equal(s.state, 'IN_QUEUE', 'no callback accepted, no read due yet');
    await setPlatformSecret(h, NEW);
  });

  test('bad or missing signatures: 401 and nothing signalled or adopted', async () => {
    await setReviewer(h, { outcome: 'approve', stepMs: 200, pendingApproval: 'never' });
    const id = await startRegistration(h, brandRegistration(uniqueName('sig')));
    const v = await waitForView(h, id, (x) => x.state === 'APPROVED', 'APPROVED');
    const before = v.details.callbacks;
    const body = { eventId: uniqueName('evt'), registrationId: v.details.registrationId, registrationState: 'REJECTED' };
    const missing = await postCallback(h, body, undefined);
    assert.equal(missing.statusCode, 401);
    assert.equal(missing.json().error.code, 'bad_signature');
    assert.equal((await postCallback(h, body, 'wrong-secret')).statusCode, 401);
    const raw = JSON.stringify(body);
    const malformed = await h.app.inject({
      method: 'POST',
      url: '/callbacks/senderid',
      headers: { 'content-type': 'application/json', 'x-service-signature': 'zz' },
      payload: raw,
    });
    assert.equal(malformed.statusCode, 401);
    const stranger = await postCallback(h, { eventId: uniqueName('evt'), registrationId: 'reg-unknown-to-all' }, 'wrong-secret');
    assert.equal(stranger.statusCode, 401);
    await sleep(300);
    assert.equal((await senderIdView(h, id)).details.callbacks, before, 'nothing signalled');
    const adopted = await h.api({
      method: 'GET',
      url: `/v1/senderid/registrations/${encodeURIComponent('senderid-registration:sandbox-project:reg-reg-unknown-to-all')}`,
    });
    assert.equal(adopted.statusCode, 404, 'nothing adopted');
    // Signed but not the schema: 400 naming the field.
    const noId = await postCallback(h, { eventId: 'x' }, NEW);
    assert.equal(noId.statusCode, 400);
    assert.equal(noId.json().error.details[0].field, 'body.registrationId');
  });

  test('a callback for a registration relayflow did not create starts a process that adopts it', async () => {
    // IN_PROGRESS is asserted: it must last until the adopting process reads it.
    await setReviewer(h, { outcome: 'approve', stepMs: SEEN_STEP_MS, pendingApproval: 'never' });
    const platform = createPlatformClients(h.config.platform).senderid;
    const r = await platform.createRegistration({
      policyId: 'pol-au-long-standard',
      requestDetails: [{ additionalDetails: [company] }],
    });
    const id = `senderid-registration:sandbox-project:reg-${r.id}`;
    const v = await waitForView(h, id, (x) => x.state === 'APPROVED', 'APPROVED (adopted)');
    assert.equal(v.details.adopted, true);
    assert.equal(v.details.registrationId, r.id);
    assert.match(v.details.senderId ?? '', /^\+6148/);
    assert.ok(states(v).includes('IN_PROGRESS'));
  });
});
