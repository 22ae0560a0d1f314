// The verification geo rules set through the API, on both drivers (PostgreSQL: the run's server, or one of its own;
// embedded PGlite): versioned, a change from a stale read refused with nothing changed, every change recorded with
// who made it; and on PostgreSQL, through two stores (two pools, as two API instances), of changes made at once from
// the same read exactly one applies.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { GeoRuleStore } from '../../store/index.js';
import { storeDrivers } from '../helpers/store-drivers.js';

describe('verification geo rules store', () => {
  const { open, postgresUrl, drivers } = storeDrivers();

  const T0 = 1_800_000_000_000;

  for (const [name, openStore] of drivers) {
    describe(`verification geo rules (${name})`, () => {
      test('versioned changes, a stale one refused, each recorded with who made it and when', async () => {
        let now = T0;
        const geo = new GeoRuleStore((await openStore()).sql, () => now);
        assert.deepEqual(await geo.read(), { rules: [], version: 0 });
        const first = await geo.set({ rules: [{ id: 'no-gb', action: 'block', countries: ['GB'] }], actor: 'abc123abc123' });
        assert.deepEqual(first, {
          state: { rules: [{ id: 'no-gb', action: 'block', countries: ['GB'] }], version: 1, updatedAt: T0, updatedBy: 'abc123abc123' },
        });
        now = T0 + 1_000;
        const second = await geo.set({ rules: [], defaultAction: 'block', expectedVersion: 1 });
        assert.deepEqual(second, { state: { rules: [], defaultAction: 'block', version: 2, updatedAt: T0 + 1_000 } });
        assert.deepEqual(await geo.set({ rules: [{ id: 'x', action: 'allow' }], expectedVersion: 1, actor: 'late' }), { conflict: 2 });
        assert.deepEqual(await geo.read(), { rules: [], defaultAction: 'block', version: 2, updatedAt: T0 + 1_000 });
        // The record: newest first; what the second change replaced is the first's state.
        assert.deepEqual(await geo.changes(), [
          { rules: [], defaultAction: 'block', version: 2, updatedAt: T0 + 1_000 },
          { rules: [{ id: 'no-gb', action: 'block', countries: ['GB'] }], version: 1, updatedAt: T0, updatedBy: 'abc123abc123' },
        ]);
      });
    });
  }

  describe('verification geo rules under concurrency (PostgreSQL, two pools)', () => {
    test('ten changes at once from the same read, through two stores: exactly one applies, the rest are told the new version', async () => {
      const url = await postgresUrl();
      const [a, b] = [new GeoRuleStore((await open(url)).sql), new GeoRuleStore((await open(url)).sql)];
      const { version } = await a.read();
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).set({ rules: [{ id: `r${i}`, action: 'block' }], expectedVersion: version, actor: `k${i}` })),
      );
      const applied = results.flatMap((r) => ('state' in r ? [r.state] : []));
      assert.equal(applied.length, 1);
      assert.equal(applied[0]!.version, version + 1);
      assert.ok(results.every((r) => 'state' in r || r.conflict === version + 1));
      assert.deepEqual((await b.read()).rules, applied[0]!.rules);
      // Without expectedVersion every change applies, one after another.
      await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).set({ rules: [], actor: `u${i}` })));
      assert.equal((await a.read()).version, version + 7);
      assert.deepEqual(
        (await a.changes(7)).map((c) => c.version),
        Array.from({ length: 7 }, (_, i) => version + 7 - i),
      );
    });
  });
});
