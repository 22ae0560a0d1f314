// An upgrade of a running deployment under Worker Deployment Versioning: processes in flight on version v1, a
// worker of v2 started (it makes itself current), the v1 worker drained, then stopped. A pinned kind (a
// verification) finishes on v1; an auto-upgrade kind (a template under review) moves to v2; a process started after
// the upgrade runs on v2. None fails, none is left waiting.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Client } from '@temporalio/client';
import { createWorker, type WorkerGroup } from '../../workers/worker.js';
import { useHarness, uniqueName } from '../helpers/harness.js';
import { pollUntil } from '../helpers/deadline.js';
import { versionedBundleFile } from '../helpers/workflow-bundles.js';
import { reviewerEvent, setReviewer, start, templateBody } from '../helpers/provisioning.js';
import { freshNumber, messageFor, report, startVerification } from '../helpers/verification.js';

const DEPLOYMENT = `upgrade-${uniqueName('d')}`;

/** Where the server says a run is: its versioning behaviour and the build ID it runs on. */
async function versionOf(client: Client, workflowId: string): Promise<{ behavior: string; buildId: string | undefined }> {
  const { workflowExecutionInfo } = await client.workflowService.describeWorkflowExecution({
    namespace: client.options.namespace,
    execution: { workflowId },
  });
  const info = workflowExecutionInfo?.versioningInfo;
  const behaviors: Record<number, string> = { 0: 'UNSPECIFIED', 1: 'PINNED', 2: 'AUTO_UPGRADE' };
  return { behavior: behaviors[Number(info?.behavior ?? 0)] ?? 'none', buildId: info?.deploymentVersion?.buildId ?? undefined };
}

describe('an upgrade with processes in flight (Worker Deployment Versioning)', () => {
  const h = useHarness({
    env: { RELAYFLOW_WORKER_VERSIONING: 'on', RELAYFLOW_WORKER_DEPLOYMENT: DEPLOYMENT, RELAYFLOW_WORKER_BUILD_ID: 'v1' },
  });

  test('pinned finishes on v1, auto-upgrade moves to v2, new starts run on v2; the old worker drains and stops', { timeout: 120_000 }, async () => {
    // In flight on v1: a verification waiting for its code, a template waiting for its review. The reviewer approves
    // it only when told, after v2 is current: a review timed from the start raced v2's start on a loaded machine.
    await setReviewer(h, { templates: { outcome: 'approve', delayMs: 3_600_000 } });
    const identity = freshNumber();
    const verification = await startVerification(h, { identity, method: 'sms' });
    const template = await start(h, '/v1/templates/chata', templateBody(uniqueName('upgrade').replace(/-/g, '_')));
    const inReview = await h.waitForState(template, 'IN_PROGRESS');
    const templateId = (inReview.details as { templateId: string }).templateId;
    assert.deepEqual(await versionOf(h.client, verification.processId), { behavior: 'PINNED', buildId: 'v1' });
    assert.deepEqual(await versionOf(h.client, template), { behavior: 'AUTO_UPGRADE', buildId: 'v1' });

    // v2 comes up beside v1 and makes itself current.
    const v2Config = { ...h.config, workerVersioning: { deployment: DEPLOYMENT, buildId: 'v2', promote: true } };
    const v2 = await createWorker({ config: v2Config, logger: h.app.log as never, workflowBundlePath: await versionedBundleFile() });
    const v2Running = v2.worker.run();
    try {
      await pollUntil(async () => (await currentBuildId(h.client)) === 'v2', 'v2 current', 30_000, 200);

      // A process started now runs on v2; the template moves to v2 at its next task (the review's webhook).
      const afterIdentity = freshNumber();
      const after = await startVerification(h, { identity: afterIdentity, method: 'sms' });
      assert.deepEqual(await versionOf(h.client, after.processId), { behavior: 'PINNED', buildId: 'v2' });
      await reviewerEvent(h, { resourceType: 'TEMPLATE', resourceId: templateId, trigger: 'CHATA_TEMPLATE_APPROVED' });
      await h.waitForState(template, 'APPROVED', 30_000);
      assert.deepEqual(await versionOf(h.client, template), { behavior: 'AUTO_UPGRADE', buildId: 'v2' });

      // The verification started on v1 is still served by v1: the code reported now is checked there.
      assert.deepEqual(await versionOf(h.client, verification.processId), { behavior: 'PINNED', buildId: 'v1' });
      const sms = await messageFor(h, identity, verification.current!.verificationId);
      const res = await report(h, verification.processId, sms.code!);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().state, 'SUCCESSFUL');
      await h.waitForState(verification.processId, 'SUCCESSFUL');

      // v1 has nothing left pinned to it: drained, it stops. The process started on v2 finishes there.
      await h.stopWorker();
      const afterSms = await messageFor(h, afterIdentity, after.current!.verificationId);
      const afterReport = await report(h, after.processId, afterSms.code!);
      assert.equal(afterReport.statusCode, 200, afterReport.body);
      assert.equal(afterReport.json().state, 'SUCCESSFUL');
    } finally {
      await stop(v2.worker, v2Running, v2.connection);
    }
  });
});

async function currentBuildId(client: Client): Promise<string | undefined> {
  const { workerDeploymentInfo } = await client.workflowService.describeWorkerDeployment({ namespace: client.options.namespace, deploymentName: DEPLOYMENT });
  return workerDeploymentInfo?.routingConfig?.currentDeploymentVersion?.buildId ?? undefined;
}

async function stop(worker: WorkerGroup, running: Promise<void>, connection: { close(): Promise<void> }): Promise<void> {
  worker.shutdown();
  await running;
  await connection.close();
}
