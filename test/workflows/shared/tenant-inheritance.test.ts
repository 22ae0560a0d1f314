// A process's customer (RelayflowTenant) goes with what it starts, on the real Temporal dev server against the
// sandbox: an onboarding started for a customer has step processes of that customer (their own key sees them,
// another customer's does not), its history replays with the worker's code, and a run that continues as new keeps it.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { Worker } from '@temporalio/worker';
import { ulid } from 'ulid';
import { TENANT } from '../../../common/search-attributes.js';
import { workflowIds } from '../../../processes/kinds.js';
import type { OnboardingInput, StepView } from '../../../processes/onboarding/onboarding/contract.js';
import { provisioningEventSignal, type ProvisioningEvent } from '../../../processes/provisioning/contract.js';
import { workerBundlePath, workflowOptions } from '../../../workers/workflow-options.js';
import { useHarness, uniqueName } from '../../helpers/harness.js';
import { waitUntil } from '../../helpers/provisioning.js';

const KEY_A = `tenant-a-key-${'a'.repeat(24)}`;
const KEY_B = `tenant-b-key-${'b'.repeat(24)}`;
const TENANT_A = uniqueName('acme');
const keysDir = mkdtempSync(join(tmpdir(), 'relayflow-tenant-children-'));
const keysFile = join(keysDir, 'api-keys');
writeFileSync(keysFile, `${KEY_A} read-only tenant=${TENANT_A}\n${KEY_B} read-only tenant=${uniqueName('globex')}\n`);

describe("a process's customer goes with what it starts", () => {
  const h = useHarness({ env: { RELAYFLOW_API_KEYS_FILE: keysFile, RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS: '1500' } });
  after(() => rmSync(keysDir, { recursive: true, force: true }));
  const tenantOf = async (processId: string) => (await h.client.workflow.getHandle(processId).describe()).typedSearchAttributes.get(TENANT);
  const readAs = (key: string, processId: string) =>
    h.app.inject({ method: 'GET', url: `/v1/processes/${encodeURIComponent(processId)}`, headers: { authorization: `Bearer ${key}` } });

  test("an onboarding's step processes are its customer's", async () => {
    const projectId = h.config.platform.credentials.projectId;
    const key = uniqueName('acme');
    const sub = uniqueName('team');
    const id = workflowIds.onboarding(projectId, key);
    const input: OnboardingInput = {
      projectId,
      key,
      planHash: 'test',
      steps: [
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
      ],
    };
    await h.client.workflow.start('onboarding', {
      workflowId: id,
      taskQueue: h.config.taskQueue,
      args: [input],
      typedSearchAttributes: [{ key: TENANT, value: TENANT_A }],
    });
    const done = await waitUntil(h, id, (v) => v.execution.status === 'COMPLETED', 'completed', 60_000);
    const steps = (done.details as unknown as { steps: StepView[] }).steps;
    assert.equal(steps.length, 1);
    for (const s of steps) {
      assert.equal(s.state, 'SUCCEEDED', JSON.stringify(s));
      assert.equal(await tenantOf(s.processId!), TENANT_A, `${s.name}: its parent's customer`);
      assert.equal((await readAs(KEY_A, s.processId!)).statusCode, 200, "the customer's key sees it");
      assert.equal((await readAs(KEY_B, s.processId!)).statusCode, 404, "another customer's key does not");
    }

    // The history written with the tenant passed on replays with the worker's workflow code and interceptors.
    const history = await h.client.workflow.getHandle(id).fetchHistory();
    const bundle = workerBundlePath();
    await Worker.runReplayHistory(
      { ...workflowOptions({ codecKeys: h.config.codecKeys, ...(bundle ? { bundle: { codePath: bundle } } : {}) }), replayName: 'tenant-onboarding' },
      history,
      id,
    );
  });

  test('a run that continues as new keeps its customer', async () => {
    const resource = { channel: 'RCS' as const, resourceType: 'SENDER' as const, resourceId: ulid() };
    const inboxId = workflowIds.resourceInbox(resource.channel, resource.resourceType, resource.resourceId);
    let firstRunId: string | undefined;
    for (let i = 0; i < 14; i++) {
      const event: ProvisioningEvent = {
        eventId: ulid(),
        projectId: 'sandbox-project',
        trigger: 'RCS_SENDER_COMMENT_ADDED',
        ...resource,
        sequence: i + 1,
        eventTime: new Date().toISOString(),
        comment: `c${i}`,
        details: {},
      };
      const handle = await h.client.workflow.signalWithStart('resourceInbox', {
        workflowId: inboxId,
        taskQueue: h.config.taskQueue,
        args: [{ resource, historyLimit: 20 }],
        signal: provisioningEventSignal,
        signalArgs: [event],
        typedSearchAttributes: [{ key: TENANT, value: TENANT_A }],
      });
      firstRunId ??= handle.signaledRunId;
    }
    const deadline = Date.now() + 15_000;
    let described = await h.client.workflow.getHandle(inboxId).describe();
    while (described.runId === firstRunId && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      described = await h.client.workflow.getHandle(inboxId).describe();
    }
    assert.notEqual(described.runId, firstRunId, 'a new run began');
    assert.equal(described.typedSearchAttributes.get(TENANT), TENANT_A, 'the new run is the same customer');
  });
});
