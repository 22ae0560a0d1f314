// The geo-rules workflow against a real Temporal server: started by the first change, read by query, a stale
// expectedVersion refused without a change, and the rules carried across continue-as-new.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { WithStartWorkflowOperation, WorkflowUpdateFailedError } from '@temporalio/client';
import { ulid } from 'ulid';
import { geoRulesQuery, setGeoRulesUpdate, type GeoRulesState, type SetGeoRulesRequest } from '../../../contracts/verification.js';
import { useHarness } from '../../helpers/harness.js';

describe('verificationGeoRules workflow', () => {
  const h = useHarness();

  const set = (workflowId: string, request: SetGeoRulesRequest) =>
    h.client.workflow.executeUpdateWithStart(setGeoRulesUpdate, {
      args: [request],
      startWorkflowOperation: new WithStartWorkflowOperation('verificationGeoRules', {
        workflowId,
        taskQueue: h.config.taskQueue,
        args: [{ rules: [], version: 0 } satisfies GeoRulesState],
        workflowIdConflictPolicy: 'USE_EXISTING',
      }),
    });

  test('the first change starts it; each change replaces the rules and adds one to the version; queries read them', async () => {
    const id = `verification-geo-rules:test-${ulid()}`;
    const first = await set(id, { rules: [{ id: 'no-gb', action: 'block', countries: ['GB'] }], actor: 'abc123abc123' });
    assert.equal(first.version, 1);
    assert.equal(first.updatedBy, 'abc123abc123');
    assert.ok(first.updatedAt! > 0);
    const second = await set(id, { rules: [], defaultAction: 'block', expectedVersion: 1 });
    assert.deepEqual({ ...second, updatedAt: 0 }, { rules: [], defaultAction: 'block', version: 2, updatedAt: 0 });
    assert.deepEqual(await h.client.workflow.getHandle(id).query(geoRulesQuery), second);
  });

  test('a stale expectedVersion is refused by the validator: no change, no history of it', async () => {
    const id = `verification-geo-rules:test-${ulid()}`;
    await set(id, { rules: [{ id: 'a', action: 'allow' }] });
    await assert.rejects(set(id, { rules: [], expectedVersion: 0 }), (err: unknown) => {
      assert.ok(err instanceof WorkflowUpdateFailedError);
      assert.match(String(err.cause?.message), /^version_conflict: the rules are at version 1, not 0/);
      return true;
    });
    const state = await h.client.workflow.getHandle(id).query(geoRulesQuery);
    assert.equal(state.version, 1);
    assert.deepEqual(state.rules, [{ id: 'a', action: 'allow' }]);
  });

  test('after 200 changes it continues as new with the rules', { timeout: 120_000 }, async () => {
    const id = `verification-geo-rules:test-${ulid()}`;
    const first = await set(id, { rules: [] });
    const handle = h.client.workflow.getHandle(id);
    const firstRun = (await handle.describe()).runId;
    for (let batch = 0; batch < 20; batch += 1) {
      await Promise.all(
        Array.from({ length: 10 }, (_, i) => handle.executeUpdate(setGeoRulesUpdate, { args: [{ rules: [{ id: `r${batch}-${i}`, action: 'block' }] }] })),
      );
    }
    assert.equal(first.version, 1);
    const deadline = Date.now() + 30_000;
    while ((await h.client.workflow.getHandle(id, firstRun).describe()).status.name !== 'CONTINUED_AS_NEW') {
      assert.ok(Date.now() < deadline, 'did not continue as new');
      await new Promise((r) => setTimeout(r, 100));
    }
    const state = await handle.query(geoRulesQuery);
    assert.equal(state.version, 201);
    assert.equal(state.rules.length, 1);
    assert.notEqual((await handle.describe()).runId, firstRun);
  });
});
