// The verifications' SMS receipts kept in the store on both drivers (PostgreSQL: the run's server, or one of its own;
// embedded PGlite), on a clock the test moves: a receipt recorded once per event ID, a claim that keeps a second message
// from carrying it until released or its lease runs out, handed over once, and the sweep a day after it came.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ulid } from 'ulid';
import { SmsReceiptStore } from '../../store/index.js';
import { storeDrivers } from '../helpers/store-drivers.js';

describe('verification receipts store', () => {
  const { drivers } = storeDrivers();

  const HOUR = 3_600_000;
  const T0 = 1_800_000_000_000;

  for (const [name, openStore] of drivers) {
    describe(`SMS receipts (${name})`, () => {
      let now = T0;
      let receipts: SmsReceiptStore;
      const store = async () => (receipts ??= new SmsReceiptStore((await openStore()).sql, () => now));
      const receipt = (eventId: string) => ({ eventId, verificationId: `v-${eventId}`, smsResult: 'Successful' as const });

      test('recorded once per event ID; claimed by one message at a time; handed over once', async () => {
        const s = await store();
        now = T0;
        const processId = `verification:${ulid()}`;
        const [a, b] = [ulid(), ulid()];
        assert.equal(await s.record(processId, receipt(a)), true);
        assert.equal(await s.record(processId, receipt(a)), false, 'the platform resending it');
        now += 1;
        assert.equal(await s.record(processId, receipt(b)), true);
        assert.deepEqual(
          (await s.pending(processId)).map((r) => [r.eventId, r.receivedAt]),
          [
            [a, new Date(T0).toISOString()],
            [b, new Date(T0 + 1).toISOString()],
          ],
        );

        const claimed = await s.claim(processId, 30_000);
        assert.deepEqual(
          claimed.map((r) => r.eventId),
          [a, b],
        );
        assert.deepEqual(await s.claim(processId, 30_000), [], 'a second message meanwhile carries none');
        assert.equal((await s.pending(processId)).length, 2, "the process's own read still sees them");
        await s.release([a, b]);
        assert.equal((await s.claim(processId, 30_000)).length, 2, 'released: the next message carries them');
        now += 30_001;
        assert.equal((await s.claim(processId, 30_000)).length, 2, 'a lease that ran out lets a later message carry them');
        await s.handed([a, b]);
        assert.deepEqual(await s.pending(processId), []);
        now += 60_000;
        assert.deepEqual(await s.claim(processId, 30_000), []);
      });

      test('swept a day after they came, handed over or not', async () => {
        const s = await store();
        now = T0 + 10 * HOUR;
        const processId = `verification:${ulid()}`;
        const [old, recent] = [ulid(), ulid()];
        await s.record(processId, receipt(old));
        now += 12 * HOUR;
        await s.record(processId, receipt(recent));
        now += 12 * HOUR + 1;
        assert.ok((await s.sweep()) >= 1);
        assert.deepEqual(
          (await s.pending(processId)).map((r) => r.eventId),
          [recent],
        );
      });
    });
  }
});
