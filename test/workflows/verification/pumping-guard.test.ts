// The SMS-pumping guard's workflow against a real Temporal server: counts batched starts and codes, blocks once the
// conversion falls under the floor with enough starts (and not before), lets a block expire after its window with a
// decision saying so, counts afresh after an operator's lift, and ends after a window with nothing to guard.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ulid } from 'ulid';
import { liftPumpingUpdate, pumpingQuery, pumpingStartSignal, pumpingSuccessSignal, type PumpingGuardState } from '../../../contracts/verification-limits.js';
import { useHarness } from '../../helpers/harness.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('verificationPumpingGuard workflow', () => {
  const h = useHarness();

  async function guard(windowMs: number) {
    const id = `verification-pumping:test-${ulid()}:467000`;
    const initial: PumpingGuardState = { prefix: '467000', windowMs, thresholds: { minStarts: 4, floor: 0.5 }, slots: [], decisions: [] };
    const starts = (count: number) =>
      h.client.workflow.signalWithStart('verificationPumpingGuard', {
        workflowId: id,
        taskQueue: h.config.taskQueue,
        args: [initial],
        signal: pumpingStartSignal,
        signalArgs: [{ count }],
      });
    const handle = () => h.client.workflow.getHandle(id);
    return { id, starts, handle, successes: (count: number) => handle().signal(pumpingSuccessSignal, { count }) };
  }

  test('blocks only with enough starts and too few codes; a lift names the operator and counts afresh', async () => {
    const g = await guard(600_000);
    await g.starts(2);
    await g.successes(1);
    await g.starts(1);
    const under = await g.handle().query(pumpingQuery);
    assert.deepEqual(under.totals, { starts: 3, successes: 1 });
    assert.equal(under.blocked, undefined, '3 starts: not enough to judge');

    await g.starts(1); // 1 of 4: under the floor of 0.5
    const blocked = await g.handle().query(pumpingQuery);
    assert.ok(blocked.blocked, JSON.stringify(blocked));
    assert.equal(blocked.blocked.until - blocked.blocked.since, 600_000);
    assert.deepEqual(
      blocked.decisions.map((d) => [d.kind, d.starts, d.successes]),
      [['blocked', 4, 1]],
    );

    const lifted = await g.handle().executeUpdate(liftPumpingUpdate, { args: [{ actor: 'abc123abc123', note: 'checked' }] });
    assert.equal(lifted.blocked, undefined);
    assert.deepEqual(lifted.totals, { starts: 0, successes: 0 }, 'counting afresh');
    assert.deepEqual({ ...lifted.decisions[0], at: 0 }, { at: 0, kind: 'lifted', starts: 4, successes: 1, by: 'abc123abc123', note: 'checked' });
    await g.starts(3);
    assert.equal((await g.handle().query(pumpingQuery)).blocked, undefined, 'the old window does not block again');
  });

  test('a block expires after its window, saying so; with nothing to guard for a window, the guard ends', async () => {
    const g = await guard(2_000);
    await g.starts(5);
    assert.ok((await g.handle().query(pumpingQuery)).blocked);
    const started = Date.now();
    for (;;) {
      const d = await g.handle().describe();
      if (d.status.name !== 'RUNNING') break;
      assert.ok(Date.now() - started < 15_000, 'the guard is still running');
      await sleep(250);
    }
    assert.equal((await g.handle().describe()).status.name, 'COMPLETED');
    // A closed workflow still answers queries (replayed): its last decision is the block's expiry.
    const last = await g.handle().query(pumpingQuery);
    assert.equal(last.blocked, undefined);
    assert.deepEqual(
      last.decisions.map((d) => d.kind),
      ['expired', 'blocked'],
    );
    assert.ok(Date.now() - started >= 1_000, 'not before its window');
    // The next start makes a new guard, with nothing carried.
    await g.starts(1);
    const fresh = await g.handle().query(pumpingQuery);
    assert.deepEqual(fresh.totals, { starts: 1, successes: 0 });
    assert.deepEqual(fresh.decisions, []);
  });
});
