// Every log line a process causes names it: the platform client's lines inside an activity carry the
// process's workflowId and runId (mixed in from the activity's log context), like the SDK's own lines;
// lines outside any process carry neither.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { createLogger } from '../../../common/logger.js';
import { startHarness, uniqueName, type Harness } from '../../helpers/harness.js';

interface Line {
  msg: string;
  workflowId?: string;
  runId?: string;
  activityType?: string;
  area?: string;
}

describe('log lines of a process', () => {
  let h: Harness;
  const lines: Line[] = [];
  before(async () => {
    const stream = new PassThrough();
    stream.on('data', (chunk: Buffer) => {
      for (const text of chunk.toString().split('\n')) if (text.trim()) lines.push(JSON.parse(text) as Line);
    });
    h = await startHarness({ logger: createLogger({ name: 'test', level: 'debug', destination: stream }) });
  });
  after(async () => h.close());

  test('the platform calls of a subproject carry its workflowId and runId', async () => {
    const res = await h.api({ method: 'POST', url: '/v1/subprojects', payload: { displayName: uniqueName('logs') } });
    assert.equal(res.statusCode, 202, res.body);
    const processId = res.json<{ processId: string }>().processId;
    await h.waitForState(processId, 'READY');
    const { runId } = await h.client.workflow.getHandle(processId).describe();

    const platform = lines.filter((l) => l.msg === 'platform request' && l.workflowId === processId);
    assert.ok(platform.length >= 2, `create and usability checks: ${JSON.stringify(lines.filter((l) => l.msg === 'platform request'))}`);
    for (const l of platform) {
      assert.equal(l.runId, runId);
      assert.match(l.activityType ?? '', /Subproject/);
    }
    // Lines outside any process name none.
    const ready = lines.find((l) => l.msg === 'worker ready');
    assert.ok(ready, 'the worker logged its start');
    assert.equal(ready.workflowId, undefined);
  });
});
