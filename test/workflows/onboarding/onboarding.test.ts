// The onboarding workflow on the real Temporal dev server against the sandbox, started with hand-built
// plans (the API's plan building has its own tests): steps in dependency order with the subproject's ID
// bound into the bundle, a failed step blocking only what needs it, skip cascading through a hard
// dependency, a retry that starts a failed step's process again, and a child that ends FAILED leaving the
// IDs of what it made on its step, which compensation then deletes by.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { workflowIds } from '../../../processes/kinds.js';
import type { OnboardingInput, OnboardingResult, StepPlan, StepView } from '../../../processes/onboarding/onboarding/contract.js';
import { cancelOnboardingUpdate, retryStepUpdate, skipStepUpdate } from '../../../processes/onboarding/onboarding/contract.js';
import { startHarness, uniqueName, type Harness } from '../../helpers/harness.js';
import { sandboxRequests, setReviewer, view, waitUntil, type View } from '../../helpers/provisioning.js';

const steps = (v: View) => (v.details as unknown as { steps: StepView[] }).steps;
const step = (v: View, name: string) => steps(v).find((s) => s.name === name)!;

describe('onboarding workflow', () => {
  let h: Harness;
  let projectId: string;
  before(async () => {
    h = await startHarness({ env: { RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS: '1500' } });
    projectId = h.config.platform.credentials.projectId;
    await setReviewer(h, { chatbSenders: { outcome: 'activate', delayMs: 200 }, templates: { outcome: 'approve', delayMs: 200 } });
  });
  after(async () => h.close());

  const follow = { pollIntervalMs: 1500, overdueAfterMs: 600_000 };

  function plan(key: string): StepPlan[] {
    const sub = uniqueName('team');
    const sender = uniqueName('Brand');
    const template = uniqueName('welcome').replace(/-/g, '_');
    return [
      {
        name: 'subproject',
        kind: 'subproject',
        after: [],
        process: {
          workflowType: 'subprojectProvisioning',
          processId: workflowIds.subproject(projectId, sub),
          input: { parentProjectId: projectId, displayName: sub, ...h.config.processes.subproject },
        },
      },
      {
        name: 'bundle',
        kind: 'bundle-provisioning',
        after: [{ step: 'subproject' }],
        bind: [{ from: 'subproject', field: 'subprojectId', into: 'bundle.subprojectId' }],
        process: {
          workflowType: 'bundleProvisioning',
          processId: workflowIds['bundle-provisioning'](projectId, key),
          input: { projectId, key, bundle: { name: 'Acme', region: 'EU', smsApp: {} }, ...follow },
        },
      },
      {
        name: 'sender',
        kind: 'chatb-sender',
        after: [{ step: 'subproject' }, { step: 'bundle' }],
        process: {
          workflowType: 'chatbSenderApproval',
          processId: workflowIds['chatb-sender'](projectId, sender),
          input: { projectId, sender: { displayName: sender, categoryCode: 'RETAIL' }, ...follow },
        },
      },
      {
        name: 'welcome',
        kind: 'chatb-template',
        after: [{ step: 'sender', hard: true }],
        process: {
          workflowType: 'templateApproval',
          processId: workflowIds['chatb-template'](projectId, template, 'en_US'),
          input: {
            channel: 'CHATB',
            projectId,
            template: { name: template, language: 'en_US', category: 'MARKETING', components: [{ type: 'BODY', text: 'Hello {{1}}' }] },
            ...follow,
          },
        },
      },
    ];
  }

  async function startOnboarding(stepsOf: (key: string) => StepPlan[]): Promise<string> {
    const key = uniqueName('acme');
    const id = workflowIds.onboarding(projectId, key);
    const input: OnboardingInput = { projectId, key, planHash: 'test', steps: stepsOf(key) };
    await h.client.workflow.start('onboarding', { workflowId: id, taskQueue: h.config.taskQueue, args: [input] });
    return id;
  }

  test('completes: steps in dependency order, the subproject bound into the bundle, each step its own process', async () => {
    const id = await startOnboarding(plan);
    const done = await waitUntil(h, id, (v) => v.execution.status === 'COMPLETED', 'completed', 60_000);
    assert.equal(done.state, 'COMPLETED');
    for (const s of steps(done)) assert.equal(s.state, 'SUCCEEDED', JSON.stringify(s));
    const subprojectId = step(done, 'subproject').resource.subprojectId;
    assert.ok(subprojectId);
    const bundle = await waitUntil(h, step(done, 'bundle').processId!, (v) => v.state === 'ACTIVE', 'bundle ACTIVE');
    assert.deepEqual((bundle.details.subproject as { id: string }).id, subprojectId, "the bundle is in the onboarding's subproject");
    assert.equal(step(done, 'welcome').processState, 'APPROVED');
    assert.ok(step(done, 'welcome').resource.templateId);
    // Order: the sender started after the bundle was ACTIVE, the template after the sender was ACTIVE.
    const at = (name: string, what: RegExp) => done.history.find((c) => c.reason && new RegExp(`^step ${name}: `).test(c.reason) && what.test(c.reason))!.at;
    assert.ok(at('sender', /RUNNING/) >= at('bundle', /SUCCEEDED/));
    assert.ok(at('welcome', /RUNNING/) >= at('sender', /SUCCEEDED/));
    const result = (await h.client.workflow.getHandle(id).result()) as OnboardingResult;
    assert.equal(result.state, 'COMPLETED');

    // What the children write for their parent: listed at start in their first state (no upsert of their own for
    // it), and one report each, of their one change of outcome (to ok); not one per state change.
    for (const s of steps(done)) {
      const child = await h.client.workflow.getHandle(s.processId!).fetchHistory();
      const events = child.events ?? [];
      const listed = events[0]!.workflowExecutionStartedEventAttributes!.searchAttributes!.indexedFields!;
      const value = (name: string) => defaultPayloadConverter.fromPayload(listed[name] as Payload);
      const first = (await waitUntil(h, s.processId!, () => true, `${s.name} read`)).history[0]!.state;
      assert.deepEqual([value('RelayflowKind'), value('RelayflowState')], [s.kind, first], `${s.name}: listed at start`);
      const upserted = events.flatMap((e) => Object.keys(e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {}));
      assert.ok(!upserted.includes('RelayflowKind'), `${s.name}: no upsert of its kind (${upserted.join(', ')})`);
      const reports = events.filter((e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes).length;
      assert.equal(reports, 1, `${s.name}: one report to the parent`);
    }
  });

  test('a failed step blocks what needs it; skip cascades through a hard dependency; retry starts it again', async () => {
    await setReviewer(h, { chatbSenders: { outcome: 'reject', delayMs: 200 } });
    try {
      const id = await startOnboarding(plan);
      // Deadlines are generous: CI runs this beside eight other files on two cores (one 60/30 s wait ran out there).
      const waiting = await waitUntil(h, id, (v) => v.state === 'WAITING_FOR_CALLER', 'waiting for the caller', 120_000);
      assert.equal(step(waiting, 'sender').state, 'FAILED');
      assert.equal(step(waiting, 'welcome').state, 'BLOCKED');
      assert.match(step(waiting, 'welcome').reason ?? '', /sender, which failed/);
      assert.equal(step(waiting, 'bundle').state, 'SUCCEEDED');
      const handle = h.client.workflow.getHandle(id);

      // Retry: the sender's process ended FAILED, so the step starts it again (and it is rejected again).
      const retried = await handle.executeUpdate(retryStepUpdate, { args: [{ operationId: 'r1', step: 'sender' }] });
      assert.equal(retried.accepted, true, JSON.stringify(retried));
      const again = await waitUntil(h, id, (v) => step(v, 'sender').attempts === 2 && step(v, 'sender').state === 'FAILED', 'second attempt failed', 60_000);
      assert.equal(again.state, 'WAITING_FOR_CALLER');

      const skipped = await handle.executeUpdate(skipStepUpdate, { args: [{ operationId: 's1', step: 'sender', reason: 'no CHATB for now' }] });
      assert.equal(skipped.accepted, true);
      const done = await waitUntil(h, id, (v) => v.execution.status === 'COMPLETED', 'completed', 60_000);
      assert.equal(step(done, 'sender').state, 'SKIPPED');
      assert.equal(step(done, 'welcome').state, 'SKIPPED');
      assert.match(step(done, 'welcome').reason ?? '', /needs step sender, which was skipped/);
      assert.equal(step(done, 'welcome').attempts, 0, 'the template never started');
    } finally {
      await setReviewer(h, { chatbSenders: { outcome: 'activate', delayMs: 200 } });
    }
  });

  /** One CHATB sender step, with nothing before it. */
  function senderOnly(): StepPlan[] {
    const sender = uniqueName('Brand');
    return [
      {
        name: 'sender',
        kind: 'chatb-sender',
        after: [],
        process: {
          workflowType: 'chatbSenderApproval',
          processId: workflowIds['chatb-sender'](projectId, sender),
          input: { projectId, sender: { displayName: sender, categoryCode: 'RETAIL' }, ...follow },
        },
      },
    ];
  }

  /**
   * The child ends FAILED in the same task as its report of it, which never reaches the onboarding: the step has the
   * sender's ID from the child's failure. Cancelling then deletes that sender on the platform.
   */
  async function failedStepKeepsItsSender(reason: RegExp, undoneAs: string): Promise<void> {
    const id = await startOnboarding(senderOnly);
    const waiting = await waitUntil(h, id, (v) => v.state === 'WAITING_FOR_CALLER', 'waiting for the caller', 120_000);
    const s = step(waiting, 'sender');
    assert.equal(s.state, 'FAILED', JSON.stringify(s));
    assert.match(s.reason ?? '', reason);
    const child = await view(h, s.processId!);
    assert.equal(child.execution.status, 'FAILED', 'the child process ended FAILED');
    const senderId = child.details.senderId as string;
    assert.ok(senderId, 'the child made a sender');
    assert.deepEqual(s.resource, { senderId }, 'the step names the sender its failed child made');

    await h.client.workflow.getHandle(id).executeUpdate(cancelOnboardingUpdate, { args: [{ operationId: 'c1', reason: 'not now' }] });
    const cancelled = await waitUntil(h, id, (v) => v.state === 'CANCELLED', 'cancelled', 60_000);
    const undone = step(cancelled, 'sender');
    assert.equal(undone.compensation?.undone, true, JSON.stringify(undone));
    assert.equal(undone.compensation?.reason, `Deleted the ${undoneAs} CHATB sender ${senderId}.`);
    assert.deepEqual(undone.resource, { senderId });
    const deletes = await sandboxRequests(h, 'DELETE', `/chatb/senders/${senderId}`);
    assert.deepEqual(
      deletes.map((r) => r.status),
      [200],
      'the platform deleted the sender once',
    );
  }

  test("a child rejected by the platform ends FAILED: its step keeps the sender's ID, and a cancel deletes that sender", async () => {
    await setReviewer(h, { chatbSenders: { outcome: 'reject', delayMs: 200 } });
    try {
      await failedStepKeepsItsSender(/ended FAILED: rejected/, 'REJECTED');
    } finally {
      await setReviewer(h, { chatbSenders: { outcome: 'activate', delayMs: 200 } });
    }
  });

  test("a child whose platform call is refused for good ends FAILED: its step keeps the sender's ID, and a cancel deletes it", async () => {
    // The review never ends while the test runs; the sender's first read (its poll, 1.5 s after the create) is refused.
    await setReviewer(h, { chatbSenders: { outcome: 'activate', delayMs: 600_000 } });
    // The earlier tests' live senders are still watched: their polls would take the one refusal meant for this one.
    const query = `RelayflowKind = 'chatb-sender' AND ExecutionStatus = 'Running' AND TaskQueue = '${h.config.taskQueue}'`;
    for await (const w of h.client.workflow.list({ query })) await h.client.workflow.getHandle(w.workflowId).terminate('an earlier test is done with it');
    const fault = await fetch(`${h.sandbox.url}/_sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ area: 'provisioning', method: 'GET', pathContains: '/chatb/senders/', status: 400, count: 1 }),
    });
    assert.ok(fault.ok, await fault.text());
    try {
      await failedStepKeepsItsSender(/ended FAILED: .*400/, 'IN_REVIEW');
    } finally {
      await setReviewer(h, { chatbSenders: { outcome: 'activate', delayMs: 200 } });
    }
  });
});
