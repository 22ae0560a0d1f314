// Customer onboarding end to end through the API, on the real Temporal dev server against the sandbox:
// a plan that completes (every kind of step, the same key answering the same onboarding); a template
// rejected and retried by the caller, with a template added meanwhile; an onboarding cancelled midway with
// its compensation checked against the sandbox's own state; the template's timeline as CSV naming every
// webhook event.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { StepView } from '../../../processes/onboarding/onboarding/contract.js';
import { useHarness, uniqueName } from '../../helpers/harness.js';
import { rcsBody, readOr404, sandboxEvents, setReviewer, templateBody, waitUntil, type View } from '../../helpers/provisioning.js';
import { brandRegistration, setReviewer as setSenderIdReviewer, wireSenderId } from '../../helpers/senderid.js';
import { parseCsv } from '../../helpers/audit-csv.js';
import { createPlatformClients } from '../../../platform/index.js';

const steps = (v: View) => (v.details as unknown as { steps: StepView[] }).steps;
const step = (v: View, name: string) => steps(v).find((s) => s.name === name)!;
const ended = (v: View) => v.execution.status !== 'RUNNING';

describe('customer onboarding through the API', () => {
  const h = useHarness({ env: { RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS: '1500' } }, async (h) => {
    await wireSenderId(h);
    await setSenderIdReviewer(h, { outcome: 'approve', stepMs: 200, pendingApproval: 'never' });
  });

  const fast = {
    templates: { outcome: 'approve', delayMs: 200 },
    rcs: { outcome: 'launch', delayMs: 200 },
    chatbSenders: { outcome: 'activate', delayMs: 200 },
  };

  function plan(key: string, more: Record<string, unknown> = {}) {
    const chatb = uniqueName('Brand');
    return {
      key,
      subproject: { displayName: uniqueName('team') },
      bundle: { displayName: 'Acme', region: 'EU' },
      webhook: { target: `https://hooks.example.com/${key}`, secret: 'a-secret-of-some-length' },
      rcsSenders: [{ step: 'rcs', ...rcsBody(uniqueName('Rcs')) }],
      chatbSenders: [{ step: 'chatb', displayName: chatb, categoryCode: 'RETAIL' }],
      templates: [{ step: 'welcome', sender: 'chatb', ...templateBody(uniqueName('welcome').replace(/-/g, '_')) }],
      senderIds: [{ step: 'brand', ...brandRegistration(uniqueName('brand')) }],
      ...more,
    };
  }

  async function startOnboarding(body: Record<string, unknown>, expected = 202): Promise<string> {
    const res = await h.api({ method: 'POST', url: '/v1/onboardings', payload: body });
    assert.equal(res.statusCode, expected, res.body);
    return res.json<{ processId: string }>().processId;
  }

  /**
   * A repeated start is compared with the plan the onboarding runs, which it tells once its first task ran;
   * until then (later on a loaded machine) the API answers 503 "retry", and a caller retries.
   */
  async function postUntilPlanKnown(body: Record<string, unknown>) {
    for (let i = 0; ; i++) {
      const res = await h.api({ method: 'POST', url: '/v1/onboardings', payload: body });
      if (res.statusCode !== 503 || i === 40) return res;
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  const action = (id: string, path: string, payload: Record<string, unknown> = {}, key?: string) =>
    h.api({ method: 'POST', url: `/v1/onboardings/${encodeURIComponent(id)}${path}`, payload, ...(key ? { headers: { 'idempotency-key': key } } : {}) });

  test('completes: every kind of step, in dependency order; the same key answers the same onboarding, another plan under it is a 409', async () => {
    await setReviewer(h, fast);
    const key = uniqueName('acme');
    const body = plan(key);
    const id = await startOnboarding(body);
    const again = await postUntilPlanKnown(body);
    assert.equal(again.json().created, false, again.body);
    const other = await postUntilPlanKnown({ ...body, webhook: undefined });
    assert.equal(other.statusCode, 409, other.body);

    const done = await waitUntil(h, id, ended, 'ended', 90_000);
    assert.equal(done.state, 'COMPLETED', JSON.stringify(steps(done), null, 1));
    assert.deepEqual(
      steps(done).map((s) => [s.name, s.state]),
      [
        ['subproject', 'SUCCEEDED'],
        ['bundle', 'SUCCEEDED'],
        ['webhook', 'SUCCEEDED'],
        ['rcs', 'SUCCEEDED'],
        ['chatb', 'SUCCEEDED'],
        ['brand', 'SUCCEEDED'],
        ['welcome', 'SUCCEEDED'],
      ],
    );
    const got = await h.api({ method: 'GET', url: `/v1/onboardings/${encodeURIComponent(id)}` });
    assert.equal(got.statusCode, 200);
    assert.equal(got.json().kind, 'onboarding');
    // Each step is its own process, listed under its own kind.
    const bundle = step(done, 'bundle');
    assert.equal(bundle.processState, 'ACTIVE');
    const bundleView = await waitUntil(h, bundle.processId!, (v) => v.state === 'ACTIVE', 'bundle ACTIVE');
    assert.equal((bundleView.details.subproject as { id: string }).id, step(done, 'subproject').resource.subprojectId, 'the bundle is in the new subproject');
    // The customer's webhook is in its subproject, where its senders and templates are.
    const inSubproject = createPlatformClients(h.config.platform).provisioning.forProject(step(done, 'subproject').resource.subprojectId);
    const webhooks = await inSubproject.webhooks.list();
    assert.ok(
      webhooks.some((w) => w.target === body.webhook.target),
      "the webhook is on the platform, in the customer's subproject",
    );
    assert.equal(step(done, 'brand').processState, 'APPROVED');
    // Every kind of child is listed from its start in the state its run begins in (processes/onboarding/onboarding/contract.ts STEP_PROCESSES).
    for (const s of steps(done).filter((s) => s.processId)) {
      const child = await waitUntil(h, s.processId!, () => true, `${s.name} read`);
      const history = await h.client.workflow.getHandle(s.processId!).fetchHistory();
      const listed = history.events![0]!.workflowExecutionStartedEventAttributes!.searchAttributes!.indexedFields!.RelayflowState!;
      assert.equal(JSON.parse(Buffer.from(listed.data!).toString()), child.history[0]!.state, `${s.name}: listed at start in its first state`);
    }
  });

  test('a rejected template waits for the caller, who retries it with new components; the rest goes on', async () => {
    await setReviewer(h, { ...fast, templates: { outcome: 'reject', rejectionCode: 'INVALID_FORMAT', delayMs: 200 } });
    const key = uniqueName('retry');
    const id = await startOnboarding(plan(key, { rcsSenders: undefined, senderIds: undefined, webhook: undefined }));
    const waiting = await waitUntil(h, id, (v) => v.state === 'WAITING_FOR_CALLER', 'waiting for the caller', 60_000);
    const welcome = step(waiting, 'welcome');
    assert.equal(welcome.state, 'FAILED');
    assert.equal(welcome.processState, 'REJECTED');
    assert.match(welcome.reason ?? '', /INVALID_FORMAT/);
    assert.equal(step(waiting, 'chatb').state, 'SUCCEEDED');

    await setReviewer(h, fast);
    // A template added while the onboarding waits runs at once: its sender is ACTIVE.
    const added = await action(
      id,
      '/steps',
      { templates: [{ step: 'later', sender: 'chatb', ...templateBody(uniqueName('later').replace(/-/g, '_')) }] },
      'add-1',
    );
    assert.equal(added.statusCode, 200, added.body);
    const components = [{ type: 'BODY', text: 'Hello {{1}}, welcome aboard' }];
    // A resubmission the platform refuses: the step runs again, and fails again once the template reports the refusal.
    const fault = await fetch(`${h.sandbox.url}/_sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ area: 'provisioning', method: 'PATCH', pathContains: welcome.resource.templateId!, status: 400, count: 1 }),
    });
    assert.ok(fault.ok, await fault.text());
    const refused = await action(id, '/steps/welcome/retry', { resubmit: { components } }, 'retry-0');
    assert.equal(refused.json().accepted, true, refused.body);
    const failedAgain = await waitUntil(
      h,
      id,
      (v) => step(v, 'welcome').state === 'FAILED' && /resubmission refused/.test(step(v, 'welcome').reason ?? ''),
      'the refusal reported',
      30_000,
    );
    assert.equal(step(failedAgain, 'welcome').processState, 'REJECTED');
    const retried = await action(id, '/steps/welcome/retry', { resubmit: { components } }, 'retry-1');
    assert.equal(retried.statusCode, 200, retried.body);
    assert.equal(retried.json().accepted, true);
    // The same idempotency key is answered from memory, not resubmitted twice.
    assert.deepEqual((await action(id, '/steps/welcome/retry', { resubmit: { components } }, 'retry-1')).json(), retried.json());

    const done = await waitUntil(h, id, ended, 'completed', 60_000);
    assert.equal(done.state, 'COMPLETED', JSON.stringify(steps(done), null, 1));
    assert.equal(step(done, 'welcome').processState, 'APPROVED');
    assert.equal(step(done, 'later').state, 'SUCCEEDED');
    assert.deepEqual(step(done, 'later').after, ['chatb']);
    const template = await waitUntil(h, welcome.processId!, (v) => v.state === 'APPROVED', 'template APPROVED');
    // One resubmission, counted by the process. Its history entry names the resubmission, or the poll that read the
    // new review first (the poll and the edit's answer race on a loaded machine; the state is the same).
    assert.equal(template.details.resubmits, 1, JSON.stringify(template.history, null, 1));
    const backToReview = template.history.filter((c, i) => i > 0 && c.state === 'IN_PROGRESS' && template.history[i - 1]!.state === 'REJECTED');
    assert.equal(backToReview.length, 1, JSON.stringify(template.history, null, 1));
    assert.match(backToReview[0]!.reason ?? '', /resubmitted at the parent process's request|read from the platform/);

    // The template's timeline, as CSV, names every webhook event the sandbox delivered for it.
    const templateId = step(done, 'welcome').resource.templateId!;
    const delivered = new Set((await sandboxEvents(h, templateId)).map((r) => r.event.eventId));
    assert.ok(delivered.size >= 2, 'rejected, then approved');
    const csv = await h.api({ method: 'GET', url: `/v1/processes/${encodeURIComponent(welcome.processId!)}/timeline?format=csv&pageSize=500` });
    assert.equal(csv.statusCode, 200, csv.body);
    const rows = parseCsv(csv.body);
    const named = new Set(
      rows
        .slice(1)
        .filter((r) => r[3] === 'callback')
        .map((r) => (JSON.parse(r[5]!) as { eventId?: string }).eventId),
    );
    for (const eventId of delivered) assert.ok(named.has(eventId), `the CSV names ${eventId}: ${csv.body}`);
  });

  test('cancelled midway: running steps stop, what can be undone is undone in reverse order, the rest says why not', async () => {
    // The CHATB sender goes ACTIVE at once; the template and the RCS sender stay in review until the cancel.
    await setReviewer(h, {
      chatbSenders: { outcome: 'activate', delayMs: 200 },
      templates: { outcome: 'approve', delayMs: 600_000 },
      rcs: { outcome: 'launch', delayMs: 600_000 },
    });
    try {
      const key = uniqueName('cancel');
      const body = plan(key, { senderIds: undefined });
      const id = await startOnboarding(body);
      // A child reports only changes of outcome: its own process says it is in review.
      const started = await waitUntil(h, id, (v) => step(v, 'welcome').attempts > 0 && step(v, 'rcs').attempts > 0, 'template and RCS started', 60_000);
      await waitUntil(h, step(started, 'welcome').processId!, (v) => v.state === 'IN_PROGRESS', 'template in review', 60_000);
      await waitUntil(h, step(started, 'rcs').processId!, (v) => v.state === 'IN_REVIEW', 'RCS in review', 60_000);
      const midway = await waitUntil(h, id, () => true, 'onboarding read');
      assert.equal(midway.state, 'RUNNING');
      assert.equal(step(midway, 'welcome').processState, undefined, 'no report while the template is on its way');

      const cancelled = await action(id, '/cancel', { reason: 'customer walked away' }, 'cancel-1');
      assert.equal(cancelled.statusCode, 200, cancelled.body);
      const done = await waitUntil(h, id, ended, 'cancelled', 60_000);
      assert.equal(done.state, 'CANCELLED', JSON.stringify(steps(done), null, 1));
      assert.match(done.history.at(-1)!.reason ?? '', /customer walked away/);

      const c = (name: string) => step(done, name).compensation!;
      for (const name of ['welcome', 'rcs', 'webhook', 'bundle']) assert.equal(c(name).undone, true, `${name}: ${JSON.stringify(c(name))}`);
      assert.equal(c('chatb').undone, false);
      assert.match(c('chatb').reason, /ACTIVE/);
      assert.equal(c('subproject').undone, false);
      assert.match(c('subproject').reason, /no way to delete a subproject/);
      assert.equal(step(done, 'welcome').state, 'STOPPED');
      assert.equal(step(done, 'rcs').state, 'STOPPED');

      // Reverse order: the template (started last) is undone before the bundle and the subproject.
      const undoneAt = (name: string) =>
        done.history.findIndex((h) => (h.reason ?? '').startsWith(`step ${name}: undone`) || (h.reason ?? '').startsWith(`step ${name}: not undone`));
      assert.ok(
        undoneAt('welcome') < undoneAt('chatb') && undoneAt('chatb') < undoneAt('bundle') && undoneAt('bundle') < undoneAt('subproject'),
        JSON.stringify(done.history, null, 1),
      );

      // The sandbox's own state agrees: the bundle is the platform project's, the rest the customer's subproject's.
      const parent = createPlatformClients(h.config.platform).provisioning;
      const p = parent.forProject(step(done, 'subproject').resource.subprojectId);
      const template = await readOr404(() => p.chatbTemplates.get(step(done, 'welcome').resource.templateId!));
      assert.ok(template === 404 || template.state === 'DELETED', JSON.stringify(template));
      assert.equal(await readOr404(() => p.rcs.get(step(done, 'rcs').resource.senderId!)), 404);
      const chatb = await readOr404(() => p.chatbSenders.get(step(done, 'chatb').resource.senderId!));
      assert.equal(chatb !== 404 && chatb.state, 'ACTIVE');
      const bundle = await readOr404(() => parent.bundles.get(step(done, 'bundle').resource.bundleId!));
      assert.equal(bundle !== 404 && bundle.state, 'DELETED');
      assert.ok(!(await p.webhooks.list()).some((w) => w.target === body.webhook.target), 'the webhook is gone');
      // The template's own process ended STOPPED; the bundle's latest run says DELETED.
      assert.equal((await waitUntil(h, step(done, 'welcome').processId!, ended, 'template process ended')).state, 'STOPPED');
      assert.equal((await waitUntil(h, step(done, 'bundle').processId!, ended, 'bundle process ended')).state, 'DELETED');
      // A second cancel is refused: the onboarding has ended.
      assert.equal((await action(id, '/cancel', {}, 'cancel-2')).statusCode, 409);
    } finally {
      await setReviewer(h, fast);
    }
  });
});
