// Provisioning area of the sandbox: webhook registration, CHATA and CHATB templates and their
// simulated review, the contract's error bodies. Webhooks are received on a local HTTP server and
// their signatures checked with verifyConversationWebhook.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { account, SECRET, P, type Body, sleep, waitFor, bearerToken, provisioningSandboxSuite, subscribe } from '../../helpers/sandbox-provisioning.js';

const fieldsOf = (body: Body): string[] => (body.validationErrors as { field: string }[]).map((v) => v.field);
const descriptionOf = (body: Body, field: string): string =>
  (body.validationErrors as { field: string; description: string }[]).find((v) => v.field === field)?.description ?? '';

const body = (text = 'Your order {{1}} has shipped.') => ({ type: 'BODY', text });
const template = (over: Record<string, unknown> = {}) => ({ name: 'order_update', language: 'en_US', category: 'UTILITY', components: [body()], ...over });

describe('provisioning sandbox: webhooks and templates', () => {
  const { receiver, c, sandbox } = provisioningSandboxSuite();

  describe('webhook registration', () => {
    test('an unknown trigger is invalid_input naming the entry and listing the valid triggers', async () => {
      const res = await c.api('POST', '/webhooks', { target: `${receiver.url}/a`, secret: SECRET, triggers: ['CHATA_TEMPLATE_APPROVED', 'TEMPLATE_EXPLODED'] });
      assert.equal(res.status, 400);
      assert.equal(res.body.errorCode, 'invalid_input');
      assert.equal(typeof res.body.message, 'string');
      assert.equal(typeof res.body.resolution, 'string');
      assert.deepEqual(fieldsOf(res.body), ['triggers[1]']);
      const d = descriptionOf(res.body, 'triggers[1]');
      for (const t of ['CHATA_TEMPLATE_APPROVED', 'RCS_SENDER_CREATED', 'CHATB_SENDER_INACTIVE']) assert.ok(d.includes(t), d);
    });

    test('target must be a URL, secret at least 8 characters, triggers not empty', async () => {
      const res = await c.api('POST', '/webhooks', { target: 'not a url', secret: 'short', triggers: [], extra: 1 });
      assert.equal(res.status, 400);
      assert.deepEqual(fieldsOf(res.body).sort(), ['extra', 'secret', 'target', 'triggers']);
    });

    test('at most 15 per project, target unique (409), list without secrets, delete', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 15; i++) ids.push(await subscribe(c, receiver, ['CHATA_TEMPLATE_APPROVED'], `/hook/${i}`));
      const dup = await c.api('POST', '/webhooks', { target: `${receiver.url}/hook/3`, secret: SECRET, triggers: ['RCS_SENDER_CREATED'] });
      assert.equal(dup.status, 409);
      assert.equal(dup.body.errorCode, 'conflict');
      const sixteenth = await c.api('POST', '/webhooks', { target: `${receiver.url}/hook/15`, secret: SECRET, triggers: ['RCS_SENDER_CREATED'] });
      assert.equal(sixteenth.status, 400);
      assert.equal(sixteenth.body.errorCode, 'invalid_input');
      assert.ok(sixteenth.body.validationErrors.length >= 1, 'the limit names a field');

      const list = await c.api('GET', '/webhooks');
      assert.equal(list.status, 200);
      assert.equal(list.body.webhooks.length, 15);
      assert.deepEqual(Object.keys(list.body.webhooks[0]).sort(), ['id', 'target', 'triggers']);
      assert.ok(!JSON.stringify(list.body).includes(SECRET), 'no secret in the list');

      assert.equal((await c.api('DELETE', `/webhooks/${ids[0]}`)).status, 200);
      assert.equal((await c.api('GET', '/webhooks')).body.webhooks.length, 14);
      const again = await c.api('DELETE', `/webhooks/${ids[0]}`);
      assert.equal(again.status, 404);
      assert.equal(again.body.errorCode, 'not_found');
      assert.equal((await c.api('POST', '/webhooks', { target: `${receiver.url}/hook/15`, secret: SECRET, triggers: ['RCS_SENDER_CREATED'] })).status, 200);
    });

    test('a key of another project gets 403; no key gets 401; Basic works', async () => {
      const other = await c.raw('GET', '/provisioning/v1/projects/someone-else/webhooks', undefined, {
        authorization: `Bearer ${await bearerToken(sandbox())}`,
      });
      assert.equal(other.status, 403);
      assert.equal(other.body.errorCode, 'permission_denied');
      const none = await c.raw('GET', `${P}/webhooks`);
      assert.equal(none.status, 401);
      assert.equal(none.body.errorCode, 'unauthenticated');
      const basic = `Basic ${Buffer.from(`${account.keyId}:${account.keySecret}`).toString('base64')}`;
      assert.equal((await c.raw('GET', `${P}/webhooks`, undefined, { authorization: basic })).status, 200);
    });
  });

  describe('template validation', () => {
    test('name, category, header media and buttons are checked, each broken field named', async () => {
      const res = await c.api('POST', '/chata/templates', {
        name: 'x'.repeat(513),
        language: 'en_US',
        category: 'PROMO',
        components: [
          { type: 'HEADER', format: 'IMAGE', example: { mediaType: 'image/gif', sizeBytes: 6 * 1024 * 1024 } },
          body(),
          {
            type: 'BUTTONS',
            buttons: [
              ...Array.from({ length: 8 }, (_, i) => ({ type: 'QUICK_REPLY', text: `r${i}` })),
              ...Array.from({ length: 3 }, (_, i) => ({ type: 'URL', text: `u${i}`, url: 'https://example.com' })),
            ],
          },
        ],
      });
      assert.equal(res.status, 400);
      assert.equal(res.body.errorCode, 'invalid_input');
      assert.match(descriptionOf(res.body, 'name'), /512/);
      assert.equal(descriptionOf(res.body, 'category'), 'must be one of AUTHENTICATION, MARKETING, UTILITY');
      assert.match(descriptionOf(res.body, 'components[0].example.mediaType'), /image\/jpeg, image\/png, image\/webp/);
      assert.match(descriptionOf(res.body, 'components[0].example.sizeBytes'), /5242880/);
      const buttons = (res.body.validationErrors as { field: string; description: string }[]).filter((v) => v.field === 'components[2].buttons');
      assert.equal(buttons.length, 2);
      assert.match(buttons[0]!.description, /at most 10 buttons/);
      assert.match(buttons[1]!.description, /at most 2 URL buttons/);
    });

    test('video and document limits, a required BODY, name characters, ttl for AUTHENTICATION only', async () => {
      const res = await c.api('POST', '/chata/templates', {
        name: 'Bad-Name',
        language: 'en_US',
        category: 'MARKETING',
        messageSendTtlSeconds: 60,
        components: [{ type: 'HEADER', format: 'VIDEO', example: { mediaType: 'video/mp4', sizeBytes: 17 * 1024 * 1024 } }],
      });
      assert.equal(res.status, 400);
      assert.deepEqual(fieldsOf(res.body).sort(), ['components', 'components[0].example.sizeBytes', 'messageSendTtlSeconds', 'name']);
      const doc = await c.api(
        'POST',
        '/chata/templates',
        template({ components: [{ type: 'HEADER', format: 'DOCUMENT', example: { mediaType: 'application/pdf', sizeBytes: 90 * 1024 * 1024 } }, body()] }),
      );
      assert.equal(doc.status, 200, JSON.stringify(doc.body));
    });

    test('the same name and language twice is a 409', async () => {
      assert.equal((await c.api('POST', '/chata/templates', template({ status: 'DRAFT' }))).status, 200);
      const again = await c.api('POST', '/chata/templates', template());
      assert.equal(again.status, 409);
      assert.equal(again.body.errorCode, 'conflict');
      assert.equal((await c.api('POST', '/chata/templates', template({ language: 'fr_FR' }))).status, 200);
    });
  });

  describe('template lists', () => {
    test('pageSize above 1000 is invalid_input; pages, totalSize and filterStates', async () => {
      const big = await c.api('GET', '/chata/templates?pageSize=1001');
      assert.equal(big.status, 400);
      assert.equal(big.body.errorCode, 'invalid_input');
      assert.deepEqual(fieldsOf(big.body), ['pageSize']);
      assert.equal((await c.api('GET', '/chata/templates?pageSize=1000')).status, 200);

      for (const name of ['a_one', 'a_two', 'a_three']) await c.api('POST', '/chata/templates', template({ name, status: 'DRAFT' }));
      const first = await c.api('GET', '/chata/templates?pageSize=2');
      assert.equal(first.body.templates.length, 2);
      assert.equal(first.body.totalSize, 3);
      assert.notEqual(first.body.nextPageToken, '');
      const second = await c.api('GET', `/chata/templates?pageSize=2&pageToken=${encodeURIComponent(first.body.nextPageToken)}`);
      assert.deepEqual(
        second.body.templates.map((t: Body) => t.name),
        ['a_three'],
      );
      assert.equal(second.body.nextPageToken, '');

      const drafts = await c.api('GET', '/chata/templates?filterStates=DRAFT,APPROVED');
      assert.equal(drafts.body.totalSize, 3);
      assert.equal((await c.api('GET', '/chata/templates?filterStates=APPROVED')).body.totalSize, 0);
      const bad = await c.api('GET', '/chata/templates?filterStates=SHINY');
      assert.equal(bad.status, 400);
      assert.match(descriptionOf(bad.body, 'filterStates'), /IN_PROGRESS/);
      const badToken = await c.api('GET', '/chata/templates?pageToken=nonsense');
      assert.deepEqual(fieldsOf(badToken.body), ['pageToken']);
    });
  });

  describe('template review', () => {
    test('approve: COMMENT_ADDED then APPROVED, signed, in sequence; GET shows it', async () => {
      await subscribe(c, receiver, ['CHATA_TEMPLATE_APPROVED', 'CHATA_TEMPLATE_COMMENT_ADDED']);
      await c.control('PUT', '/provisioning/reviewer', { templates: { outcome: 'approve', delayMs: 20, comment: 'Looks fine' } });
      const created = await c.api('POST', '/chata/templates', template());
      assert.equal(created.status, 200);
      assert.equal(created.body.state, 'IN_PROGRESS');
      assert.equal(created.body.version, 1);
      const id = created.body.id as string;

      await waitFor(() => receiver.received.length === 2, 'two webhooks');
      assert.deepEqual(receiver.triggers(), ['CHATA_TEMPLATE_COMMENT_ADDED', 'CHATA_TEMPLATE_APPROVED']);
      assert.ok(
        receiver.received.every((r) => r.verified),
        'signatures verify with the webhook secret',
      );
      const [comment, approved] = receiver.received.map((r) => r.event);
      assert.equal(comment!.comment, 'Looks fine');
      assert.deepEqual(approved!.details, { state: 'APPROVED' });
      for (const e of [comment!, approved!]) {
        assert.equal(e.projectId, account.projectId);
        assert.equal(e.resourceId, id);
        assert.equal(e.channel, 'CHATA');
        assert.equal(e.resourceType, 'TEMPLATE');
        assert.ok(!Number.isNaN(Date.parse(e.eventTime)), 'eventTime is ISO');
      }
      assert.ok(approved!.sequence > comment!.sequence, 'sequence increases');
      assert.notEqual(approved!.eventId, comment!.eventId);

      const got = await c.api('GET', `/chata/templates/${id}`);
      assert.equal(got.body.state, 'APPROVED');
      assert.equal(got.body.comments[0].text, 'Looks fine');
      assert.equal(got.body.rejectionCode, undefined);

      // The receiver records a request before its answer reaches the sandbox: poll until both are settled.
      let callbacks: Body;
      for (let i = 0; i < 100; i++) {
        callbacks = (await c.control('GET', '/callbacks?area=provisioning')).body.callbacks;
        if (callbacks.every((cb: Body) => cb.outcome !== 'pending')) break;
        await sleep(5);
      }
      assert.equal(callbacks.length, 2);
      assert.ok(
        callbacks.every((cb: Body) => cb.outcome === 'delivered'),
        'all delivered',
      );
      const requests = await c.control('GET', '/requests?area=provisioning');
      assert.ok(
        requests.body.requests.some((r: Body) => r.method === 'POST' && r.path.endsWith('/chata/templates') && r.status === 200),
        'the request is logged',
      );
    });

    test('reject with a rejectionCode, then PATCH resubmits: IN_PROGRESS, version 2, then APPROVED', async () => {
      await subscribe(c, receiver, ['CHATA_TEMPLATE_APPROVED', 'CHATA_TEMPLATE_REJECTED']);
      await c.control('PUT', '/provisioning/reviewer', { templates: { outcome: 'reject', rejectionCode: 'SCAM', delayMs: 20 } });
      const id = (await c.api('POST', '/chata/templates', template())).body.id as string;
      await waitFor(() => receiver.received.length === 1, 'the rejection');
      assert.equal(receiver.received[0]!.event.trigger, 'CHATA_TEMPLATE_REJECTED');
      assert.deepEqual(receiver.received[0]!.event.details, { state: 'REJECTED', rejectionCode: 'SCAM' });
      const rejected = await c.api('GET', `/chata/templates/${id}`);
      assert.equal(rejected.body.state, 'REJECTED');
      assert.equal(rejected.body.rejectionCode, 'SCAM');

      await c.control('PUT', '/provisioning/reviewer', { templates: { outcome: 'approve', delayMs: 20 } });
      const patched = await c.api('PATCH', `/chata/templates/${id}`, { components: [body('Order {{1}} is on its way.')], category: 'UTILITY' });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      assert.equal(patched.body.state, 'IN_PROGRESS');
      assert.equal(patched.body.version, 2);
      assert.equal(patched.body.rejectionCode, undefined);
      await waitFor(() => receiver.received.length === 2, 'the approval');
      assert.equal(receiver.received[1]!.event.trigger, 'CHATA_TEMPLATE_APPROVED');
      assert.ok(receiver.received[1]!.event.sequence > receiver.received[0]!.event.sequence, 'sequence increases');
      const approved = await c.api('GET', `/chata/templates/${id}`);
      assert.equal(approved.body.state, 'APPROVED');
      assert.equal(approved.body.components[0].text, 'Order {{1}} is on its way.');
    });

    test('a DRAFT waits for :submit; :submit of anything else is template_not_updatable', async () => {
      await subscribe(c, receiver, ['CHATA_TEMPLATE_APPROVED']);
      const draft = await c.api('POST', '/chata/templates', template({ status: 'DRAFT' }));
      assert.equal(draft.body.state, 'DRAFT');
      const id = draft.body.id as string;
      await sleep(80);
      assert.equal(receiver.received.length, 0, 'a draft is not reviewed');
      const submitted = await c.api('POST', `/chata/templates/${id}:submit`);
      assert.equal(submitted.status, 200);
      assert.equal(submitted.body.state, 'IN_PROGRESS');
      await waitFor(() => receiver.received.length === 1, 'the approval');
      assert.equal((await c.api('GET', `/chata/templates/${id}`)).body.state, 'APPROVED');
      const again = await c.api('POST', `/chata/templates/${id}:submit`);
      assert.equal(again.status, 400);
      assert.equal(again.body.errorCode, 'template_not_updatable');
      assert.equal((await c.api('POST', `/chata/templates/${id}:frobnicate`)).status, 404);
      assert.equal((await c.api('POST', '/chata/templates/01J00000000000000000000000:submit')).body.errorCode, 'not_found');
    });

    test('IN_PROGRESS and DELETED are not updatable; DELETE emits CHATA_TEMPLATE_DELETED and cancels the review', async () => {
      await subscribe(c, receiver, ['CHATA_TEMPLATE_DELETED', 'CHATA_TEMPLATE_APPROVED']);
      await c.control('PUT', '/provisioning/reviewer', { templates: { delayMs: 400 } });
      const id = (await c.api('POST', '/chata/templates', template())).body.id as string;
      const busy = await c.api('PATCH', `/chata/templates/${id}`, { category: 'MARKETING' });
      assert.equal(busy.status, 400);
      assert.equal(busy.body.errorCode, 'template_not_updatable');

      const deleted = await c.api('DELETE', `/chata/templates/${id}`);
      assert.equal(deleted.status, 200);
      assert.equal(deleted.body.state, 'DELETED');
      await waitFor(() => receiver.received.length === 1, 'the deletion');
      assert.equal(receiver.received[0]!.event.trigger, 'CHATA_TEMPLATE_DELETED');
      assert.equal((await c.api('PATCH', `/chata/templates/${id}`, { category: 'MARKETING' })).body.errorCode, 'template_not_updatable');
      await sleep(500);
      assert.equal((await c.api('GET', `/chata/templates/${id}`)).body.state, 'DELETED', 'the pending review was cancelled');
      assert.deepEqual(receiver.triggers(), ['CHATA_TEMPLATE_DELETED']);
      // The name is free again once the template is deleted.
      assert.equal((await c.api('POST', '/chata/templates', template({ status: 'DRAFT' }))).status, 200);
    });

    test('PATCH with status DRAFT keeps the edit as a draft; unknown PATCH fields are refused', async () => {
      const id = (await c.api('POST', '/chata/templates', template({ status: 'DRAFT' }))).body.id as string;
      const res = await c.api('PATCH', `/chata/templates/${id}`, { status: 'DRAFT', allowCategoryChange: true });
      assert.equal(res.body.state, 'DRAFT');
      assert.equal(res.body.allowCategoryChange, true);
      assert.equal(res.body.version, 2);
      const bad = await c.api('PATCH', `/chata/templates/${id}`, { name: 'renamed', category: 'NEWS' });
      assert.deepEqual(fieldsOf(bad.body).sort(), ['category', 'name']);
    });

    test('CHATB templates use the same shapes and CHATB triggers', async () => {
      await subscribe(c, receiver, ['CHATB_TEMPLATE_APPROVED', 'CHATA_TEMPLATE_APPROVED']);
      const created = await c.api('POST', '/chatb/templates', template());
      assert.equal(created.body.state, 'IN_PROGRESS');
      await waitFor(() => receiver.received.length === 1, 'the approval');
      assert.equal(receiver.received[0]!.event.trigger, 'CHATB_TEMPLATE_APPROVED');
      assert.equal(receiver.received[0]!.event.channel, 'CHATB');
      assert.equal((await c.api('GET', `/chatb/templates/${created.body.id}`)).body.state, 'APPROVED');
      assert.equal((await c.api('GET', `/chata/templates/${created.body.id}`)).status, 404);
    });
  });

  describe('error bodies', () => {
    test('injected 429 and 503 use the contract codes; Retry-After is kept', async () => {
      await c.control('POST', '/faults', { area: 'provisioning', status: 429, count: 1, retryAfterSeconds: 3 });
      const limited = await c.api('GET', '/chata/templates');
      assert.equal(limited.status, 429);
      assert.equal(limited.body.errorCode, 'rate_limited');
      assert.equal(limited.headers['retry-after'], '3');
      await c.control('POST', '/faults', { area: 'provisioning', status: 503, count: 1 });
      const down = await c.api('GET', '/chata/templates');
      assert.equal(down.body.errorCode, 'unavailable');
      await c.control('POST', '/faults', { area: 'provisioning', status: 500, count: 1 });
      assert.equal((await c.api('GET', '/chata/templates')).body.errorCode, 'internal');
    });

    test('malformed JSON is invalid_input; an unknown path is not_found', async () => {
      const res = await sandbox().app.inject({
        method: 'POST',
        url: `${P}/chata/templates`,
        headers: { authorization: `Basic ${Buffer.from(`${account.keyId}:${account.keySecret}`).toString('base64')}`, 'content-type': 'application/json' },
        payload: '{"name":',
      });
      assert.equal(res.statusCode, 400);
      assert.equal((res.json() as Body).errorCode, 'invalid_input');
      assert.equal((await c.api('GET', '/nothing/here')).body.errorCode, 'not_found');
    });
  });
});
