// The event outbox and its deliveries on both drivers (PostgreSQL and embedded PGlite): events are written in the
// order their process made them even when the writes race, once per event ID; a delivery is claimed by one
// deliverer at a time, a process's next event only after the one before is delivered; a claim whose deliverer died
// is taken again after its lease (nothing lost); a failure past the retry window disables the subscription with its
// delivery kept; replay queues kept events again; a deleted subscription takes its deliveries with it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { ulid } from 'ulid';
import { EventSubscriptionStore, ProcessEventStore, processEventId, type CampaignStore } from '../../store/index.js';
import { pollUntil } from '../helpers/deadline.js';
import { storeDrivers } from '../helpers/store-drivers.js';
import { sealerOf } from '../../common/sealed-text.js';

const LEASE_MS = 2_000;
const at = (s: number) => new Date(Date.UTC(2026, 10, 28, 12, 0, s)).toISOString();

describe('event outbox store', () => {
  const { drivers } = storeDrivers();

  for (const [name, openStore] of drivers) {
    describe(`event outbox (${name})`, () => {
      let store: CampaignStore;
      const open = async () => {
        store ??= await openStore();
        return { events: new ProcessEventStore(store.sql), subs: new EventSubscriptionStore(store.sql) };
      };
      // Each test its own kind filter value, so other tests' deliveries stay out of its claims.
      const fresh = async (kind: string) => {
        const { events, subs } = await open();
        const { subscription } = await subs.create({ url: 'http://127.0.0.1:1/events', kinds: [kind] });
        return { events, subs, sub: subscription };
      };
      const change = (processId: string, runId: string, n: number, state: string, previousState?: string, kind = 'verification') => ({
        processId,
        runId,
        kind,
        events: [{ n, state, at: at(n), ...(previousState ? { previousState } : {}) }],
      });
      const claimMine = async (subs: EventSubscriptionStore, subId: string, limit = 50, leaseMs = 30_000) =>
        (await subs.claim(limit, leaseMs)).filter((j) => j.subscriptionId === subId);

      test('racing writes land in the order the process made them; a repeat is a no-op', async () => {
        const { events, subs, sub } = await fresh('verification');
        const p = `verification:${ulid()}`;
        const run = ulid();
        // Event 2 and 1 are written before 0: each waits for its predecessor.
        await Promise.all([
          events.record(change(p, run, 2, 'SUCCESSFUL', 'FAIL')),
          events.record(change(p, run, 1, 'FAIL', 'PENDING')),
          events.record(change(p, run, 0, 'PENDING')),
        ]);
        await events.record(change(p, run, 1, 'FAIL', 'PENDING'));
        const states: string[] = [];
        for (let i = 0; i < 3; i++) {
          const jobs = await claimMine(subs, sub.id);
          assert.equal(jobs.length, 1, 'one event of a process at a time');
          states.push(jobs[0]!.event.state);
          assert.equal(jobs[0]!.event.eventId, processEventId(p, run, i));
          await subs.delivered(jobs[0]!, { statusCode: 200, latencyMs: 3 });
        }
        assert.deepEqual(states, ['PENDING', 'FAIL', 'SUCCESSFUL']);
        assert.equal((await claimMine(subs, sub.id)).length, 0);
        assert.equal(await subs.pendingCount(sub.id), 0);
        await subs.delete(sub.id);
      });

      test('two deliverers never hold one delivery; a dead one’s claim is taken again after its lease', async () => {
        const { events, subs, sub } = await fresh('verification');
        const processes = Array.from({ length: 6 }, () => `verification:${ulid()}`);
        for (const p of processes) await events.record(change(p, ulid(), 0, 'PENDING'));
        // A lease that outlasts b's settling and the check below on a loaded machine: 300 ms ran out first there.
        const [a, b] = await Promise.all([claimMine(subs, sub.id, 4, LEASE_MS), claimMine(subs, sub.id, 4, LEASE_MS)]);
        const ids = [...a, ...b].map((j) => j.deliveryId);
        assert.equal(ids.length, 6, 'all six claimed between them');
        assert.equal(new Set(ids).size, 6, 'none twice');
        // Deliverer a "dies" holding its claims; b settles its own.
        for (const j of b) await subs.delivered(j, { statusCode: 204, latencyMs: 1 });
        assert.equal((await claimMine(subs, sub.id)).length, 0, 'leased claims are not taken while the lease holds');
        const again = await pollUntil(
          async () => {
            const claimed = await claimMine(subs, sub.id);
            return claimed.length ? claimed : undefined;
          },
          'the dead deliverer’s claims taken again after the lease',
          LEASE_MS + 10_000,
          100,
        );
        assert.deepEqual(again.map((j) => j.deliveryId).sort(), a.map((j) => j.deliveryId).sort(), 'after the lease, taken again');
        assert.ok(again.every((j) => j.attempt === 2));
        for (const j of again) await subs.delivered(j, { statusCode: 204, latencyMs: 1 });
        assert.equal(await subs.pendingCount(sub.id), 0);
        await subs.delete(sub.id);
      });

      test('a delivery failing past its window disables the subscription; enabling resumes from it; replay queues kept events', async () => {
        // A kind of its own: the replay below reaches only this test's event.
        const kind = `replayed-${ulid()}`;
        const { events, subs, sub } = await fresh(kind);
        const p = `${kind}:${ulid()}`;
        await events.record(change(p, ulid(), 0, 'PENDING', undefined, kind));
        const [job] = await claimMine(subs, sub.id);
        await subs.failed(job!, { statusCode: 500, latencyMs: 2, error: 'answered 500', retryAt: new Date(Date.now() - 1) });
        assert.ok((await subs.get(sub.id))!.failingSince);
        const [retry] = await claimMine(subs, sub.id);
        await subs.failed(retry!, { latencyMs: 2, error: 'refused', retryAt: new Date(Date.now() - 1), disable: 'disabled: failing for 72 h' });
        const disabled = (await subs.get(sub.id))!;
        assert.equal(disabled.status, 'disabled');
        assert.equal(disabled.disabledReason, 'disabled: failing for 72 h');
        assert.equal((await claimMine(subs, sub.id)).length, 0, 'a disabled subscription is not delivered');
        assert.equal(await subs.pendingCount(sub.id), 1, 'its delivery is kept');
        assert.equal((await subs.enable(sub.id))!.status, 'active');
        const [resumed] = await claimMine(subs, sub.id);
        assert.equal(resumed!.event.eventId, job!.event.eventId);
        await subs.delivered(resumed!, { statusCode: 200, latencyMs: 1 });
        const log = await subs.attempts(sub.id, 10);
        assert.deepEqual(
          log.map((l) => l.statusCode ?? null),
          [200, null, 500],
        );
        assert.equal(await subs.replay(sub.id, new Date(at(0))), 1);
        assert.equal((await claimMine(subs, sub.id))[0]!.event.eventId, job!.event.eventId, 'the same event ID again');
        assert.equal(await subs.delete(sub.id), true);
        assert.equal(await subs.pendingCount(sub.id), 0);
        assert.equal(await subs.replay(sub.id, new Date(at(0))), undefined);
      });

      test('a rotation keeps the old secret beside the new one until its overlap ends; secrets are sealed at rest', async () => {
        await open();
        const subs = new EventSubscriptionStore(store.sql, sealerOf([{ id: 'k1', key: randomBytes(32) }]));
        const { subscription: sub, secret: first } = await subs.create({ url: 'http://127.0.0.1:1/events', kinds: ['verification'] });
        const [kept] = await store.sql.query<{ secrets: { secret: string }[] }>('SELECT secrets FROM relayflow_event_subscriptions WHERE id = $1', [sub.id]);
        assert.match(kept!.secrets[0]!.secret, /^sealed:v1:k1:/);
        assert.ok(!JSON.stringify(kept).includes(first), 'the secret is not in the row');
        const rotated = await subs.rotateSecret(sub.id, 60_000);
        assert.match(rotated!.secret, /^whsec_/);
        const { events } = await open();
        await events.record(change(`verification:${ulid()}`, ulid(), 0, 'PENDING'));
        const [job] = await claimMine(subs, sub.id);
        assert.equal(job!.secrets.length, 2);
        assert.equal(job!.secrets[0]!.secret, rotated!.secret);
        assert.equal(job!.secrets[1]!.expiresAt, rotated!.previousExpiresAt);
        assert.equal(job!.secrets[1]!.secret, first, 'opened again for signing');
        assert.equal(await subs.rotateSecret(`sub_${ulid()}`, 1), undefined);
        await subs.delete(sub.id);
      });
    });
  }
});
