// The SMS-pumping guards on both drivers (PostgreSQL: the run's server, or one of its own; embedded PGlite), on a
// clock the test moves: starts and correct codes over the window, the block once the conversion falls under the
// floor with enough starts, its decisions, an operator's lift (counts start afresh), a block's end recorded, idle
// guards swept; and on PostgreSQL, through two stores (two pools, as two API instances), starts at once to one prefix
// are all counted and the block is decided once.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PumpingGuardStore } from '../../store/index.js';
import { storeDrivers } from '../helpers/store-drivers.js';

describe('verification pumping guards store', () => {
  const { open, postgresUrl, drivers } = storeDrivers();

  const MIN = 60_000;
  const HOUR = 60 * MIN;
  const T0 = 1_800_000_000_000;
  const RULES = { windowMs: HOUR, minStarts: 4, floor: 0.5 };

  for (const [name, openStore] of drivers) {
    describe(`verification pumping guards (${name})`, () => {
      let now = T0;
      let guards: PumpingGuardStore;
      const store = async () => (guards ??= new PumpingGuardStore((await openStore()).sql, RULES, () => now));

      test('starts without codes block the prefix once there are enough; the view shows the block and its decision', async () => {
        const g = await store();
        now = T0;
        assert.equal(await g.read('46700'), undefined, 'no guard before a start');
        assert.equal(await g.count('46700', 'success'), undefined, 'a code for a prefix with no guard is dropped');
        await g.count('46700', 'start');
        await g.count('46700', 'success');
        for (let i = 1; i <= 2; i += 1) {
          now = T0 + i * MIN;
          assert.equal((await g.count('46700', 'start'))!.blocked, undefined, `start ${i + 1}: too few starts to judge`);
        }
        now = T0 + 3 * MIN;
        // The fourth start: 1 code of 4 starts, under the floor of 50 %.
        const blocked = (await g.count('46700', 'start'))!;
        assert.deepEqual(blocked.blocked, { since: now, until: now + HOUR, starts: 4, successes: 1 });
        const view = (await g.read('46700'))!;
        assert.deepEqual(view.totals, { starts: 4, successes: 1 });
        assert.deepEqual(view.thresholds, { minStarts: 4, floor: 0.5 });
        assert.deepEqual(view.decisions, [{ at: now, kind: 'blocked', starts: 4, successes: 1 }]);
        // A start while blocked (one moved to another method) counts, and decides nothing more.
        now = T0 + 4 * MIN;
        assert.deepEqual((await g.count('46700', 'start'))!.blocked!.since, T0 + 3 * MIN);
        assert.equal((await g.read('46700'))!.decisions.length, 1);
        // Another prefix is apart.
        assert.equal(await g.read('46701'), undefined);
      });

      test('an operator lifts it: counts start afresh, the decision names the key and the note; a prefix with no guard has nothing to lift', async () => {
        const g = await store();
        now = T0 + 5 * MIN;
        const lifted = (await g.lift('46700', 'abc123abc123', 'checked'))!;
        assert.equal(lifted.blocked, undefined);
        assert.deepEqual(lifted.totals, { starts: 0, successes: 0 });
        assert.deepEqual(lifted.decisions[0], { at: now, kind: 'lifted', starts: 5, successes: 1, by: 'abc123abc123', note: 'checked' });
        assert.equal(lifted.decisions[1]!.kind, 'blocked');
        now = T0 + 6 * MIN;
        assert.equal((await g.count('46700', 'start'))!.blocked, undefined, 'the old window does not block again');
        assert.equal(await g.lift('99999', undefined, undefined), undefined);
      });

      test("a block's end is recorded by the sweep or the next start; a guard idle for a window is swept, its decisions kept", async () => {
        const g = await store();
        now = T0;
        for (let i = 0; i < 4; i += 1) await g.count('46800', 'start');
        assert.ok((await g.read('46800'))!.blocked);
        // Past the block's hour with no start since: the sweep ends the block (recorded) and drops the idle guard.
        now = T0 + HOUR + MIN;
        assert.ok((await g.sweep()) >= 1);
        assert.equal(await g.read('46800'), undefined);
        assert.equal((await g.sql.query("SELECT prefix FROM relayflow_pumping_guards WHERE prefix = '46800'")).length, 0);
        // The prefix's next guard shows the decisions (the expiry counted the window as it stood).
        const fresh = (await g.count('46800', 'start'))!;
        assert.deepEqual(fresh.totals, { starts: 1, successes: 0 });
        assert.deepEqual(
          (await g.read('46800'))!.decisions.map((d) => [d.kind, d.starts]),
          [
            ['expired', 4],
            ['blocked', 4],
          ],
        );
        // A guard with starts but no block, idle for a window: swept.
        now = T0 + 2 * HOUR + 2 * MIN;
        await g.sweep();
        assert.equal((await g.sql.query("SELECT prefix FROM relayflow_pumping_guards WHERE prefix = '46800'")).length, 0);
        // A block whose time is up is ended by the next start to the prefix, once its starts have left the window.
        now = T0 + 3 * HOUR;
        for (let i = 0; i < 4; i += 1) await g.count('46900', 'start');
        now = T0 + 4 * HOUR + 3 * MIN;
        const next = (await g.count('46900', 'start'))!;
        assert.equal(next.blocked, undefined);
        assert.deepEqual(next.totals, { starts: 1, successes: 0 });
        assert.deepEqual(
          next.decisions.map((d) => [d.kind, d.starts]),
          [['expired', 0]],
        );
      });
    });
  }

  describe('pumping guards under concurrency (PostgreSQL, two pools)', () => {
    test('40 starts at once to one prefix through two stores are all counted, and the prefix is blocked once', async () => {
      const url = await postgresUrl();
      const rules = { windowMs: HOUR, minStarts: 10, floor: 0.5 };
      const [a, b] = [new PumpingGuardStore((await open(url)).sql, rules), new PumpingGuardStore((await open(url)).sql, rules)];
      const prefix = `4${String(Date.now()).slice(-7)}`;
      await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).count(prefix, 'start')));
      const view = (await a.read(prefix))!;
      assert.equal(view.totals.starts, 40);
      assert.deepEqual(
        view.decisions.map((d) => [d.kind, d.starts]),
        [['blocked', 10]],
      );
    });
  });
});
