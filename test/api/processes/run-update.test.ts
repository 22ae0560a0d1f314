// runUpdate sends an update again when the server lost it with its workflow task (FAILED_PRECONDITION "unexpected
// workflow task failure": seen when a stop ended a sender's run as a signal came in), and only then: any other
// failure is mapped at once, and the resends stop at the deadline. A stub client (unit test).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { defineUpdate } from '@temporalio/workflow';
import { runUpdate } from '../../../api/processes/update.js';
import { ApiError } from '../../../api/errors.js';

const update = defineUpdate<string, [{ operationId: string }]>('stop');

/** A gRPC error as the Temporal client throws it (isGrpcServiceError: details string, metadata record). */
function grpcError(code: number, details: string): Error {
  return Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} });
}

function stub(answers: Array<() => Promise<string>>) {
  const sent: unknown[] = [];
  const handle = {
    workflowId: 'chatb-sender:p:x',
    executeUpdate: async (_u: unknown, { args }: { args: unknown[] }) => {
      sent.push(args[0]);
      return answers[Math.min(sent.length, answers.length) - 1]!();
    },
  } as unknown as WorkflowHandle;
  const client = { withDeadline: <R>(_deadline: number, fn: () => Promise<R>) => fn() } as unknown as Client;
  return { client, handle, sent };
}

const lost = () => Promise.reject(grpcError(9, 'Unable to perform workflow execution update due to unexpected workflow task failure.'));

describe('runUpdate', () => {
  test('an update lost with its workflow task is sent again, the same arguments, and answers', async () => {
    const { client, handle, sent } = stub([lost, lost, async () => 'STOPPED']);
    const answer = await runUpdate(client, handle, update, [{ operationId: 'op-1' }], { what: 'sender' });
    assert.equal(answer, 'STOPPED');
    assert.deepEqual(sent, [{ operationId: 'op-1' }, { operationId: 'op-1' }, { operationId: 'op-1' }]);
  });

  test('other failures are not sent again: another FAILED_PRECONDITION goes through the mapping once', async () => {
    const { client, handle, sent } = stub([() => Promise.reject(grpcError(9, 'something else')), async () => 'never']);
    await assert.rejects(runUpdate(client, handle, update, [{ operationId: 'op-2' }], { what: 'sender' }), /something else/);
    assert.equal(sent.length, 1);
  });

  test('the resends stop at the deadline', async () => {
    const { client, handle, sent } = stub([lost]);
    const started = Date.now();
    await assert.rejects(runUpdate(client, handle, update, [{ operationId: 'op-3' }], { what: 'sender', waitMs: 300 }), (err) => !(err instanceof ApiError));
    assert.ok(Date.now() - started < 1_000, 'gave up by the deadline');
    assert.ok(sent.length >= 2 && sent.length <= 7, `sent ${sent.length} times`);
  });
});
