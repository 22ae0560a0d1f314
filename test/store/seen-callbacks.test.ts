// The seen callbacks on both drivers (PostgreSQL: the run's server, or one of its own; embedded PGlite): a claim is new
// once, in flight while its hand-off runs, a repeat once handed; a released claim is new again; a claim left in flight
// past its lease is taken again; a write that carries the claim (an SMS receipt) is found by the pipeline's claim and
// the other way round; the sweep drops rows past their keep time only.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ulid } from 'ulid';
import { SeenCallbackStore, SmsReceiptStore, type CampaignStore } from '../../store/index.js';
import { storeDrivers } from '../helpers/store-drivers.js';

describe('seen callbacks store', () => {
  const { drivers } = storeDrivers();

  for (const [name, openStore] of drivers) {
    describe(`seen callbacks (${name})`, () => {
      let store: CampaignStore;
      const seen = async () => new SeenCallbackStore((store ??= await openStore()).sql);

      test('new once; in flight while handed over; a repeat once handed; new again once released', async () => {
        const s = await seen();
        const id = ulid();
        assert.equal(await s.claim('provisioning', id), 'new');
        assert.equal(await s.claim('provisioning', id), 'in-flight');
        assert.equal(await s.claim('senderid', id), 'new', 'per intake');
        await s.handed('provisioning', id);
        assert.equal(await s.claim('provisioning', id), 'repeat');
        await s.release('provisioning', id);
        assert.equal(await s.claim('provisioning', id), 'repeat', 'a handed event is not released');
        await s.release('senderid', id);
        assert.equal(await s.claim('senderid', id), 'new', 'released: the next delivery takes it');
      });

      test('a claim left in flight past its lease is taken again; one within it is not', async () => {
        const s = await seen();
        const id = ulid();
        assert.equal(await s.claim('voice', id), 'new');
        assert.equal(await s.claim('voice', id, 60_000), 'in-flight');
        await new Promise((r) => setTimeout(r, 30));
        assert.equal(await s.claim('voice', id, 10), 'new', 'the first instance died mid hand-off');
      });

      test("an SMS receipt's row carries the verification intake's claim of its event ID", async () => {
        const s = await seen();
        const receipts = new SmsReceiptStore(store.sql);
        const eventId = ulid();
        const receipt = { eventId, verificationId: `v-${eventId}`, smsResult: 'Successful' as const };
        assert.equal(await receipts.record(`verification:${ulid()}`, receipt), true);
        assert.equal(await s.claim('verification', eventId), 'repeat', 'the pipeline finds it');
        assert.equal(await receipts.record(`verification:${ulid()}`, receipt), false, 'the platform resending it');
        const other = ulid();
        assert.equal(await s.claim('verification', other), 'new');
        assert.equal(await receipts.record('verification:x', { ...receipt, eventId: other }), false, 'claimed by a delivery before: not kept twice');
      });

      test('the sweep drops rows claimed before the keep time only', async () => {
        const s = await seen();
        const id = ulid();
        await s.claim('mms', id);
        await s.handed('mms', id);
        assert.equal(await s.sweep(60_000), 0);
        assert.equal(await s.claim('mms', id), 'repeat');
        await new Promise((r) => setTimeout(r, 20));
        assert.ok((await s.sweep(10)) >= 1);
        assert.equal(await s.claim('mms', id), 'new');
      });
    });
  }
});
