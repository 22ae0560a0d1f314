// Provisioning area of the sandbox: bundles (docs/bundle-wire.md). Validation naming each field, the
// create answer (IN_PROGRESS, subproject id, SMS app PROVISIONING_ADD, DISPATCH by default), BUNDLE_DONE
// when ACTIVE or FAILED (by setting or by the control route), webhook delivery statuses, list and delete.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { account, type Body, waitFor, provisioningSandboxSuite, subscribe } from '../../helpers/sandbox-provisioning.js';

const fieldsOf = (body: Body): string[] => (body.validationErrors as { field: string }[]).map((v) => v.field);
const descriptionOf = (body: Body, field: string): string =>
  (body.validationErrors as { field: string; description: string }[]).find((v) => v.field === field)?.description ?? '';
const bundle = (over: Record<string, unknown> = {}) => ({ name: 'Acme BR', region: 'BR', convApp: {}, smsApp: {}, ...over });

describe('provisioning sandbox: bundles', () => {
  const { receiver, c } = provisioningSandboxSuite();
  const eventsOf = (id: string) => receiver.received.filter((r) => r.event.resourceId === id).map((r) => r.event);

  test('field rules: region listed, processing mode and retention policy, subproject xor subprojectId, labels; one app at least', async () => {
    const res = await c.api('POST', '/bundles', {
      name: '',
      region: 'APAC',
      subprojectId: 'SUB-1',
      subproject: { name: 'x' },
      convApp: { processingMode: 'BATCH', retentionPolicy: { retentionType: 'FOREVER', ttlDays: 0 } },
      labels: { k: 5 },
      extra: true,
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.errorCode, 'invalid_input');
    assert.deepEqual(fieldsOf(res.body).sort(), [
      'convApp.processingMode',
      'convApp.retentionPolicy.retentionType',
      'convApp.retentionPolicy.ttlDays',
      'extra',
      'labels.k',
      'name',
      'region',
      'subproject',
    ]);
    assert.equal(descriptionOf(res.body, 'region'), 'must be one of US, EU, BR');
    assert.equal(descriptionOf(res.body, 'convApp.processingMode'), 'must be one of DISPATCH, CONVERSATION');
    assert.deepEqual(fieldsOf((await c.api('POST', '/bundles', bundle({ subprojectId: 'sub 1' }))).body), ['subprojectId']);
    const empty = await c.api('POST', '/bundles', { name: 'Nothing', region: 'US' });
    assert.equal(empty.status, 400);
    assert.deepEqual(fieldsOf(empty.body), ['convApp']);
  });

  test('create: IN_PROGRESS, SMS app PROVISIONING_ADD, DISPATCH by default; ACTIVE after the delay with BUNDLE_DONE', async () => {
    await subscribe(c, receiver, ['BUNDLE_DONE']);
    assert.equal((await c.control('PUT', '/provisioning/bundles', { delayMs: 30 })).status, 200);
    const res = await c.api('POST', '/bundles', bundle({ subprojectId: 'SUB-123', labels: { 'relayflow-key': 'acme' } }));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const b = res.body;
    assert.match(b.id, /^[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.equal(b.state, 'IN_PROGRESS');
    assert.deepEqual(b.subproject, { id: 'SUB-123', created: false });
    assert.equal(b.region, 'BR');
    assert.equal(b.convApp.processingMode, 'DISPATCH');
    assert.deepEqual(b.convApp.retentionPolicy, { retentionType: 'MESSAGE_EXPIRE_POLICY', ttlDays: 180 });
    assert.equal(b.smsApp.status, 'PROVISIONING_ADD');
    assert.deepEqual(b.webhookDeliveryStatuses, []);
    assert.deepEqual(b.labels, { 'relayflow-key': 'acme' });
    await waitFor(() => eventsOf(b.id).length === 1, 'BUNDLE_DONE');
    const [e] = eventsOf(b.id);
    assert.equal(receiver.received[0]!.verified, true);
    assert.deepEqual(
      { trigger: e!.trigger, channel: e!.channel, resourceType: e!.resourceType, details: e!.details, sequence: e!.sequence },
      { trigger: 'BUNDLE_DONE', channel: 'PROJECT', resourceType: 'BUNDLE', details: { state: 'ACTIVE' }, sequence: 1 },
    );
    const got = await c.api('GET', `/bundles/${b.id}`);
    assert.equal(got.body.state, 'ACTIVE');
    assert.equal(got.body.smsApp.status, 'ACTIVE');
  });

  test('a new subproject, CONVERSATION mode; the outcome setting fails it with the platform reason', async () => {
    await subscribe(c, receiver, ['BUNDLE_DONE']);
    await c.control('PUT', '/provisioning/bundles', {
      delayMs: 20,
      outcome: 'fail',
      errorCode: 'SMS_REGION_UNAVAILABLE',
      errorReason: 'No SMS capacity in BR',
    });
    const res = await c.api(
      'POST',
      '/bundles',
      bundle({
        subproject: { name: 'Acme sub' },
        convApp: { processingMode: 'CONVERSATION', retentionPolicy: { retentionType: 'PERSIST_RETENTION_POLICY', ttlDays: 30 } },
      }),
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.subproject.created, true);
    assert.equal(res.body.subproject.name, 'Acme sub');
    assert.match(res.body.subproject.id, /^[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.equal(res.body.convApp.processingMode, 'CONVERSATION');
    await waitFor(() => eventsOf(res.body.id).length === 1, 'BUNDLE_DONE');
    assert.deepEqual(eventsOf(res.body.id)[0]!.details, { state: 'FAILED', errorCode: 'SMS_REGION_UNAVAILABLE', errorReason: 'No SMS capacity in BR' });
    const got = (await c.api('GET', `/bundles/${res.body.id}`)).body;
    assert.equal(got.state, 'FAILED');
    assert.equal(got.smsApp.status, 'PROVISIONING_ADD_FAILED');
    assert.deepEqual(got.errors, [{ resource: 'SMS_APP', code: 'SMS_REGION_UNAVAILABLE', message: 'No SMS capacity in BR' }]);
  });

  test('control: fail one bundle now (409 once ended), webhook delivery statuses; without subproject the apps go in the project', async () => {
    await c.control('PUT', '/provisioning/bundles', { delayMs: 60_000 });
    const b = (await c.api('POST', '/bundles', bundle())).body;
    assert.deepEqual(b.subproject, { id: account.projectId, created: false });
    const failed = await c.control('POST', `/provisioning/bundles/${b.id}/fail`, { errorCode: 'NUMBER_POOL_EMPTY', errorReason: 'No numbers left' });
    assert.equal(failed.status, 200, JSON.stringify(failed.body));
    assert.equal(failed.body.state, 'FAILED');
    assert.equal(failed.body.smsApp.status, 'PROVISIONING_ADD_FAILED');
    assert.equal((await c.control('POST', `/provisioning/bundles/${b.id}/fail`, {})).status, 409);
    assert.equal((await c.control('POST', '/provisioning/bundles/01ARZ3NDEKTSV4RRFFQ69G5FAV/fail', {})).status, 404);
    const ws = await c.control('POST', `/provisioning/bundles/${b.id}/webhook-delivery-statuses`, {
      target: 'https://acme.example/hook',
      httpStatus: 500,
      message: 'Internal Server Error',
    });
    assert.equal(ws.status, 200);
    const got = (await c.api('GET', `/bundles/${b.id}`)).body;
    assert.equal(got.webhookDeliveryStatuses.length, 1);
    assert.deepEqual(
      { target: got.webhookDeliveryStatuses[0].target, status: got.webhookDeliveryStatuses[0].status, httpStatus: got.webhookDeliveryStatuses[0].httpStatus },
      { target: 'https://acme.example/hook', status: 'FAILED', httpStatus: 500 },
    );
  });

  test('list with filterStates, a malformed ID is invalid_bundle_id, delete (DELETED, then 404)', async () => {
    await c.control('PUT', '/provisioning/bundles', { delayMs: 60_000 });
    const a = (await c.api('POST', '/bundles', bundle({ name: 'A' }))).body;
    const b = (await c.api('POST', '/bundles', bundle({ name: 'B' }))).body;
    await c.control('POST', `/provisioning/bundles/${b.id}/fail`, {});
    const listed = await c.api('GET', '/bundles?filterStates=IN_PROGRESS');
    assert.deepEqual(
      listed.body.bundles.map((x: Body) => x.id),
      [a.id],
    );
    assert.equal(listed.body.nextPageToken, '');
    assert.equal((await c.api('GET', '/bundles?filterStates=DONE')).status, 400);
    const bad = await c.api('GET', '/bundles/not-a-bundle-id');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.errorCode, 'invalid_bundle_id');
    const deleted = await c.api('DELETE', `/bundles/${a.id}`);
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body.state, 'DELETED');
    assert.equal((await c.api('GET', `/bundles/${a.id}`)).body.state, 'DELETED');
    assert.equal((await c.api('DELETE', `/bundles/${a.id}`)).status, 404);
  });

  test('the control settings: unknown outcome refused naming the field; a reset restores the defaults', async () => {
    const bad = await c.control('PUT', '/provisioning/bundles', { outcome: 'explode' });
    assert.equal(bad.status, 400);
    assert.deepEqual(
      bad.body.error.details.map((d: Body) => d.field),
      ['outcome'],
    );
    await c.control('PUT', '/provisioning/bundles', { outcome: 'fail', delayMs: 5 });
    await c.control('POST', '/reset');
    const got = await c.control('GET', '/provisioning/bundles');
    assert.equal(got.body.outcome, 'activate');
  });
});
