// A template retired through the API, end to end against the sandbox on the real Temporal dev server:
// POST /v1/templates/{id}/retire deletes the template on the platform (an APPROVED one being watched, or one still
// under review) and ends the process RETIRED with the reason in its history; the same Idempotency-Key after the end is
// answered the same, another key is 409; a bad body is 400 naming the field; an unknown process or one of another
// kind is 404.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createPlatformClients } from '../../../platform/index.js';
import { useHarness, uniqueName } from '../../helpers/harness.js';
import { readOr404, sandboxRequests, setReviewer, start, templateBody, update, waitUntil } from '../../helpers/provisioning.js';

interface ErrorReply {
  error: { code: string; message: string; details?: { field: string }[] };
}

const templateName = (prefix: string) => uniqueName(prefix).replace(/-/g, '_');

describe('a template retired through the API', () => {
  // Polling only once a minute: the webhooks carry every change.
  const h = useHarness({ env: { RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS: '60000' } });
  const templates = (channel: 'CHATA' | 'CHATB') => createPlatformClients(h.config.platform).provisioning.templates(channel);

  test('an APPROVED template being watched is deleted on the platform and its process ends RETIRED; the same key answers the same', async () => {
    await setReviewer(h, { templates: { outcome: 'approve', delayMs: 200 } });
    const id = await start(h, '/v1/templates/chata', templateBody(templateName('retired')));
    const approved = await waitUntil(h, id, (v) => v.state === 'APPROVED', 'APPROVED');
    assert.equal(approved.execution.status, 'RUNNING', 'an approved template is watched');
    const templateId = approved.details.templateId as string;

    const key = uniqueName('retire');
    const retired = await update(h, id, 'templates', 'retire', { reason: 'campaign over' }, key);
    assert.equal(retired.statusCode, 200, retired.body);
    assert.deepEqual(retired.json(), { accepted: true, state: 'RETIRED' });

    const ended = await waitUntil(h, id, (v) => v.execution.status === 'COMPLETED', 'ended');
    assert.equal(ended.state, 'RETIRED');
    assert.match(ended.history.at(-1)!.reason!, /^retired through the API \(operation .+\): campaign over; the template was deleted on the platform$/);
    assert.ok(!ended.history.some((x) => x.state === 'DELETED'), "the platform's DELETED webhook is the retire's own doing, not an end");
    assert.ok(ended.details.retiredAt);

    const onPlatform = await readOr404(() => templates('CHATA').get(templateId));
    assert.ok(onPlatform === 404 || onPlatform.state === 'DELETED', `deleted on the platform: ${JSON.stringify(onPlatform)}`);
    assert.deepEqual(
      (await sandboxRequests(h, 'DELETE', `/chata/templates/${templateId}`)).map((r) => r.status),
      [200],
      'one delete on the platform',
    );

    const again = await update(h, id, 'templates', 'retire', { reason: 'campaign over' }, key);
    assert.equal(again.statusCode, 200, again.body);
    assert.deepEqual(again.json(), { accepted: true, state: 'RETIRED' }, 'the same operation is answered the same after the end');
    const late = await update(h, id, 'templates', 'retire', {}, `${key}-late`);
    assert.equal(late.statusCode, 409, late.body);
    assert.equal((await sandboxRequests(h, 'DELETE', `/chata/templates/${templateId}`)).length, 1, 'nothing sent to the platform again');
  });

  test('a CHATB template under review is retired too: deleted on the platform, the process RETIRED', async () => {
    await setReviewer(h, { templates: { outcome: 'approve', delayMs: 600_000 } });
    const id = await start(h, '/v1/templates/chatb', templateBody(templateName('under_review')));
    const inReview = await waitUntil(h, id, (v) => v.state === 'IN_PROGRESS' && v.details.templateId !== undefined, 'under review');
    const templateId = inReview.details.templateId as string;

    const res = await update(h, id, 'templates', 'retire', {});
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { accepted: true, state: 'RETIRED' });
    const ended = await waitUntil(h, id, (v) => v.execution.status === 'COMPLETED', 'ended');
    assert.equal(ended.state, 'RETIRED');
    assert.match(ended.history.at(-1)!.reason!, /^retired through the API \(operation .+\); the template was deleted on the platform$/);
    const onPlatform = await readOr404(() => templates('CHATB').get(templateId));
    assert.ok(onPlatform === 404 || onPlatform.state === 'DELETED', `deleted on the platform: ${JSON.stringify(onPlatform)}`);
  });

  test('a bad body is 400 naming the field; an unknown process, or one of another kind, is 404', async () => {
    await setReviewer(h, { templates: { outcome: 'approve', delayMs: 600_000 } });
    const id = await start(h, '/v1/templates/chata', templateBody(templateName('refused')));
    await waitUntil(h, id, (v) => v.details.templateId !== undefined, 'created');

    const badReason = await update(h, id, 'templates', 'retire', { reason: 42 });
    assert.equal(badReason.statusCode, 400, badReason.body);
    assert.match(badReason.body, /body\.reason/);
    const extra = await update(h, id, 'templates', 'retire', { colour: 'red' });
    assert.equal(extra.statusCode, 400, extra.body);
    assert.match(extra.body, /colour/);
    const still = await waitUntil(h, id, (v) => v.state === 'IN_PROGRESS', 'still under review');
    assert.equal(still.execution.status, 'RUNNING', 'a refused body changes nothing');

    const projectId = h.config.platform.credentials.projectId;
    const unknown = await update(h, `chata-template:${projectId}:no_such_template:en_US`, 'templates', 'retire', {});
    assert.equal(unknown.statusCode, 404, unknown.body);
    assert.equal(unknown.json<ErrorReply>().error.code, 'not_found');
    const otherKind = await update(h, `chata-sender:${projectId}:someone`, 'templates', 'retire', {});
    assert.equal(otherKind.statusCode, 404, otherKind.body);
  });
});
