// The resource-to-process links on both drivers (PostgreSQL: the run's server, or one of its own; embedded PGlite):
// a link is idempotent and renewed by linking again, several processes may follow one resource, and an unlink
// decided on an older read never drops a link made since (a new run's), even one made after a drop.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { openCampaignStore, ResourceLinkStore, type CampaignStore } from '../../store/index.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { sharedDatabaseUrl } from '../helpers/shared-postgres.js';
import { freshStoreSnapshot } from '../helpers/store-snapshot.js';

describe('resource links store', () => {
  const opened: CampaignStore[] = [];
  let own: TestPostgres | undefined;
  after(async () => {
    await Promise.all(opened.map((s) => s.sql.close()));
    await own?.stop();
  });

  const drivers: [string, () => Promise<CampaignStore>][] = [
    ['PGlite', async () => openCampaignStore({ dataDir: '', inMemory: true, embeddedFrom: await freshStoreSnapshot() })],
    [
      'PostgreSQL',
      async () => {
        const url = (await sharedDatabaseUrl()) ?? (own = await startPostgres()).url;
        return openCampaignStore({ url, dataDir: '' });
      },
    ],
  ];

  for (const [name, open] of drivers) {
    describe(`resource links (${name})`, () => {
      let links: ResourceLinkStore;
      const store = async () => {
        if (!links) {
          const s = await open();
          opened.push(s);
          links = new ResourceLinkStore(s.sql);
        }
        return links;
      };
      test('linking twice keeps one link and renews its generation; another resource is apart', async () => {
        const l = await store();
        const first = await l.link('resource:CHATA:TEMPLATE:t1', 'chata-template:p:a:en');
        const again = await l.link('resource:CHATA:TEMPLATE:t1', 'chata-template:p:a:en');
        assert.equal(again.processId, 'chata-template:p:a:en');
        assert.ok(again.generation > first.generation, 'a new generation');
        assert.deepEqual(await l.owners('resource:CHATA:TEMPLATE:t1'), [again]);
        assert.deepEqual(await l.owners('resource:CHATA:TEMPLATE:t2'), []);
        const together = await Promise.all(Array.from({ length: 5 }, () => l.link('resource:RCS:SENDER:s1', 'rcs-sender:p:x')));
        assert.equal(new Set(together.map((t) => t.generation)).size, 5, 'each link a generation of its own');
        assert.equal((await l.owners('resource:RCS:SENDER:s1')).length, 1, 'links at the same time: still one');
      });

      test('several processes follow one resource, oldest link first', async () => {
        const l = await store();
        await l.link('resource:CHATA:ACCOUNT:w1', 'chata-sender:p:one');
        await l.link('resource:CHATA:ACCOUNT:w1', 'chata-template:p:two:en');
        assert.deepEqual(
          (await l.owners('resource:CHATA:ACCOUNT:w1')).map((o) => o.processId),
          ['chata-sender:p:one', 'chata-template:p:two:en'],
        );
      });

      test('an unlink read before a re-link leaves the new link; one read after drops it; a later link is never taken for the dropped one', async () => {
        const l = await store();
        const r = 'senderid-callbacks:p:reg-1';
        const old = await l.link(r, 'senderid-registration:p:k');
        const renewed = await l.link(r, 'senderid-registration:p:k'); // a new run linked while the old read was acted on
        assert.equal(await l.unlink(r, old), false, 'the stale read drops nothing');
        assert.deepEqual(await l.owners(r), [renewed]);
        assert.equal(await l.unlink(r, renewed), true);
        assert.deepEqual(await l.owners(r), []);
        const next = await l.link(r, 'senderid-registration:p:k');
        assert.notEqual(next.generation, renewed.generation);
        assert.notEqual(next.generation, old.generation);
        assert.equal(await l.unlink(r, renewed), false, 'an unlink decided on the dropped link cannot drop the new one');
        assert.deepEqual(await l.owners(r), [next]);
      });
    });
  }
});
