// A template in use edited through its process: the edit of an APPROVED template waits as the platform's pending
// change while the approved version stays in use; POST /v1/templates/{processId}/delete-change drops it (the template
// is APPROVED with its old content), and again is the platform's 404 "no pending changes exist" as 404
// no_pending_changes; an edit the reviewer approves is taken by the template in use.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createPlatformClients } from '../../../platform/index.js';
import { useHarness, uniqueName } from '../../helpers/harness.js';
import { sandboxRequests, setReviewer, start, templateBody, update, waitUntil, type View } from '../../helpers/provisioning.js';

const pendingOf = (v: View) => v.details.pendingChange as { version: number; state: string } | undefined;
const reasons = (v: View) => v.history.map((s) => s.reason ?? '').join('|');

describe("a template's pending change", () => {
  const h = useHarness({ env: { RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS: '60000' } });
  const templates = () => createPlatformClients(h.config.platform).provisioning.templates('CHATA');

  test('an edit of an APPROVED template is pending; deleting it keeps the approved version; deleting again is 404', async () => {
    await setReviewer(h, { templates: { outcome: 'approve', delayMs: 200 } });
    const body = templateBody(uniqueName('change').replace(/-/g, '_'));
    const id = await start(h, '/v1/templates/chata', body);
    const approved = await waitUntil(h, id, (v) => v.state === 'APPROVED', 'APPROVED');
    const templateId = approved.details.templateId as string;

    // Long enough that the change is still under review when it is deleted.
    await setReviewer(h, { templates: { outcome: 'approve', delayMs: 30_000 } });
    const edit = { components: [{ type: 'BODY', text: 'Hello {{1}}, your order left the warehouse' }] };
    const edited = await update(h, id, 'templates', 'resubmit', edit, uniqueName('edit'));
    assert.equal(edited.statusCode, 200, edited.body);
    assert.deepEqual(edited.json(), { accepted: true, state: 'APPROVED' }, 'the template stays in use');
    const pending = await waitUntil(h, id, (v) => pendingOf(v)?.state === 'IN_PROGRESS', 'the change under review');
    assert.equal(pending.state, 'APPROVED');
    assert.equal(pendingOf(pending)!.version, 2);
    const live = await templates().get(templateId);
    assert.deepEqual([live.state, live.version, live.components], ['APPROVED', 1, body.components], 'the approved version is what is in use');
    const busy = await update(h, id, 'templates', 'resubmit', edit);
    assert.equal(busy.statusCode, 409, busy.body);
    assert.match(busy.json<{ error: { message: string } }>().error.message, /under review/);

    const key = uniqueName('drop');
    const dropped = await update(h, id, 'templates', 'delete-change', {}, key);
    assert.equal(dropped.statusCode, 200, dropped.body);
    assert.deepEqual(dropped.json(), { accepted: true, state: 'APPROVED' });
    assert.deepEqual((await update(h, id, 'templates', 'delete-change', {}, key)).json(), dropped.json(), 'the same key: answered from memory');
    const after = await waitUntil(h, id, (v) => pendingOf(v) === undefined, 'no pending change');
    assert.equal(after.state, 'APPROVED');
    assert.match(reasons(after), /pending change \(version 2\) is gone; the version in use stays \(pending change deleted through the API/);
    const kept = await templates().get(templateId);
    assert.deepEqual([kept.state, kept.version, kept.components, kept.pendingChange], ['APPROVED', 1, body.components, undefined]);

    const again = await update(h, id, 'templates', 'delete-change', {});
    assert.equal(again.statusCode, 404, again.body);
    assert.deepEqual(again.json<{ error: { code: string } }>().error.code, 'no_pending_changes');
    assert.match(again.json<{ error: { message: string } }>().error.message, new RegExp(`No pending changes exist for template ${templateId}`));
    const deletes = await sandboxRequests(h, 'DELETE', `/chata/templates/${templateId}/changes`);
    assert.deepEqual(
      deletes.map((r) => r.status),
      [200, 404],
      'one delete per operation',
    );
  });

  test('an approved edit is taken by the template in use; a template not in use has no pending change (409)', async () => {
    await setReviewer(h, { templates: { outcome: 'approve', delayMs: 200 } });
    const id = await start(h, '/v1/templates/chata', templateBody(uniqueName('taken').replace(/-/g, '_')));
    const approved = await waitUntil(h, id, (v) => v.state === 'APPROVED', 'APPROVED');
    const edit = { components: [{ type: 'BODY', text: 'Hi {{1}}, it shipped' }] };
    assert.equal((await update(h, id, 'templates', 'resubmit', edit)).statusCode, 200);
    const taken = await waitUntil(h, id, (v) => v.details.version === 2 && pendingOf(v) === undefined, 'the change taken');
    assert.equal(taken.state, 'APPROVED');
    assert.match(reasons(taken), /its change \(version 2\) was approved: the template in use now holds it/);
    assert.deepEqual((await templates().get(approved.details.templateId as string)).components, edit.components);

    await setReviewer(h, { templates: { outcome: 'reject', rejectionCode: 'INVALID_FORMAT', delayMs: 100 } });
    const rejectedId = await start(h, '/v1/templates/chata', templateBody(uniqueName('rejected').replace(/-/g, '_')));
    await waitUntil(h, rejectedId, (v) => v.state === 'REJECTED', 'REJECTED');
    const none = await update(h, rejectedId, 'templates', 'delete-change', {});
    assert.equal(none.statusCode, 409, none.body);
    assert.match(none.body, /a REJECTED template has no pending change/);
  });
});
