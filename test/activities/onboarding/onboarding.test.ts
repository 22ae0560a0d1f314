// Onboarding activities against the sandbox: ensureWebhook is idempotent by target, and undoStep undoes what
// the platform lets be undone, says why not otherwise, and answers undone again when repeated.
// (The look-up of a resource ID through the child's status query needs Temporal: tested end to end.)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApplicationFailure } from '@temporalio/common';
import { createOnboardingActivities } from '../../../processes/onboarding/onboarding/activities/index.js';
import type { Compensation, UndoStepInput } from '../../../processes/onboarding/onboarding/contract.js';
import type { PlatformClients } from '../../../platform/index.js';
import { PROVISIONING_TRIGGERS } from '../../../platform/provisioning/types.js';
import { createSandbox, type Sandbox } from '../../../sandbox/index.js';
import { sandboxClients } from '../../helpers/sandbox-clients.js';
import { rcsSenderFields } from '../../helpers/provisioning.js';

describe('onboarding activities against the sandbox', () => {
  let sb: Sandbox;
  let clients: PlatformClients;
  let acts: ReturnType<typeof createOnboardingActivities>;

  before(async () => {
    // Reviewers decide fast; sender ID registrations stay where a test puts them.
    sb = await createSandbox({
      provisioningReviewer: { templates: { delayMs: 20 }, rcs: { delayMs: 20 }, chataSenders: { delayMs: 20 }, chatbSenders: { delayMs: 20 } },
    });
    await sb.listen();
    clients = sandboxClients(sb);
    acts = createOnboardingActivities({ provisioning: clients.provisioning, senderid: clients.senderid });
    await control('PUT', '/senderid/reviewer', { stepMs: 60_000 });
  });
  after(() => sb.close());

  async function control(method: string, path: string, body?: unknown): Promise<unknown> {
    const res = await fetch(`${sb.url}/_sandbox${path}`, {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    assert.ok(res.ok, `${method} ${path}: ${res.status} ${await res.clone().text()}`);
    return res.json();
  }
  /** The next matching request to the platform answers `status` with `body` (the area's error body by default). */
  const fault = (area: string, method: string, pathContains: string, status: number, body?: unknown) =>
    control('POST', '/faults', { area, method, pathContains, status, count: 1, ...(body === undefined ? {} : { body }) });

  async function until<T extends { state: string }>(read: () => Promise<T>, state: string): Promise<void> {
    for (let i = 0; i < 300; i++, await new Promise((r) => setTimeout(r, 10))) if ((await read()).state === state) return;
    assert.fail(`never reached ${state}`);
  }

  /** Undoes twice: the repeat must also count as undone (what is gone is undone). */
  async function undoTwice(input: UndoStepInput, reason: RegExp): Promise<void> {
    const first = await acts.undoStep(input);
    assert.equal(first.undone, true, first.reason);
    assert.match(first.reason, reason);
    const again = await acts.undoStep(input);
    assert.equal(again.undone, true, again.reason);
    assert.match(again.reason, /already gone/);
  }

  function assertKept(c: Compensation, id: string, reason: RegExp): void {
    assert.equal(c.undone, false, c.reason);
    assert.match(c.reason, reason);
    assert.ok(c.reason.includes(id), `the reason names ${id}: ${c.reason}`);
  }

  async function failureOf(p: Promise<unknown>): Promise<ApplicationFailure> {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof ApplicationFailure, `expected an ApplicationFailure, got ${String(err)}`);
    return err;
  }

  describe('ensureWebhook', () => {
    const target = 'https://customer.example/hooks/provisioning';

    test('creates once for every trigger, then finds it by target (created: false)', async () => {
      const first = await acts.ensureWebhook({ target, secret: 'secret-123' });
      assert.equal(first.created, true);
      const again = await acts.ensureWebhook({ target, secret: 'secret-123' });
      assert.deepEqual(again, { webhookId: first.webhookId, created: false });
      const listed = (await clients.provisioning.webhooks.list()).filter((w) => w.target === target);
      assert.equal(listed.length, 1);
      assert.deepEqual([...listed[0]!.triggers].sort(), [...PROVISIONING_TRIGGERS].sort());
    });

    test('plan triggers are used; an unknown trigger is a non-retryable validation failure', async () => {
      const made = await acts.ensureWebhook({ target: `${target}/rcs`, secret: 'secret-123', triggers: ['RCS_SENDER_STATUS_UPDATED'] });
      const w = (await clients.provisioning.webhooks.list()).find((x) => x.id === made.webhookId);
      assert.deepEqual(w?.triggers, ['RCS_SENDER_STATUS_UPDATED']);
      const bad = await failureOf(acts.ensureWebhook({ target: `${target}/bad`, secret: 'secret-123', triggers: ['NOT_A_TRIGGER'] }));
      assert.deepEqual([bad.type, bad.nonRetryable], ['PlatformValidationError', true]);
    });

    test('a 503 on create is retryable, and the retry creates exactly one', async () => {
      await fault('provisioning', 'POST', '/webhooks', 503);
      const failed = await failureOf(acts.ensureWebhook({ target: `${target}/flaky`, secret: 'secret-123' }));
      assert.deepEqual([failed.type, failed.nonRetryable], ['PlatformUnavailableError', false]);
      assert.equal((await acts.ensureWebhook({ target: `${target}/flaky`, secret: 'secret-123' })).created, true);
      assert.equal((await clients.provisioning.webhooks.list()).filter((w) => w.target === `${target}/flaky`).length, 1);
    });
  });

  describe('undoStep', () => {
    test('webhook: one this onboarding created is deleted; one that existed before stays', async () => {
      const made = await acts.ensureWebhook({ target: 'https://customer.example/undo/a', secret: 'secret-123' });
      await undoTwice({ kind: 'webhook', resource: { webhookId: made.webhookId }, created: true }, new RegExp(`Deleted webhook ${made.webhookId}`));
      const theirs = await acts.ensureWebhook({ target: 'https://customer.example/undo/b', secret: 'secret-123' });
      const c = await acts.undoStep({ kind: 'webhook', resource: { webhookId: theirs.webhookId }, created: false });
      assertKept(c, theirs.webhookId, /existed before the onboarding; left in place/);
      assert.ok(
        (await clients.provisioning.webhooks.list()).some((w) => w.id === theirs.webhookId),
        'still there',
      );
    });

    for (const channel of ['CHATA', 'CHATB'] as const) {
      const kind = channel === 'CHATA' ? 'chata-template' : 'chatb-template';
      const templates = () => clients.provisioning.templates(channel);
      const create = (name: string, status: 'DRAFT' | 'SUBMIT' = 'SUBMIT') =>
        templates().create({ name, language: 'en_US', category: 'UTILITY', status, components: [{ type: 'BODY', text: 'Hi {{1}}' }] });

      test(`${kind}: DRAFT, IN_PROGRESS and REJECTED are deleted; APPROVED stays; an unknown one is already gone`, async () => {
        const draft = await create(`${kind.replace('-', '_')}_draft`, 'DRAFT');
        await undoTwice({ kind, resource: { templateId: draft.id } }, new RegExp(`Deleted the DRAFT ${channel} template ${draft.id}`));
        assert.equal((await templates().get(draft.id)).state, 'DELETED');

        await control('PUT', '/provisioning/reviewer', { templates: { outcome: 'approve', delayMs: 60_000 } });
        const reviewing = await create(`${kind.replace('-', '_')}_review`);
        await undoTwice({ kind, resource: { templateId: reviewing.id } }, /Deleted the IN_PROGRESS/);

        await control('PUT', '/provisioning/reviewer', { templates: { outcome: 'reject', delayMs: 20 } });
        const rejected = await create(`${kind.replace('-', '_')}_rejected`);
        await until(() => templates().get(rejected.id), 'REJECTED');
        await undoTwice({ kind, resource: { templateId: rejected.id } }, /Deleted the REJECTED/);

        await control('PUT', '/provisioning/reviewer', { templates: { outcome: 'approve', delayMs: 20 } });
        const approved = await create(`${kind.replace('-', '_')}_approved`);
        await until(() => templates().get(approved.id), 'APPROVED');
        assertKept(
          await acts.undoStep({ kind, resource: { templateId: approved.id } }),
          approved.id,
          /the template was approved \(APPROVED\); an approved template stays: delete it yourself/,
        );
        assert.equal((await templates().get(approved.id)).state, 'APPROVED');

        const unknown = await acts.undoStep({ kind, resource: { templateId: '01J00000000000000000000000' } });
        assert.deepEqual([unknown.undone, /already gone/.test(unknown.reason)], [true, true]);
      });
    }

    test('chata-template: a PAUSED template stays', async () => {
      const t = await clients.provisioning.chataTemplates.create({
        name: 'paused_one',
        language: 'en_US',
        category: 'UTILITY',
        components: [{ type: 'BODY', text: 'Hi' }],
      });
      await until(() => clients.provisioning.chataTemplates.get(t.id), 'APPROVED');
      await control('POST', '/provisioning/events', {
        resourceType: 'TEMPLATE',
        resourceId: t.id,
        trigger: 'CHATA_TEMPLATE_STATUS_UPDATED',
        details: { newState: 'PAUSED' },
      });
      assert.equal((await clients.provisioning.chataTemplates.get(t.id)).state, 'PAUSED');
      assertKept(await acts.undoStep({ kind: 'chata-template', resource: { templateId: t.id } }), t.id, /approved \(PAUSED\)/);
    });

    const rcsSender = (displayName: string) =>
      clients.provisioning.rcs.create(rcsSenderFields(displayName, { description: 'Parcel tracking', brandPhoneNumber: '+447700900123', countries: ['GB'] }));

    test('rcs-sender: a DRAFT is deleted; a LAUNCHED one stays; a 409 from the delete is not undone, in the platform words', async () => {
      const draft = await rcsSender('Draft');
      await undoTwice({ kind: 'rcs-sender', resource: { senderId: draft.id } }, new RegExp(`Deleted the DRAFT RCS sender ${draft.id}`));

      const launched = await rcsSender('Launched');
      await clients.provisioning.rcs.answerQuestionnaire(launched.id, {
        brand_description: 'Shop',
        message_types: 'Orders',
        opt_in: 'Checkout',
        opt_out: 'STOP',
      });
      await clients.provisioning.rcs.launch(launched.id, { email: 'ops@acme.example' });
      await until(() => clients.provisioning.rcs.get(launched.id), 'LAUNCHED');
      assertKept(
        await acts.undoStep({ kind: 'rcs-sender', resource: { senderId: launched.id } }),
        launched.id,
        /is LAUNCHED: a launched sender cannot be deleted/,
      );

      // Launched between the read and the delete: the platform refuses.
      const raced = await rcsSender('Raced');
      await fault('provisioning', 'DELETE', `/rcs/senders/${raced.id}`, 409, {
        errorCode: 'conflict',
        message: `RCS sender ${raced.id} is LAUNCHED: a launched sender cannot be deleted`,
        resolution: '',
      });
      const refused = await acts.undoStep({ kind: 'rcs-sender', resource: { senderId: raced.id } });
      assertKept(refused, raced.id, /was not deleted: the platform refused \(RCS sender \S+ is LAUNCHED: a launched sender cannot be deleted\)/);
    });

    test('chata-sender: PENDING is deleted (DELETED after); ACTIVE stays', async () => {
      await control('PUT', '/provisioning/reviewer', { chataSenders: { delayMs: 60_000 } });
      const pending = await clients.provisioning.chataSenders.create({ phoneNumber: '+14155550100', displayName: 'Acme' });
      await undoTwice({ kind: 'chata-sender', resource: { senderId: pending.id } }, new RegExp(`Deleted the PENDING CHATA sender ${pending.id}`));
      assert.equal((await clients.provisioning.chataSenders.get(pending.id)).state, 'DELETED');

      await control('PUT', '/provisioning/reviewer', { chataSenders: { delayMs: 20 } });
      const active = await clients.provisioning.chataSenders.create({ phoneNumber: '+14155550101', displayName: 'Acme' });
      await until(() => clients.provisioning.chataSenders.get(active.id), 'ACTIVE');
      assertKept(await acts.undoStep({ kind: 'chata-sender', resource: { senderId: active.id } }), active.id, /is ACTIVE: an active sender cannot be deleted/);
    });

    test('chatb-sender: a DRAFT is deleted; ACTIVE stays', async () => {
      const draft = await clients.provisioning.chatbSenders.create({ displayName: 'Acme', categoryCode: 'RETAIL', status: 'DRAFT' });
      await undoTwice({ kind: 'chatb-sender', resource: { senderId: draft.id } }, new RegExp(`Deleted the DRAFT CHATB sender ${draft.id}`));
      const active = await clients.provisioning.chatbSenders.create({ displayName: 'Beta', categoryCode: 'RETAIL' });
      await until(() => clients.provisioning.chatbSenders.get(active.id), 'ACTIVE');
      assertKept(await acts.undoStep({ kind: 'chatb-sender', resource: { senderId: active.id } }), active.id, /is ACTIVE/);
    });

    const registration = () =>
      clients.senderid.createRegistration({
        policyId: 'pol-au-alpha-aggregator',
        requestDetails: [
          {
            senderIdDetails: [{ senderId: 'ACME' }],
            additionalDetails: [{ companyName: 'Acme', website: 'https://acme.test', email: 'ops@acme.test', useCase: 'OTP' }],
          },
        ],
      });

    test('senderid-registration: IN_QUEUE is deleted; APPROVED stays, also when approved between read and delete', async () => {
      const queued = await registration();
      await undoTwice(
        { kind: 'senderid-registration', resource: { registrationId: queued.id } },
        new RegExp(`Deleted the IN_QUEUE sender ID registration ${queued.id}`),
      );

      const approved = await registration();
      await control('POST', `/senderid/registrations/${approved.id}/state`, { state: 'APPROVED' });
      assertKept(
        await acts.undoStep({ kind: 'senderid-registration', resource: { registrationId: approved.id } }),
        approved.id,
        /is APPROVED: approved registrations stay/,
      );

      const raced = await registration();
      await fault('senderid', 'DELETE', raced.id, 409, {
        error: { code: 409, message: `Registration ${raced.id} is APPROVED`, status: 'FAILED_PRECONDITION', details: [] },
      });
      assertKept(
        await acts.undoStep({ kind: 'senderid-registration', resource: { registrationId: raced.id } }),
        raced.id,
        /the platform refused \(Registration \S+ is APPROVED\)/,
      );
    });

    test('bundle-provisioning: the bundle is deleted, then already gone', async () => {
      const bundle = await clients.provisioning.bundles.create({ name: 'acme', region: 'EU', convApp: {} });
      await undoTwice({ kind: 'bundle-provisioning', resource: { bundleId: bundle.id } }, new RegExp(`Deleted bundle ${bundle.id}`));
      assert.equal((await clients.provisioning.bundles.get(bundle.id)).state, 'DELETED');
    });

    test('subproject: never undone, naming the subproject', async () => {
      const c = await acts.undoStep({ kind: 'subproject', resource: { subprojectId: 'sp-1' } });
      assertKept(c, 'sp-1', /the platform has no way to delete a subproject \(area E offers create, list and get only\)/);
    });

    test('no resource ID and no process to ask: nothing was made on the platform', async () => {
      for (const kind of ['webhook', 'rcs-sender', 'chata-template', 'senderid-registration', 'bundle-provisioning', 'subproject'] as const) {
        const c = await acts.undoStep({ kind, resource: {}, processId: `${kind}:x` });
        assert.equal(c.undone, true, kind);
        assert.match(c.reason, /^Nothing was made on the platform/);
      }
    });

    test('a platform outage is a retryable failure: Temporal retries the undo', async () => {
      await fault('provisioning', 'GET', '/chatb/senders/', 503);
      const failed = await failureOf(acts.undoStep({ kind: 'chatb-sender', resource: { senderId: 'whatever' } }));
      assert.deepEqual([failed.type, failed.nonRetryable], ['PlatformUnavailableError', false]);
    });
  });
});
