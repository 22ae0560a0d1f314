// Campaigns on one app share its rate (both drivers): alone, a campaign sends at the rate it asked for; with another
// sending on the same app, each gets half; one asking little leaves the rest to the others; a paused one, one that
// stopped sending, or one on another app takes nothing from it. Customers (tenants) share it first: two customers get
// half each, however many campaigns either runs.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ulid } from 'ulid';
import type { CampaignStore } from '../../store/index.js';
import { storeDrivers } from '../helpers/store-drivers.js';

describe('campaign pacing', () => {
  const { drivers } = storeDrivers();

  for (const [name, openStore] of drivers) {
    describe(`shared app rate (${name})`, () => {
      let store: CampaignStore;
      const campaign = async (paceKey: string, rate: number, platformRate = 200, tenant?: string) => {
        store ??= await openStore();
        const id = ulid();
        await store.createCampaign({
          id,
          processId: `pacing:${id}`,
          kind: 'conversation-campaign',
          requestHash: 't',
          total: 1,
          duplicates: 0,
          recipients: [],
          ...(tenant ? { tenant } : {}),
        });
        await store.setPacing(id, { rate, paceKey, platformRate });
        return id;
      };
      const rateOf = async (id: string) => (await store.reserveSends(id, 1, 1, 25)).rate;

      test('alone, its own rate; two on one app, half each; a third, a third each', async () => {
        const app = `app-${ulid()}`;
        const a = await campaign(app, 200);
        assert.equal(await rateOf(a), 200);
        const b = await campaign(app, 200);
        assert.equal(await rateOf(b), 100);
        assert.equal(await rateOf(a), 100);
        const c = await campaign(app, 500);
        assert.ok(Math.abs((await rateOf(c))! - 200 / 3) < 1e-9);
        const other = await campaign(`app-${ulid()}`, 200);
        assert.equal(await rateOf(other), 200, 'another app shares nothing');
      });

      test('one asking little leaves the rest; a paused one and one that stopped sending take nothing', async () => {
        const app = `app-${ulid()}`;
        const slow = await campaign(app, 10);
        assert.equal(await rateOf(slow), 10);
        const fast = await campaign(app, 200);
        assert.equal(await rateOf(fast), 190);
        assert.equal(await rateOf(slow), 10);
        await store.setHalt(slow, 'paused');
        assert.equal(await rateOf(fast), 200, 'a paused campaign sends nothing');
        await store.setHalt(slow, null);
        assert.equal(await rateOf(slow), 10);
        // Its schedule ended more than two seconds ago: it is not sending any more.
        await store.sql.query('UPDATE relayflow_campaigns SET pace_at = $2 WHERE id = $1', [slow, Date.now() - 10_000]);
        assert.equal(await rateOf(fast), 200);
      });

      test('what one asking little leaves is split among the others, not given to each whole', async () => {
        const app = `app-${ulid()}`;
        const slow = await campaign(app, 10);
        const [a, b] = [await campaign(app, 200), await campaign(app, 200)];
        for (const id of [slow, a, b]) await rateOf(id); // all three sending
        const rates = [await rateOf(slow), await rateOf(a), await rateOf(b)];
        assert.deepEqual(
          rates.map((r) => Math.round(r! * 1e6) / 1e6),
          [10, 95, 95],
          "the app's 200 in all",
        );
      });

      test("two customers on one app get half each, however many campaigns either runs; one's leftover goes to the other", async () => {
        const app = `app-${ulid()}`;
        const a1 = await campaign(app, 200, 200, 'acme');
        const a2 = await campaign(app, 200, 200, 'acme');
        const b = await campaign(app, 200, 200, 'globex');
        await rateOf(a1);
        await rateOf(a2);
        assert.equal(await rateOf(b), 100, "the customer with one campaign keeps half the app's rate");
        assert.equal(await rateOf(a1), 50);
        assert.equal(await rateOf(a2), 50);
        // A third campaign of acme's takes from acme's half only.
        const a3 = await campaign(app, 200, 200, 'acme');
        await rateOf(a3);
        assert.equal(await rateOf(b), 100);
        assert.ok(Math.abs((await rateOf(a3))! - 100 / 3) < 1e-9);
        // globex asking little leaves the rest to acme's campaigns.
        await store.setRate(b, 20);
        assert.equal(await rateOf(b), 20);
        assert.ok(Math.abs((await rateOf(a1))! - 60) < 1e-9, "acme's three share 180");
      });
    });
  }
});
