// Bundle provisioning through the API, on the real Temporal dev server against the sandbox: a bundle that
// reaches ACTIVE by BUNDLE_DONE, one FAILED with the platform's reason, a lost webhook caught by polling,
// and delete (the update while running, a delete-only run once ended). Bad input is a 400 naming the field.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createPlatformClients } from '../../../platform/index.js';
import type { BundleProvisioningResult } from '../../../processes/provisioning/contract.js';
import { useHarness, uniqueName, type Harness } from '../../helpers/harness.js';
import { setWebhookEnvelope, setWebhookFaults, stateChanges, waitUntil, type View } from '../../helpers/provisioning.js';

const completed = (v: View) => v.execution.status === 'COMPLETED';
const POLL_MS = 8_000;

async function setBundles(h: Harness, settings: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${h.sandbox.url}/_sandbox/provisioning/bundles`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(settings),
  });
  assert.equal(res.status, 200, await res.text());
}

async function startBundle(h: Harness, body: Record<string, unknown>, expected = 202): Promise<string> {
  const res = await h.api({ method: 'POST', url: '/v1/bundles', payload: body });
  assert.equal(res.statusCode, expected, res.body);
  return res.json<{ processId: string }>().processId;
}

const deleteBundle = (h: Harness, id: string, key?: string) =>
  h.api({ method: 'POST', url: `/v1/bundles/${encodeURIComponent(id)}/delete`, payload: {}, headers: key ? { 'idempotency-key': key } : {} });

describe('bundle provisioning', () => {
  // Polls every 8 s: decisions come by webhook well before (the sandbox decides in 300 ms; a loaded machine
  // delivers it seconds later, and at 1.5 s a poll sometimes read the decision first), a lost one is caught.
  const h = useHarness({ env: { RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS: String(POLL_MS) } }, async (h) => {
    // The shape the public description promises (trigger + the bundle's JSON as payload): the intake routes it to
    // resource:PROJECT:BUNDLE:<id> by the trigger, and the process reads the bundle. (The sandbox's full envelope
    // names channel PROJECT / resourceType BUNDLE, which the intake's schema does not list yet: docs/bundle-wire.md.)
    await setWebhookEnvelope(h, { shape: 'minimal', resourceAt: 'payload' });
  });

  test('bad input: 400 naming the field (422 for a rule between fields)', async () => {
    const missing = await h.api({ method: 'POST', url: '/v1/bundles', payload: { key: 'k1', displayName: 'Acme' } });
    assert.equal(missing.statusCode, 400);
    assert.match(missing.body, /region/);
    const mode = await h.api({ method: 'POST', url: '/v1/bundles', payload: { key: 'k1', displayName: 'Acme', region: 'BR', processingMode: 'BATCH' } });
    assert.equal(mode.statusCode, 400);
    assert.match(mode.body, /processingMode/);
    const both = await h.api({
      method: 'POST',
      url: '/v1/bundles',
      payload: { key: 'k1', displayName: 'Acme', region: 'BR', subprojectId: 'SUB-1', createSubproject: true },
    });
    assert.equal(both.statusCode, 422);
    assert.equal(both.json().error.details[0].field, 'body.createSubproject');
    const none = await h.api({
      method: 'POST',
      url: '/v1/bundles',
      payload: { key: 'k1', displayName: 'Acme', region: 'BR', conversationApp: false, smsApp: false },
    });
    assert.equal(none.statusCode, 422);
    assert.equal(none.json().error.details[0].field, 'body.smsApp');
  });

  test('ACTIVE by BUNDLE_DONE: subproject id, DISPATCH, SMS app ACTIVE; same key answers the same process; then deleted by a delete-only run', async () => {
    await setBundles(h, { delayMs: 300 });
    const key = uniqueName('acme');
    const body = { key, displayName: 'Acme Brazil', region: 'BR', subprojectId: 'SUB-42' };
    const id = await startBundle(h, body);
    assert.equal(id, `bundle-provisioning:sandbox-project:${key}`);
    assert.equal((await h.api({ method: 'POST', url: '/v1/bundles', payload: body })).json().created, false);
    const done = await waitUntil(h, id, completed, 'completed');
    assert.equal(done.state, 'ACTIVE');
    assert.deepEqual(stateChanges(done), ['CREATING', 'IN_PROGRESS', 'ACTIVE']);
    assert.ok(
      done.details.events.some((e) => e.trigger === 'BUNDLE_DONE'),
      JSON.stringify(done.details.events),
    );
    assert.match(done.history.at(-1)!.reason ?? '', /BUNDLE_DONE|after BUNDLE_DONE/);
    assert.deepEqual(done.details.subproject, { id: 'SUB-42', created: false });
    assert.equal(done.details.processingMode, 'DISPATCH');
    assert.equal((done.details.smsApp as { status: string }).status, 'ACTIVE');
    const result = (await h.client.workflow.getHandle(id).result()) as BundleProvisioningResult;
    assert.equal(result.state, 'ACTIVE');
    assert.equal(result.subprojectId, 'SUB-42');
    assert.ok(result.bundleId && result.conversationAppId && result.smsAppId, JSON.stringify(result));
    const got = await h.api({ method: 'GET', url: `/v1/bundles/${encodeURIComponent(id)}` });
    assert.equal(got.statusCode, 200);
    assert.equal(got.json().kind, 'bundle-provisioning');
    const listed = await h.api({ method: 'GET', url: '/v1/bundles?state=ACTIVE' });
    assert.ok(
      listed.json().processes.some((p: { processId: string }) => p.processId === id),
      'listed by state',
    );

    // Ended: the delete starts a delete-only run under the same key.
    const del = await deleteBundle(h, id);
    assert.equal(del.statusCode, 202, del.body);
    const deleted = await waitUntil(h, id, (v) => v.state === 'DELETED' && completed(v), 'deleted');
    assert.match(deleted.history.at(-1)!.reason ?? '', /deleted/);
    const platform = createPlatformClients(h.config.platform).provisioning;
    assert.equal((await platform.bundles.get(result.bundleId!)).state, 'DELETED');
    assert.equal((await deleteBundle(h, id)).statusCode, 409, 'nothing left to delete');
  });

  test("FAILED with the platform's reason (a result, not a failed execution)", async () => {
    await setBundles(h, { delayMs: 300, outcome: 'fail', errorCode: 'SMS_REGION_UNAVAILABLE', errorReason: 'No SMS capacity in BR' });
    const id = await startBundle(h, { key: uniqueName('fail'), displayName: 'Acme', region: 'BR', processingMode: 'CONVERSATION', createSubproject: true });
    const done = await waitUntil(h, id, completed, 'completed');
    assert.equal(done.state, 'FAILED');
    assert.match(done.history.at(-1)!.reason ?? '', /SMS_REGION_UNAVAILABLE: No SMS capacity in BR/);
    assert.deepEqual(done.details.errors, [{ resource: 'SMS_APP', code: 'SMS_REGION_UNAVAILABLE', message: 'No SMS capacity in BR' }]);
    assert.equal((done.details.smsApp as { status: string }).status, 'PROVISIONING_ADD_FAILED');
    assert.equal((done.details.subproject as { created: boolean }).created, true);
    assert.equal(done.details.processingMode, 'CONVERSATION');
    const result = (await h.client.workflow.getHandle(id).result()) as BundleProvisioningResult;
    assert.equal(result.state, 'FAILED');
    assert.equal(result.errors?.[0]?.code, 'SMS_REGION_UNAVAILABLE');
  });

  test('a lost BUNDLE_DONE is caught by polling', async () => {
    await setBundles(h, { delayMs: 200 });
    await setWebhookFaults(h, { drop: 1 });
    try {
      const id = await startBundle(h, { key: uniqueName('lost'), displayName: 'Acme', region: 'US' });
      // The poll comes POLL_MS after the last news: leave room for it on a loaded machine.
      const done = await waitUntil(h, id, completed, 'completed', POLL_MS + 30_000);
      assert.equal(done.state, 'ACTIVE');
      assert.ok(done.details.polls >= 1);
      assert.ok(!done.details.events.some((e) => e.trigger === 'BUNDLE_DONE'), 'no webhook came');
      assert.match(done.history.at(-1)!.reason ?? '', /no webhook in time/);
    } finally {
      await setWebhookFaults(h, {});
    }
  });

  test('delete while provisioning: the update deletes the bundle and ends the process DELETED', async () => {
    await setBundles(h, { delayMs: 60_000 });
    const id = await startBundle(h, { key: uniqueName('del'), displayName: 'Acme', region: 'EU', smsApp: false });
    const running = await waitUntil(h, id, (v) => v.state === 'IN_PROGRESS' && typeof v.details.bundleId === 'string', 'in progress');
    const first = await deleteBundle(h, id, 'del-1');
    assert.equal(first.statusCode, 200, first.body);
    assert.deepEqual(first.json(), { accepted: true, state: 'DELETED' });
    const done = await waitUntil(h, id, completed, 'completed');
    assert.deepEqual(stateChanges(done).slice(-3), ['IN_PROGRESS', 'DELETING', 'DELETED']);
    const platform = createPlatformClients(h.config.platform).provisioning;
    assert.equal((await platform.bundles.get(running.details.bundleId as string)).state, 'DELETED');
    assert.equal((await deleteBundle(h, 'bundle-provisioning:sandbox-project:nope')).statusCode, 404);
  });
});
