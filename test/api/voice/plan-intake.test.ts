// The intake's answers from the plan, against the store and the Temporal server: a repeated delivery gets the
// answer it was given and is stored once; two API instances (two intakes on one store) take turns on one call and
// each answers from where the call is (the behind one reads the call again); the process records every answer
// once, in order, whatever the relay repeats; the incoming-rule cache sees a change made through its store at once
// and one made elsewhere within its TTL.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { VoicePlanIntake } from '../../../api/callbacks/voice-plan.js';
import { createLogger } from '../../../common/logger.js';
import { processStatusQuery } from '../../../contracts/process-status.js';
import { voiceEventsSignal, type VoiceCallbackEvent } from '../../../contracts/voice.js';
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
