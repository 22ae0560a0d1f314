// The suppression lists on both drivers (PostgreSQL and embedded PGlite): the latest decision by its time wins (a STOP
// then a START ends unsuppressed, an older STOP arriving last changes nothing, the same reply twice changes nothing
// twice), a change through the API always applies, each app's list is its own, the list pages in a stable order, and
// the table holds no number in the clear.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ulid } from 'ulid';
import { generateCodecKey, parseCodecKeys } from '../../common/codec.js';
import { sealerOf } from '../../common/sealed-text.js';
import { subjectHasher } from '../../common/subject-hash.js';
import { SuppressionStore, type CampaignStore } from '../../store/index.js';
import { storeDrivers } from '../helpers/store-drivers.js';

const N1 = '+46700072001';
const N2 = '+46700072002';
const N3 = '+46700072003';

describe('suppression lists store', () => {
  const { drivers } = storeDrivers();
  const keys = parseCodecKeys(generateCodecKey('test'), 'RELAYFLOW_CODEC_KEYS');

  for (const [name, openStore] of drivers) {
    describe(`suppressions (${name})`, () => {
      let store: CampaignStore;
      const lists = async () => new SuppressionStore((store ??= await openStore()).sql, sealerOf(keys), subjectHasher(keys));
      const at = (s: number) => new Date(Date.UTC(2026, 10, 29, 12, 0, s)).toISOString();

      test('the latest reply by its time wins, whatever order the replies arrive in', async () => {
        const s = await lists();
        const app = ulid();
        const reply = (suppressed: boolean, second: number) => s.apply({ appId: app, number: N1, suppressed, source: 'reply', at: at(second) });
        assert.deepEqual(await reply(true, 1), { suppressed: true, applied: true, changed: true });
        assert.deepEqual(await reply(true, 1), { suppressed: true, applied: false, changed: false }, 'the same reply again');
        assert.deepEqual(await reply(false, 3), { suppressed: false, applied: true, changed: true });
        assert.deepEqual(await reply(true, 2), { suppressed: false, applied: false, changed: false }, 'an older STOP arriving last');
        assert.equal((await s.suppressedOf(app, [N1])).size, 0);
        assert.deepEqual(await reply(true, 4), { suppressed: true, applied: true, changed: true });
        assert.deepEqual([...(await s.suppressedOf(app, [N1, N2]))], [N1]);
        assert.equal((await s.get(app, N1))?.since, at(4));
      });

      test('a change through the API always applies, even over a reply stamped ahead of the database clock', async () => {
        const s = await lists();
        const app = ulid();
        const ahead = new Date(Date.now() + 3_600_000).toISOString();
        await s.apply({ appId: app, number: N1, suppressed: true, source: 'reply', at: ahead });
        const removed = await s.apply({ appId: app, number: N1, suppressed: false, source: 'api' });
        assert.deepEqual(removed, { suppressed: false, applied: true, changed: true });
        assert.equal(await s.get(app, N1), undefined);
        const added = await s.apply({ appId: app, number: N1, suppressed: true, source: 'api' });
        assert.deepEqual(added, { suppressed: true, applied: true, changed: true });
        assert.deepEqual(await s.apply({ appId: app, number: N1, suppressed: true, source: 'api' }), { suppressed: true, applied: true, changed: false });
        assert.equal((await s.get(app, N1))?.source, 'api');
      });

      test("each app's list is its own; it pages in a stable order; no number is kept in the clear", async () => {
        const s = await lists();
        const [app, other] = [ulid(), ulid()];
        for (const n of [N1, N2, N3]) await s.apply({ appId: app, number: n, suppressed: true, source: 'api' });
        await s.apply({ appId: other, number: N1, suppressed: true, source: 'api' });
        await s.apply({ appId: app, number: N2, suppressed: false, source: 'api' });
        const seen: string[] = [];
        let after: string | undefined;
        for (;;) {
          const page = await s.list(app, { limit: 1, ...(after ? { after } : {}) });
          seen.push(...page.suppressions.map((e) => e.number));
          if (!page.next) break;
          after = page.next;
        }
        assert.deepEqual(seen.sort(), [N1, N3]);
        assert.deepEqual(
          (await s.list(other, { limit: 10 })).suppressions.map((e) => e.number),
          [N1],
        );
        const rows = JSON.stringify(await store.sql.query('SELECT * FROM relayflow_suppressions WHERE app_id = ANY($1::text[])', [[app, other]]));
        for (const n of [N1, N2, N3]) assert.ok(!rows.includes(n.slice(1)), `${n} in the clear`);
      });
    });
  }
});
