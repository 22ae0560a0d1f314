// The verification admissions (the per-number guard and the rate-limit buckets) on both drivers (PostgreSQL: the
// run's server, or one of its own; embedded PGlite), on a clock the test moves: the sliding window and its exact
// Retry-After, the same process admitted twice counting once, what a number's look-up sees, the sweep of idle keys;
// and on PostgreSQL, through two stores (two pools, as two API instances), many admissions at once against a limit
// admit exactly that many.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AdmissionStore } from '../../store/index.js';
import { storeDrivers } from '../helpers/store-drivers.js';

describe('verification admissions store', () => {
  const { open, postgresUrl, drivers } = storeDrivers();

  const MIN = 60_000;
  const T0 = 1_800_000_000_000;

  for (const [name, openStore] of drivers) {
    describe(`verification admissions (${name})`, () => {
      let now = T0;
      let admissions: AdmissionStore;
      const store = async () => (admissions ??= new AdmissionStore((await openStore()).sql, () => now));

      test('a sliding window: the sixth in the hour is refused with the exact wait until the oldest leaves it', async () => {
        const s = await store();
        now = T0;
        const admit = (processId: string) => s.admit({ key: 'number:a', processId, methods: ['sms'], limit: 5, windowMs: 60 * MIN });
        for (let i = 0; i < 5; i += 1) {
          now = T0 + i * 10 * MIN;
          assert.deepEqual(await admit(`verification:${i}`), { admitted: true, count: i + 1 });
        }
        now = T0 + 55 * MIN;
        assert.deepEqual(await admit('verification:5'), { admitted: false, count: 5, retryAfterMs: 5 * MIN });
        // The oldest leaves at T0 + 60 min: one more goes, and the next waits for the second oldest.
        now = T0 + 60 * MIN + 1;
        assert.deepEqual(await admit('verification:6'), { admitted: true, count: 5 });
        assert.deepEqual(await admit('verification:7'), { admitted: false, count: 5, retryAfterMs: 10 * MIN - 1 });
      });

      test('the same process admitted twice counts once, also once the key is full; a key of its own is apart', async () => {
        const s = await store();
        now = T0;
        const admit = (key: string, processId: string) => s.admit({ key, processId, limit: 2, windowMs: 10 * MIN });
        assert.equal((await admit('rate:ip:x', 'verification:k')).count, 1);
        assert.deepEqual(await admit('rate:ip:x', 'verification:k'), { admitted: true, count: 1 }, 'a keyed retry');
        assert.equal((await admit('rate:ip:x', 'verification:l')).count, 2);
        assert.deepEqual(await admit('rate:ip:x', 'verification:k'), { admitted: true, count: 2 }, 'still admitted when full');
        assert.equal((await admit('rate:ip:x', 'verification:m')).admitted, false);
        assert.deepEqual(await admit('rate:ip:y', 'verification:m'), { admitted: true, count: 1 });
      });

      test("a number's look-up sees its admissions of the keep time with their methods; idle keys are swept, active ones kept", async () => {
        const s = await store();
        now = T0;
        const admit = (key: string, processId: string, keepMs?: number) =>
          s.admit({ key, processId, methods: ['sms', 'callout'], limit: 5, windowMs: 10 * MIN, ...(keepMs ? { keepMs } : {}) });
        await admit('number:look', 'verification:old', 30 * MIN);
        now = T0 + 20 * MIN;
        await admit('number:look', 'verification:new', 30 * MIN);
        await admit('rate:idle', 'verification:idle');
        assert.deepEqual(await s.recent('number:look', 30 * MIN), [
          { processId: 'verification:old', at: T0, methods: ['sms', 'callout'] },
          { processId: 'verification:new', at: T0 + 20 * MIN, methods: ['sms', 'callout'] },
        ]);
        now = T0 + 35 * MIN;
        assert.deepEqual(
          (await s.recent('number:look', 30 * MIN)).map((a) => a.processId),
          ['verification:new'],
          'past the keep time',
        );
        assert.deepEqual(await s.recent('number:none', 30 * MIN), []);
        // rate:idle was kept 10 min after T0 + 20 min; number:look 30 min after its last admission.
        const before = await s.sweep();
        assert.ok(before >= 1, 'the idle bucket went');
        assert.equal((await s.sql.query("SELECT key FROM relayflow_verification_admissions WHERE key = 'rate:idle'")).length, 0);
        assert.equal((await s.sql.query("SELECT key FROM relayflow_verification_admissions WHERE key = 'number:look'")).length, 1);
        now = T0 + 51 * MIN;
        await s.sweep();
        assert.equal((await s.sql.query("SELECT key FROM relayflow_verification_admissions WHERE key = 'number:look'")).length, 0);
        // A swept key starts afresh.
        assert.deepEqual(await admit('number:look', 'verification:again', 30 * MIN), { admitted: true, count: 1 });
      });
    });
  }

  describe('verification admissions under concurrency (PostgreSQL, two pools)', () => {
    test('60 admissions at once, 30 through each of two stores, against a limit of 7 admit exactly 7', async () => {
      const url = await postgresUrl();
      const [a, b] = [new AdmissionStore((await open(url)).sql), new AdmissionStore((await open(url)).sql)];
      const key = `rate:concurrency:${Date.now()}`;
      const outcomes = await Promise.all(
        Array.from({ length: 60 }, (_, i) => (i % 2 ? a : b).admit({ key, processId: `verification:${i}`, limit: 7, windowMs: 10 * MIN })),
      );
      assert.equal(outcomes.filter((o) => o.admitted).length, 7);
      assert.ok(
        outcomes.filter((o) => !o.admitted).every((o) => o.count === 7 && o.retryAfterMs! > 0),
        'every refusal saw the full window',
      );
      assert.equal((await a.recent(key, 10 * MIN)).length, 7);
      // And again with retries of the same processes mixed in: each counts once.
      const again = `rate:retries:${Date.now()}`;
      const retried = await Promise.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).admit({ key: again, processId: `verification:${i % 5}`, limit: 3, windowMs: 10 * MIN })),
      );
      const admitted = new Set(retried.flatMap((o, i) => (o.admitted ? [i % 5] : [])));
      assert.equal(admitted.size, 3, `the first three processes in, their retries admitted too: ${[...admitted]}`);
      assert.equal((await a.recent(again, 10 * MIN)).length, 3);
    });
  });
});
