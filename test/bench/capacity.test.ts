// docs/capacity.md's arithmetic (bench/capacity-model.ts) on made-up figures, and the page itself kept in step
// with the results it is written from (bench/capacity.ts --check).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { costPerMillion, firstLimit, historyShape, loadNeeds, median, nextPowerOfTwo, sumShapes, unitFromShape } from '../../bench/capacity-model.js';

const assumptions = { coreUtilisation: 0.5, coresPerWorker: 4, writesPerShard: 100, retentionDays: 3, pricePerMillion: 50 };

describe('capacity model', () => {
  test('a history: commands ride on their task completion, the rest are writes; visibility at start, upserts and close', () => {
    const shape = historyShape(
      [
        'WORKFLOW_EXECUTION_STARTED',
        'WORKFLOW_TASK_SCHEDULED',
        'WORKFLOW_TASK_STARTED',
        'WORKFLOW_TASK_COMPLETED',
        'UPSERT_WORKFLOW_SEARCH_ATTRIBUTES',
        'TIMER_STARTED',
      ]
        .concat(['TIMER_FIRED', 'WORKFLOW_TASK_SCHEDULED', 'WORKFLOW_TASK_STARTED', 'WORKFLOW_TASK_COMPLETED', 'WORKFLOW_EXECUTION_COMPLETED'])
        .map((type) => ({ type, bytes: 10 })),
    );
    // Written on their own: started, task started x2, task completed x2, timer fired.
    assert.deepEqual(shape, { events: 11, writes: 6, visibilityWrites: 3, bytes: 110 });
    assert.deepEqual(sumShapes([shape, shape]), { events: 22, writes: 12, visibilityWrites: 6, bytes: 220 });
  });

  test('a unit scales its history shape to the measured event count', () => {
    const u = unitFromShape({ events: 10, writes: 4, visibilityWrites: 2, bytes: 2_000 }, 25, 9, 40);
    assert.deepEqual(u, { events: 25, actions: 9, writes: 10, visibilityWrites: 5, bytes: 5_000, cpuMs: 40 });
    assert.equal(unitFromShape({ events: 10, writes: 4, visibilityWrites: 2, bytes: 2_000 }, 10, 1).cpuMs, undefined);
  });

  test('a load: cores at the planned utilisation, whole workers, shards to a power of two, a day of actions and storage', () => {
    const u = { events: 30, actions: 20, writes: 10, visibilityWrites: 3, bytes: 5_000, cpuMs: 50 };
    const n = loadNeeds(u, 100, 1_000_000, assumptions);
    assert.equal(n.cores, 10); // 100/s x 50 ms = 5 cores busy, at half busy
    assert.equal(n.workers, 3); // of 4 cores
    assert.equal(n.writesPerSecond, 1_000);
    assert.equal(n.shards, 16); // 10 shards' worth, rounded up to a power of two
    assert.equal(n.visibilityWritesPerSecond, 300);
    assert.equal(n.actionsPerDay, 20_000_000);
    assert.equal(n.retainedGB, 15); // 10^6 a day x 3 days x 5 kB
    assert.equal(n.costPerDay, 1_000);
    const unmeasured = loadNeeds({ ...u, cpuMs: undefined }, 1, 1, assumptions);
    assert.equal(unmeasured.cores, undefined);
    assert.equal(unmeasured.workers, undefined);
    assert.equal(unmeasured.shards, 1);
  });

  test('small pieces: power of two, median, cost per million, the first limit', () => {
    assert.deepEqual([0.2, 1, 2, 3, 64, 65].map(nextPowerOfTwo), [1, 1, 2, 4, 64, 128]);
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 2, 3]), 2.5);
    assert.throws(() => median([]));
    assert.equal(costPerMillion(17, 50), 850);
    assert.deepEqual(
      firstLimit([
        { name: 'cores', need: 8, have: 4 },
        { name: 'shards', need: 12, have: 4 },
      ]),
      { name: 'shards', times: 3 },
    );
  });
});

test('docs/capacity.md is what bench/capacity.ts writes from the recorded results', async () => {
  const run = promisify(execFile)(process.execPath, ['--import', 'tsx', 'bench/capacity.ts', '--check'], { encoding: 'utf8' });
  await assert.doesNotReject(run, 'docs/capacity.md is not current: run `npx tsx bench/capacity.ts` and commit it');
});
