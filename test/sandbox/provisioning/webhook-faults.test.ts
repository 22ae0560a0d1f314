// Provisioning area of the sandbox: webhook faults (duplicate, drop, reorder, delay), retries,
// reviewer-made events, the reviewer control route and options, reset.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createSandbox } from '../../../sandbox/index.js';
import { account, P, type Body, sleep, waitFor, provisioningSandboxSuite, rcsSenderBody, subscribe } from '../../helpers/sandbox-provisioning.js';

const template = (name = 'order_update', status = 'SUBMIT') => ({
  name,
  language: 'en_US',
  category: 'UTILITY',
  status,
  components: [{ type: 'BODY', text: 'Hi {{1}}' }],
});
const TEMPLATE_TRIGGERS = [
  'CHATA_TEMPLATE_APPROVED',
  'CHATA_TEMPLATE_REJECTED',
  'CHATA_TEMPLATE_COMMENT_ADDED',
  'CHATA_TEMPLATE_STATUS_UPDATED',
  'CHATA_TEMPLATE_QUALITY_SCORE_UPDATED',
  'CHATA_TEMPLATE_CATEGORY_UPDATED',
  'CHATA_ACCOUNT_COMMENT_ADDED',
];

describe('provisioning sandbox: webhook faults and control routes', () => {
  const { receiver, c } = provisioningSandboxSuite();
  /** A reviewer-made event on a template (POST /_sandbox/provisioning/events). */
  const templateEvent = (resourceId: string, trigger: string, details: Record<string, string>) =>
    c.control('POST', '/provisioning/events', { resourceType: 'TEMPLATE', resourceId, trigger, details });

  describe('webhook faults', () => {
    test('duplicate: the next event arrives twice with the same eventId, both signed; later ones once', async () => {
      await subscribe(c, receiver, TEMPLATE_TRIGGERS);
      const faults = await c.control('PUT', '/provisioning/webhook-faults', { duplicate: 1 });
      assert.deepEqual(faults.body, { delayMs: 0, duplicate: 1, reorder: false, drop: 0 });
      const id = (await c.api('POST', '/chata/templates', template())).body.id as string;
      await waitFor(() => receiver.received.length === 2, 'two copies');
      const [a, b] = receiver.received;
      assert.equal(a!.event.eventId, b!.event.eventId);
      assert.equal(a!.event.trigger, 'CHATA_TEMPLATE_APPROVED');
      assert.ok(a!.verified && b!.verified, 'both copies are signed');

      await c.control('POST', '/provisioning/events', { resourceType: 'TEMPLATE', resourceId: id, trigger: 'CHATA_TEMPLATE_COMMENT_ADDED', comment: 'once' });
      await waitFor(() => receiver.received.length === 3, 'the next event');
      await sleep(50);
      assert.equal(receiver.received.length, 3);
      const log = await c.control('GET', '/provisioning/events');
      assert.deepEqual(
        log.body.events.map((e: Body) => e.duplicated),
        [true, false],
      );
    });

    test('drop: nothing is delivered, but the resource changes and the event log says dropped', async () => {
      await subscribe(c, receiver, TEMPLATE_TRIGGERS);
      await c.control('PUT', '/provisioning/webhook-faults', { drop: 1 });
      const id = (await c.api('POST', '/chata/templates', template())).body.id as string;
      await sleep(120);
      assert.equal(receiver.received.length, 0);
      assert.equal((await c.api('GET', `/chata/templates/${id}`)).body.state, 'APPROVED');
      const log = await c.control('GET', '/provisioning/events');
      assert.equal(log.body.events.length, 1);
      assert.equal(log.body.events[0].delivery, 'dropped');
      assert.equal(log.body.events[0].event.trigger, 'CHATA_TEMPLATE_APPROVED');
      assert.equal((await c.control('GET', '/callbacks?area=provisioning')).body.callbacks.length, 0);
      assert.equal((await c.control('GET', '/provisioning/webhook-faults')).body.drop, 0, 'the drop is used up');
    });

    test('reorder: the next two events of a resource arrive swapped', async () => {
      await subscribe(c, receiver, TEMPLATE_TRIGGERS);
      await c.control('PUT', '/provisioning/reviewer', { templates: { outcome: 'approve', delayMs: 20, comment: 'ok' } });
      await c.control('PUT', '/provisioning/webhook-faults', { reorder: true });
      await c.api('POST', '/chata/templates', template());
      await waitFor(() => receiver.received.length === 2, 'both events');
      const seqs = receiver.received.map((r) => r.event.sequence);
      assert.deepEqual(seqs, [2, 1]);
      assert.deepEqual(receiver.triggers(), ['CHATA_TEMPLATE_APPROVED', 'CHATA_TEMPLATE_COMMENT_ADDED']);
      assert.ok(
        receiver.received.every((r) => r.verified),
        'signatures verify',
      );
      // Only once: the next pair comes in order.
      await receiver.reset();
      await c.api('POST', '/chata/templates', template('second_one'));
      await waitFor(() => receiver.received.length === 2, 'the next pair');
      assert.deepEqual(
        receiver.received.map((r) => r.event.sequence),
        [1, 2],
      );
    });

    test('delayMs holds every delivery back', async () => {
      await subscribe(c, receiver, TEMPLATE_TRIGGERS);
      await c.control('PUT', '/provisioning/webhook-faults', { delayMs: 200 });
      await c.api('POST', '/chata/templates', template());
      await waitFor(() => receiver.received.length === 1, 'the delayed event');
      const r = receiver.received[0]!;
      assert.ok(r.at - Date.parse(r.event.eventTime) >= 190, `arrived after ${r.at - Date.parse(r.event.eventTime)} ms`);
    });

    test('a non-2xx answer is retried with the same event', async () => {
      await subscribe(c, receiver, TEMPLATE_TRIGGERS);
      receiver.script = [500];
      await c.api('POST', '/chata/templates', template());
      await waitFor(() => receiver.received.length === 2, 'the retry', 5000);
      assert.equal(receiver.received[0]!.event.eventId, receiver.received[1]!.event.eventId);
      // The receiver records a request before its answer reaches the sandbox.
      let cb: Body;
      for (let i = 0; i < 100 && cb?.outcome !== 'delivered'; i++) {
        cb = (await c.control('GET', '/callbacks?area=provisioning')).body.callbacks[0];
        if (cb.outcome !== 'delivered') await sleep(5);
      }
      assert.equal(cb.outcome, 'delivered');
      assert.deepEqual(
        cb.attempts.map((a: Body) => a.status),
        [500, 200],
      );
    });

    test('bad fault settings are refused', async () => {
      const res = await c.control('PUT', '/provisioning/webhook-faults', { drop: -1, reorder: 'yes', later: 1 });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body.error.details.map((d: Body) => d.field).sort(), ['drop', 'later', 'reorder']);
    });
  });

  describe('reviewer-made events', () => {
    test('PAUSED via CHATA_TEMPLATE_STATUS_UPDATED, then a paused template can be edited (a pending change); quality and category', async () => {
      await subscribe(c, receiver, TEMPLATE_TRIGGERS);
      const id = (await c.api('POST', '/chata/templates', template())).body.id as string;
      await waitFor(() => receiver.received.length === 1, 'the approval');

      const paused = await templateEvent(id, 'CHATA_TEMPLATE_STATUS_UPDATED', { newState: 'PAUSED' });
      assert.equal(paused.status, 200);
      assert.equal(paused.body.trigger, 'CHATA_TEMPLATE_STATUS_UPDATED');
      assert.equal(paused.body.sequence, 2);
      assert.equal((await c.api('GET', `/chata/templates/${id}`)).body.state, 'PAUSED');
      await waitFor(() => receiver.received.length === 2, 'the pause');
      assert.equal(receiver.received[1]!.event.eventId, paused.body.eventId);
      assert.equal(receiver.received[1]!.event.details.newState, 'PAUSED');

      await templateEvent(id, 'CHATA_TEMPLATE_QUALITY_SCORE_UPDATED', { qualityScore: 'QUALITY_SCORE_RED' });
      await templateEvent(id, 'CHATA_TEMPLATE_CATEGORY_UPDATED', { category: 'MARKETING' });
      const got = await c.api('GET', `/chata/templates/${id}`);
      assert.equal(got.body.qualityScore, 'QUALITY_SCORE_RED');
      assert.equal(got.body.category, 'MARKETING');

      // A paused template is in use: its edit waits as a pending change, reviewed apart (template-changes.test.ts).
      const edited = await c.api('PATCH', `/chata/templates/${id}`, { components: [{ type: 'BODY', text: 'Hello {{1}}' }] });
      assert.equal(edited.status, 200);
      assert.deepEqual([edited.body.state, edited.body.pendingChange?.state], ['PAUSED', 'IN_PROGRESS']);
    });

    test('rejection, comment and an account comment', async () => {
      await subscribe(c, receiver, TEMPLATE_TRIGGERS);
      const id = (await c.api('POST', '/chata/templates', template('draft_one', 'DRAFT'))).body.id as string;
      const rej = await templateEvent(id, 'CHATA_TEMPLATE_REJECTED', { rejectionCode: 'ABUSIVE_CONTENT' });
      assert.deepEqual(rej.body.details, { state: 'REJECTED', rejectionCode: 'ABUSIVE_CONTENT' });
      const t = await c.api('GET', `/chata/templates/${id}`);
      assert.deepEqual([t.body.state, t.body.rejectionCode], ['REJECTED', 'ABUSIVE_CONTENT']);
      await c.control('POST', '/provisioning/events', {
        resourceType: 'TEMPLATE',
        resourceId: id,
        trigger: 'CHATA_TEMPLATE_COMMENT_ADDED',
        comment: 'Please reword',
      });
      assert.equal((await c.api('GET', `/chata/templates/${id}`)).body.comments[0].text, 'Please reword');
      const acct = await c.control('POST', '/provisioning/events', {
        resourceType: 'ACCOUNT',
        resourceId: account.projectId,
        trigger: 'CHATA_ACCOUNT_COMMENT_ADDED',
        comment: 'Billing set up',
      });
      assert.equal(acct.status, 200);
      await waitFor(() => receiver.received.length === 3, 'three events');
      // Events of one resource arrive in order; events of different resources may overtake each other.
      assert.deepEqual(
        receiver.triggers().filter((t) => t.startsWith('CHATA_TEMPLATE_')),
        ['CHATA_TEMPLATE_REJECTED', 'CHATA_TEMPLATE_COMMENT_ADDED'],
      );
      const accountEvent = receiver.received.find((r) => r.event.trigger === 'CHATA_ACCOUNT_COMMENT_ADDED')!.event;
      assert.deepEqual([accountEvent.resourceType, accountEvent.resourceId, accountEvent.comment], ['ACCOUNT', account.projectId, 'Billing set up']);
    });

    test('bad events change nothing: wrong values, wrong resource type, unknown resource, missing comment', async () => {
      const id = (await c.api('POST', '/chata/templates', template('draft_two', 'DRAFT'))).body.id as string;
      const badState = await templateEvent(id, 'CHATA_TEMPLATE_STATUS_UPDATED', { newState: 'ASLEEP' });
      assert.equal(badState.status, 400);
      assert.match(badState.body.error.details[0].description, /DISABLED, PAUSED, REINSTATED, UNPAUSED/);
      const missing = await c.control('POST', '/provisioning/events', { resourceType: 'TEMPLATE', resourceId: id, trigger: 'CHATA_TEMPLATE_STATUS_UPDATED' });
      assert.deepEqual(
        missing.body.error.details.map((d: Body) => d.field),
        ['details.newState'],
      );
      const wrongType = await c.control('POST', '/provisioning/events', { resourceType: 'SENDER', resourceId: id, trigger: 'CHATA_TEMPLATE_APPROVED' });
      assert.equal(wrongType.status, 400);
      assert.equal(
        (await c.control('POST', '/provisioning/events', { resourceType: 'TEMPLATE', resourceId: 'nope', trigger: 'CHATA_TEMPLATE_APPROVED' })).status,
        404,
      );
      assert.equal(
        (await c.control('POST', '/provisioning/events', { resourceType: 'TEMPLATE', resourceId: id, trigger: 'CHATA_TEMPLATE_COMMENT_ADDED' })).status,
        400,
      );
      assert.equal((await c.api('GET', `/chata/templates/${id}`)).body.state, 'DRAFT');
      assert.equal((await c.control('GET', '/provisioning/events')).body.events.length, 0);
    });

    test('sender events: CHATB INACTIVE, CHATA state change, RCS operator status', async () => {
      await subscribe(c, receiver, ['CHATB_SENDER_INACTIVE', 'CHATA_WABA_ACCOUNT_CHANGED', 'RCS_SENDER_OPERATOR_STATUS_UPDATED']);
      const chatb = (await c.api('POST', '/chatb/senders', { displayName: 'Acme', categoryCode: 'RETAIL', status: 'DRAFT' })).body.id as string;
      await c.control('POST', '/provisioning/events', { resourceType: 'SENDER', resourceId: chatb, trigger: 'CHATB_SENDER_INACTIVE' });
      assert.equal((await c.api('GET', `/chatb/senders/${chatb}`)).body.state, 'INACTIVE');

      const chata = (await c.api('POST', '/chata/senders', { phoneNumber: '+14155550111', displayName: 'Acme', status: 'DRAFT' })).body.id as string;
      await c.control('POST', '/provisioning/events', {
        resourceType: 'SENDER',
        resourceId: chata,
        trigger: 'CHATA_WABA_ACCOUNT_CHANGED',
        details: { state: 'REJECTED', errorCode: 'WABA_CONNECTED_TO_ANOTHER_PROJECT' },
      });
      const a = await c.api('GET', `/chata/senders/${chata}`);
      assert.deepEqual([a.body.state, a.body.errorCode], ['REJECTED', 'WABA_CONNECTED_TO_ANOTHER_PROJECT']);

      const rcs = (
        await c.api(
          'POST',
          '/rcs/senders',
          rcsSenderBody({
            displayName: 'Acme',
            description: '',
            banner: { url: 'https://acme.example/b.png', width: 1440, height: 448 },
            useCase: 'OTP',
            countries: ['IT'],
          }),
        )
      ).body.id as string;
      const badCountry = await c.control('POST', '/provisioning/events', {
        resourceType: 'SENDER',
        resourceId: rcs,
        trigger: 'RCS_SENDER_OPERATOR_STATUS_UPDATED',
        details: { country: 'FR', operator: 'TIM', operatorStatus: 'LAUNCHED' },
      });
      assert.equal(badCountry.status, 400);
      await c.control('POST', '/provisioning/events', {
        resourceType: 'SENDER',
        resourceId: rcs,
        trigger: 'RCS_SENDER_OPERATOR_STATUS_UPDATED',
        details: { country: 'IT', operator: 'TIM', operatorStatus: 'LAUNCHED' },
      });
      assert.equal((await c.api('GET', `/rcs/senders/${rcs}`)).body.countryStatus.IT.operators.TIM, 'LAUNCHED');
      await waitFor(() => receiver.received.length === 3, 'three events');
      assert.deepEqual(receiver.triggers().sort(), ['CHATA_WABA_ACCOUNT_CHANGED', 'CHATB_SENDER_INACTIVE', 'RCS_SENDER_OPERATOR_STATUS_UPDATED']);
    });
  });

  describe('reviewer settings and reset', () => {
    test('PUT replaces the sections given over the startup settings; bad values are refused', async () => {
      const start = await c.control('GET', '/provisioning/reviewer');
      assert.equal(start.body.templates.delayMs, 20);
      assert.equal(start.body.templates.outcome, 'approve');
      const set = await c.control('PUT', '/provisioning/reviewer', { chataSenders: { outcome: 'reject', errorCode: 'NO_PRICING_PLAN' } });
      assert.equal(set.status, 200);
      assert.deepEqual(set.body.chataSenders, { outcome: 'reject', errorCode: 'NO_PRICING_PLAN', delayMs: 20 });
      assert.equal(set.body.templates.outcome, 'approve');
      const bad = await c.control('PUT', '/provisioning/reviewer', {
        templates: { outcome: 'maybe', rejectionCode: 'RUDE' },
        rcs: { rejectCountries: ['France'] },
      });
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body.error.details.map((d: Body) => d.field).sort(), ['rcs.rejectCountries[0]', 'templates.outcome', 'templates.rejectionCode']);
    });

    test('reset forgets resources, webhooks, faults and reviewer settings', async () => {
      await subscribe(c, receiver, TEMPLATE_TRIGGERS);
      await c.control('PUT', '/provisioning/reviewer', { templates: { outcome: 'reject', delayMs: 300 } });
      await c.control('PUT', '/provisioning/webhook-faults', { drop: 3 });
      const id = (await c.api('POST', '/chata/templates', template())).body.id as string;
      await c.control('POST', '/reset');
      assert.equal((await c.api('GET', `/chata/templates/${id}`)).status, 404);
      assert.deepEqual((await c.api('GET', '/webhooks')).body.webhooks, []);
      assert.deepEqual((await c.control('GET', '/provisioning/webhook-faults')).body, { delayMs: 0, duplicate: 0, reorder: false, drop: 0 });
      assert.equal((await c.control('GET', '/provisioning/reviewer')).body.templates.outcome, 'approve');
      await sleep(400);
      assert.equal(receiver.received.length, 0, 'the pending review was cancelled');
      assert.deepEqual((await c.control('GET', '/provisioning/events')).body.events, []);
    });

    test('the provisioningReviewer option is checked at startup; close clears pending reviews', async () => {
      await assert.rejects(createSandbox({ provisioningReviewer: { templates: { delayMs: -1 } } }), /provisioningReviewer.*templates\.delayMs/);
      const slow = await createSandbox({ provisioningReviewer: { templates: { delayMs: 60_000 } } });
      const basic = `Basic ${Buffer.from(`${account.keyId}:${account.keySecret}`).toString('base64')}`;
      const res = await slow.app.inject({ method: 'POST', url: `${P}/chata/templates`, headers: { authorization: basic }, payload: template() });
      assert.equal(res.statusCode, 200);
      const started = Date.now();
      await slow.close();
      assert.ok(Date.now() - started < 1000, 'close does not wait for pending reviews');
    });
  });
});
