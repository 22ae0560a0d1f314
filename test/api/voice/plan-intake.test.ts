// The intake's answers from the plan, against the store and the Temporal server: a repeated delivery gets the
// answer it was given and is stored once; two API instances (two intakes on one store) take turns on one call and
// each answers from where the call is (the behind one reads the call again); the process records every answer
// once, in order, whatever the relay repeats; a lasting call's events go to its process together (its first batch
// starts it) and its end at once; an instance stopped mid-call loses nothing (another relays its rows); the
// incoming-rule cache sees a change made through its store at once and one made elsewhere within its TTL.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { VoicePlanIntake } from '../../../api/callbacks/voice-plan.js';
import { createLogger } from '../../../common/logger.js';
import { STATE } from '../../../common/search-attributes.js';
import { processStatusQuery } from '../../../contracts/process-status.js';
import { voiceEventsSignal, type VoiceCallbackEvent } from '../../../processes/voice/contract.js';
import { IncomingRuleCache, VoiceCallStore, VoiceRuleStore } from '../../../store/index.js';
import { startHarness, type Harness } from '../../helpers/harness.js';
import { eventually } from '../../helpers/voice.js';

describe('voice answers from the plan', () => {
  let h: Harness;
  let calls: VoiceCallStore;
  let rules: VoiceRuleStore;
  const intakes: VoicePlanIntake[] = [];
  const log = createLogger({ name: 'test', level: 'silent' });
  const follow = { checkEveryMs: 600_000, inDoubtWaitMs: 1_000 };
  const number = '+4685000177';
  const intake = () => {
    const i = new VoicePlanIntake({
      client: h.client,
      taskQueue: h.config.taskQueue,
      calls,
      rules: new IncomingRuleCache(rules),
      follow,
      log,
      sweepEveryMs: 200,
      sweepAfterMs: 200,
    });
    intakes.push(i);
    return i;
  };
  const ev = (callId: string, event: VoiceCallbackEvent['event'], more: Partial<VoiceCallbackEvent> = {}): VoiceCallbackEvent => ({
    event,
    callId,
    receivedAt: new Date().toISOString(),
    ...more,
  });
  const key = (k: string) => ({ type: 'return', value: k, menuId: 'main' });

  before(async () => {
    h = await startHarness();
    calls = new VoiceCallStore(h.store.sql);
    rules = new VoiceRuleStore(h.store.sql);
    await rules.put({
      number,
      script: {
        start: { type: 'menu', menu: 'main' },
        menus: { main: { prompt: 'Press 1 for sales.', options: { 1: { type: 'connect', number: '+46700000001' } } } },
      },
    });
  });
  after(async () => {
    for (const i of intakes) await i.close();
    await h?.close();
  });

  test('a repeated delivery gets the same answer and is stored once; a second instance continues the call from the store', async () => {
    const [a, b] = [intake(), intake()];
    const callId = `plan-${Date.now()}`;
    const facts = { from: '+46700000002', to: number };
    const ice = await a.answer(ev(callId, 'ice'), 'ice:1', { incoming: facts });
    assert.equal(ice?.action.name, 'runMenu');
    assert.deepEqual(await b.answer(ev(callId, 'ice'), 'ice:1', { incoming: facts }), ice, 'the same delivery on another instance: the same answer');
    // b answers the wrong key (it read the call), then a, whose copy is behind, answers the next key from the store.
    const wrong = await b.answer(ev(callId, 'pie', { menuResult: { type: 'invalidinput', value: '7', menuId: 'main' } }), 'pie:1', undefined);
    assert.equal(wrong?.action.name, 'runMenu');
    const right = await a.answer(ev(callId, 'pie', { menuResult: key('1') }), 'pie:2', undefined);
    assert.equal(right?.action.name, 'connectPstn');
    assert.equal((await b.answer(ev(callId, 'ace'), 'ace:1', undefined))?.action.name, 'continue');
    const stored = await calls.read(callId);
    assert.deepEqual(
      stored?.events.map((e) => [e.seq, e.delivery, e.item.given?.action]),
      [
        [1, 'ice:1', 'runMenu'],
        [2, 'pie:1', 'runMenu'],
        [3, 'pie:2', 'connectPstn'],
        [4, 'ace:1', 'continue'],
      ],
    );
    assert.equal(await a.answer(ev('not-a-call', 'ace'), 'ace:x', undefined), undefined, 'no plan for a call whose ICE was not answered from it');

    // The process has each answer once, in order, with by: plan; a repeat of the whole batch changes nothing.
    const handle = h.client.workflow.getHandle(`voice-incoming:${callId}`);
    const answers = async () =>
      ((await handle.query(processStatusQuery)).details as { call: { answers: Array<{ event: string; action: string; by: string }> } }).call.answers;
    await eventually('every answer recorded', async () => ((await answers()).length === 4 && (await calls.countUnrelayed()) === 0 ? true : undefined));
    await handle.signal(voiceEventsSignal, { items: stored!.events.map((e) => e.item).reverse() });
    assert.ok(await a.ended({ callId, receivedAt: new Date().toISOString(), source: 'dice', result: 'ANSWERED' }, 'dice:1'));
    await eventually('the process ended on its DiCE', async () => ((await handle.describe()).status.name === 'COMPLETED' ? true : undefined));
    assert.deepEqual(
      (await answers()).map((x) => [x.event, x.action, x.by]),
      [
        ['ice', 'runMenu', 'plan'],
        ['pie', 'runMenu', 'plan'],
        ['pie', 'connectPstn', 'plan'],
        ['ace', 'continue', 'plan'],
      ],
    );

    // Retention: a call whose every event the process has is forgotten; one with an event not relayed yet is kept
    // (this test's intakes stop sweeping first; the app's own sweep leaves rows younger than 2 s).
    await a.close();
    await b.close();
    const kept = `plan-kept-${Date.now()}`;
    await calls.begin(
      { callId: kept, processId: `voice-incoming:${kept}`, input: { ...follow, callId: kept } },
      { seq: 1, delivery: 'ice:k', item: { seq: 1 } },
    );
    await eventually('the DiCE relayed', async () =>
      (await calls.read(callId))?.events.length === 5 && (await calls.countUnrelayed()) <= 1 ? true : undefined,
    );
    await calls.prune(0);
    assert.equal(await calls.read(callId), undefined);
    const c = new VoicePlanIntake({ client: h.client, taskQueue: h.config.taskQueue, calls, follow, log, sweepEveryMs: 3_600_000 });
    intakes.push(c);
    assert.equal(await c.answer(ev(callId, 'pie', { menuResult: key('1') }), 'pie:late', undefined), undefined, 'the process answers what comes after');
    assert.ok(await calls.read(kept), 'not relayed yet: kept');
  });

  /** The process's timeline: the recorded events (seq, event, action, by) and which history event carried each. */
  const timeline = async (callId: string) => {
    const res = await h.api({ method: 'GET', url: `/v1/processes/${encodeURIComponent(`voice-incoming:${callId}`)}/timeline` });
    assert.equal(res.statusCode, 200, res.body);
    type Entry = { eventId: number; at: string; kind: string; details: Record<string, unknown> };
    const entries = res.json().entries as Entry[];
    return {
      started: entries.find((e) => e.kind === 'started'),
      recorded: entries.filter((e) => e.kind === 'callback' && typeof e.details.seq === 'number'),
      signals: entries.filter((e) => e.details.signal === 'voiceEvents'),
    };
  };
  const closed = (callId: string) =>
    eventually('the process ended on its DiCE', async () =>
      (await h.client.workflow.getHandle(`voice-incoming:${callId}`).describe()).status.name === 'COMPLETED' ? true : undefined,
    );
  const menuKeys = async (i: VoicePlanIntake, callId: string) => {
    assert.equal((await i.answer(ev(callId, 'ice'), `ice:${callId}`, { incoming: { from: '+46700000002', to: number } }))?.action.name, 'runMenu');
    const wrong = ev(callId, 'pie', { menuResult: { type: 'invalidinput', value: '7', menuId: 'main' } });
    assert.equal((await i.answer(wrong, `pie1:${callId}`, undefined))?.action.name, 'runMenu');
    assert.equal((await i.answer(ev(callId, 'pie', { menuResult: key('1') }), `pie2:${callId}`, undefined))?.action.name, 'connectPstn');
    assert.equal((await i.answer(ev(callId, 'ace'), `ace:${callId}`, undefined))?.action.name, 'continue');
  };
  const unrelayedOf = async (callId: string) => (await calls.unrelayed([callId])).length;
  const dice = (callId: string) => ({ callId, receivedAt: new Date().toISOString(), source: 'dice' as const, result: 'ANSWERED' as const });

  test("a lasting call's events go to its process together, the first batch starting it; its end goes at once", async () => {
    // No sweep: only this instance's own relay, on its clock (2.5 s here, room for a loaded machine; 1 s by default;
    // under the 3 s after which the app's own intake would sweep the rows as another instance's).
    const every = 2_500;
    const i = new VoicePlanIntake({
      client: h.client,
      taskQueue: h.config.taskQueue,
      calls,
      rules: new IncomingRuleCache(rules),
      follow,
      log,
      relayEveryMs: every,
      sweepEveryMs: 3_600_000,
    });
    intakes.push(i);
    const callId = `batched-${Date.now()}`;
    const t0 = Date.now();
    await menuKeys(i, callId);
    assert.ok(Date.now() - t0 < every - 500, `four answers within the relay's wait (${Date.now() - t0} ms)`);
    const first = await eventually('the first batch relayed', async () => {
      const t = await timeline(callId).catch(() => undefined);
      return t?.recorded.length === 4 ? t : undefined;
    });
    assert.deepEqual(
      first.recorded.map((e) => [e.eventId, e.details.seq, e.details.event, e.details.action, e.details.by]),
      [
        [first.started!.eventId, 1, 'ice', 'runMenu', 'plan'],
        [first.started!.eventId, 2, 'pie', 'runMenu', 'plan'],
        [first.started!.eventId, 3, 'pie', 'connectPstn', 'plan'],
        [first.started!.eventId, 4, 'ace', 'continue', 'plan'],
      ],
      'the four answers started the process together',
    );
    assert.ok(Date.parse(first.started!.at) - t0 >= every - 200, 'held for the relay clock');
    assert.equal(first.signals.length, 0);
    const described = await h.client.workflow.getHandle(`voice-incoming:${callId}`).describe();
    assert.equal(described.typedSearchAttributes.get(STATE), 'CONNECTED', 'listed in the state the batch led to, from the start');

    const ended = Date.now();
    assert.ok(await i.ended(dice(callId), `dice:${callId}`));
    await closed(callId);
    const all = await timeline(callId);
    const took = Date.parse(all.signals[0]!.at) - ended;
    assert.ok(took < every - 1_000, `the end relayed at once, not on the relay's clock (${took} ms)`);
    assert.deepEqual(
      all.recorded.map((e) => e.details.seq),
      [1, 2, 3, 4, 5],
    );
    assert.equal(all.signals.length, 1, 'the DiCE alone in one signal');
    assert.equal(all.recorded[4]!.eventId, all.signals[0]!.eventId);
  });

  test('an API instance stopped mid-call loses nothing: another relays what it answered, and the call goes on there', async () => {
    // Instance a answers the call's first callbacks and stops before relaying them (its relay would wait an hour).
    const a = new VoicePlanIntake({
      client: h.client,
      taskQueue: h.config.taskQueue,
      calls,
      rules: new IncomingRuleCache(rules),
      follow,
      log,
      relayEveryMs: 3_600_000,
      sweepEveryMs: 3_600_000,
    });
    const callId = `stopped-${Date.now()}`;
    await menuKeys(a, callId);
    assert.equal((await calls.read(callId))?.events.length, 4);
    // Instance b sweeps the store: it relays a's rows, then takes the call's DiCE.
    const b = new VoicePlanIntake({ client: h.client, taskQueue: h.config.taskQueue, calls, follow, log, sweepEveryMs: 200, sweepAfterMs: 300 });
    intakes.push(b);
    const relayed = await eventually("a's answers in the process", async () => {
      const t = await timeline(callId).catch(() => undefined);
      return t?.recorded.length === 4 ? t : undefined;
    });
    assert.deepEqual(
      relayed.recorded.map((e) => [e.details.seq, e.details.event, e.details.action, e.details.by]),
      [
        [1, 'ice', 'runMenu', 'plan'],
        [2, 'pie', 'runMenu', 'plan'],
        [3, 'pie', 'connectPstn', 'plan'],
        [4, 'ace', 'continue', 'plan'],
      ],
    );
    assert.ok(await b.ended(dice(callId), `dice:${callId}`));
    await closed(callId);
    const t = await timeline(callId);
    assert.deepEqual(
      t.recorded.filter((e) => !e.details.duplicate).map((e) => e.details.seq),
      [1, 2, 3, 4, 5],
      'each event once in the process',
    );
    const answers = ((await h.client.workflow.getHandle(`voice-incoming:${callId}`).query(processStatusQuery)).details as { call: { answers: unknown[] } }).call
      .answers;
    assert.equal(answers.length, 4, 'each answer recorded once');
    assert.equal(await eventually('every row marked relayed', async () => ((await unrelayedOf(callId)) === 0 ? 0 : undefined)), 0);
    // a, stopped, never relays again: closing it here only frees its timers (a repeat of what the process has).
    await a.close();
  });

  test('the rule cache: a change through its own store is seen at once, one made elsewhere within the TTL', async () => {
    let now = 0;
    const cache = new IncomingRuleCache(rules, 1_000, () => now);
    const other = new VoiceRuleStore(h.store.sql);
    const n = '+4685000178';
    const match = async (to: string) => (await cache.match({ to }))?.rule;
    assert.equal((await match(n))?.number, (await rules.get('default'))?.number, 'no rule of its own yet');
    await rules.put({ number: n, script: { start: { type: 'play', text: 'one' } } });
    assert.equal((await match(n))?.number, n, 'own store: dropped at once');
    await other.put({ number: n, script: { start: { type: 'play', text: 'two' } } });
    assert.deepEqual((await match(n))?.script.start, { type: 'play', text: 'one' }, 'another instance: the cached rule until the TTL');
    now += 1_000;
    assert.deepEqual((await match(n))?.script.start, { type: 'play', text: 'two' }, 'after the TTL: read again');
    await other.delete(n);
  });
});
