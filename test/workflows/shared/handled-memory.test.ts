// The bounded memory of handled events and operations (processes/shared/workflow/handled-memory.ts): repeats are dropped or
// answered from memory, the oldest entries go first beyond the bound, and what a run carries a new run reads.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HandledMemory } from '../../../processes/shared/workflow/handled-memory.js';

test('event IDs: the first delivery counts, a repeat does not; beyond the bound the oldest is forgotten', () => {
  const seen = HandledMemory.ofIds(['a', 'b'], 3);
  assert.equal(seen.firstTime('a'), false);
  assert.equal(seen.firstTime('c'), true);
  assert.equal(seen.firstTime('c'), false);
  assert.equal(seen.firstTime('d'), true);
  assert.deepEqual(seen.ids(), ['b', 'c', 'd']);
  assert.equal(seen.knows('a'), false);
  assert.equal(seen.firstTime('a'), true);
});

test('a carried memory reads the previous run’s array (entries for operations, IDs for events)', () => {
  const operations = new HandledMemory([['op-1', { accepted: true }]]);
  assert.deepEqual(operations.get('op-1'), { accepted: true });
  assert.deepEqual(new HandledMemory(operations.toCarry()).toCarry(), [['op-1', { accepted: true }]]);
  assert.deepEqual(HandledMemory.ofIds(undefined, 5).ids(), []);
});

test('run: a repeat is answered with the first outcome, also while the first still runs', async () => {
  const memory = new HandledMemory<number>();
  let runs = 0;
  let finish!: (n: number) => void;
  const first = memory.run('op', () => {
    runs += 1;
    return new Promise<number>((resolve) => (finish = resolve));
  });
  const repeat = memory.run('op', () => {
    runs += 1;
    return 2;
  });
  await Promise.resolve();
  assert.equal(memory.knows('op'), true);
  finish(1);
  assert.deepEqual(await Promise.all([first, repeat]), [1, 1]);
  assert.equal(await memory.run('op', () => 3), 1);
  assert.equal(runs, 1);
});

test('run starts the work a microtask later; remember at once', () => {
  const started: string[] = [];
  void new HandledMemory<number>().run('op', () => (started.push('run'), 1));
  void new HandledMemory<number>().remember('op', () => (started.push('remember'), 1));
  assert.deepEqual(started, ['remember']);
});

test('remember: a repeat after the first answered gets the outcome; one while it runs runs again (the last outcome is kept)', async () => {
  const memory = new HandledMemory<number>();
  let runs = 0;
  const work = async () => ++runs;
  assert.deepEqual(await Promise.all([memory.remember('op', work), memory.remember('op', work)]), [1, 2]);
  assert.equal(await memory.remember('op', work), 2);
  assert.equal(memory.knows('op'), true);
});

test('operations are bounded at 100 by default, oldest first', async () => {
  const memory = new HandledMemory<number>();
  for (let i = 0; i < 101; i++) await memory.remember(`op-${i}`, () => i);
  assert.equal(memory.toCarry().length, 100);
  assert.equal(memory.knows('op-0'), false);
  assert.equal(memory.get('op-100'), 100);
});
