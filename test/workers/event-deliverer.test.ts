// The deliverer against the store (both drivers) and a receiver on this machine: a receiver that keeps failing past
// the retry window has its subscription disabled, saying why, and nothing delivered is lost: enabled again, the
// deliveries resume in order. Two deliverers side by side deliver each event once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ulid } from 'ulid';
import { Webhook } from 'standardwebhooks';
import { createLogger } from '../../common/logger.js';
import { EventSubscriptionStore, ProcessEventStore, type CampaignStore } from '../../store/index.js';
import { EventDeliverer } from '../../workers/events/deliverer.js';
import { eventually, startEventReceiver, type EventReceiver } from '../helpers/event-receiver.js';
import { storeDrivers } from '../helpers/store-drivers.js';

const settings = { allowPrivateUrls: true, retryForMs: 400, concurrency: 4, timeoutMs: 2_000, keepMs: 86_400_000, firstRetryMs: 50 };
const quiet = createLogger({ level: 'silent' });

describe('event deliverer', () => {
  const { drivers } = storeDrivers();
  let receiver: EventReceiver;
  before(async () => {
    receiver = await startEventReceiver();
  });
  after(() => receiver.close());

  for (const [name, openStore] of drivers) {
    describe(`deliverer (${name})`, () => {
      let store: CampaignStore;
      const open = async () => {
        store ??= await openStore();
        return { events: new ProcessEventStore(store.sql), subs: new EventSubscriptionStore(store.sql) };
      };
      const record = (events: ProcessEventStore, processId: string, runId: string, n: number, kind: string) =>
        events.record({ processId, runId, kind, events: [{ n, state: `S${n}`, at: new Date().toISOString() }] });
      const mine = (processId: string) => receiver.accepted.filter((e) => e.body.includes(processId));

      test('failing past the retry window disables the subscription; enabled again, it resumes in order', async () => {
        const { events, subs } = await open();
        const kind = `k-${ulid()}`;
        const { subscription, secret } = await subs.create({ url: receiver.url, kinds: [kind] });
        receiver.answer({ status: 500 });
        const p = `${kind}:${ulid()}`;
        const run = ulid();
        for (let n = 0; n < 3; n++) await record(events, p, run, n, kind);
        const d = new EventDeliverer(subs, settings, quiet);
        const running = d.run();
        try {
          let sub = await subs.get(subscription.id);
          for (const until = Date.now() + 5_000; sub?.status !== 'disabled' && Date.now() < until; sub = await subs.get(subscription.id))
            await new Promise((r) => setTimeout(r, 50));
          assert.equal(sub?.status, 'disabled');
          assert.match(sub!.disabledReason!, /failed for .* the last attempt: answered 500/);
          assert.equal(await subs.pendingCount(subscription.id), 3, 'nothing dropped');
          receiver.answer({ status: 204 });
          await subs.enable(subscription.id);
          const got = await eventually('the three events', () => (mine(p).length >= 3 ? mine(p) : undefined), 5_000);
          const states = got.map((e) => (new Webhook(secret).verify(e.body, e.headers as Record<string, string>) as { data: { state: string } }).data.state);
          assert.deepEqual(states, ['S0', 'S1', 'S2']);
        } finally {
          d.stop();
          await running;
          receiver.answer({ status: 204 });
          await subs.delete(subscription.id);
        }
      });

      test('two deliverers side by side deliver every event once, each process in order', async () => {
        const { events, subs } = await open();
        const kind = `k-${ulid()}`;
        const { subscription } = await subs.create({ url: receiver.url, kinds: [kind] });
        const processes = Array.from({ length: 8 }, () => ({ id: `${kind}:${ulid()}`, run: ulid() }));
        for (let n = 0; n < 5; n++) for (const p of processes) await record(events, p.id, p.run, n, kind);
        const a = new EventDeliverer(subs, settings, quiet);
        const b = new EventDeliverer(subs, settings, quiet);
        const running = [a.run(), b.run()];
        try {
          await eventually('all 40 events', () => (processes.every((p) => mine(p.id).length >= 5) ? true : undefined), 10_000);
          for (const p of processes) {
            const ids = mine(p.id).map((e) => e.headers['webhook-id']);
            assert.equal(new Set(ids).size, ids.length, `${p.id}: no event twice`);
            assert.deepEqual(
              mine(p.id).map((e) => (JSON.parse(e.body) as { data: { state: string } }).data.state),
              ['S0', 'S1', 'S2', 'S3', 'S4'],
            );
          }
        } finally {
          a.stop();
          b.stop();
          await Promise.all(running);
          await subs.delete(subscription.id);
        }
      });
    });
  }
});
