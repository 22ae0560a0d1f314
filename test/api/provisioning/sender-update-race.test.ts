// A sender's change racing its run's end: the describe says RUNNING, but the run (a change under review that just
// ended) completes before the update lands. The change is then decided by the ended run's result, as if the
// describe had seen it ended, instead of a 409 process_ended. A stub client (unit test).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { updateSender } from '../../../processes/provisioning/routes/sender-update.js';

function stubbed(statuses: string[]) {
  const calls: string[] = [];
  const handle = {
    workflowId: 'chatb-sender:p:Shop-1',
    describe: async () => {
      calls.push('describe');
      return { status: { name: statuses.shift() ?? 'COMPLETED' } };
    },
    executeUpdate: async () => {
      calls.push('update');
      throw new Error('workflow execution already completed');
    },
    result: async () => ({ state: 'ACTIVE', senderId: 'S1', changes: [{ operationId: 'op-1', status: 'APPROVED' }] }),
  } as unknown as WorkflowHandle;
  const client = { withDeadline: <R>(_deadline: number, fn: () => Promise<R>) => fn() } as unknown as Client;
  const deps = { client, config: { taskQueue: 'q' }, provisioning: {} } as unknown as Parameters<typeof updateSender>[0];
  return { deps, handle, calls };
}

test('a change whose run ends between the describe and the update is answered from the ended run', async () => {
  const { deps, handle, calls } = stubbed(['RUNNING', 'COMPLETED']);
  const answer = await updateSender(deps, handle, { operationId: 'op-1', changes: { description: 'x' } });
  assert.deepEqual(answer, { accepted: true, state: 'ACTIVE', reason: 'this change was taken before (APPROVED)' });
  assert.deepEqual(calls, ['describe', 'update', 'describe']);
});

test('a run that keeps ending under the update is given up after a few tries, with the 409', async () => {
  const { deps, handle, calls } = stubbed(['RUNNING', 'RUNNING', 'RUNNING', 'RUNNING']);
  await assert.rejects(updateSender(deps, handle, { operationId: 'op-2', changes: { description: 'x' } }), /has already ended/);
  assert.equal(calls.filter((c) => c === 'update').length, 3);
});
