// The fault suite's event check on its own (no cluster): what it calls complete and in order, and what a loss.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chainProblem } from './events.js';

let at = 0;
const started = (state: string, id = `evt_${state}`) => ({
  webhookId: id,
  at: at++,
  event: { type: 'process.started', data: { eventId: id, processId: 'p', kind: 'k', state } },
});
const changed = (previousState: string, state: string, id = `evt_${state}`) => ({
  webhookId: id,
  at: at++,
  event: { type: 'process.state_changed', data: { eventId: id, processId: 'p', kind: 'k', state, previousState } },
});

describe('the fault suite: a process told every change, in order', () => {
  test('a start, each change from the state before, ending in the listed state: complete; a repeat changes nothing', () => {
    const chain = [started('PENDING'), changed('PENDING', 'IN_REVIEW'), changed('IN_REVIEW', 'APPROVED')];
    assert.equal(chainProblem(chain, 'APPROVED'), undefined);
    assert.equal(chainProblem([chain[0]!, chain[1]!, chain[1]!, chain[2]!], 'APPROVED'), undefined);
  });

  test('a change missing, events ending early, none at all, an unreadable state: each a loss', () => {
    assert.match(chainProblem([started('PENDING'), changed('IN_REVIEW', 'APPROVED')], 'APPROVED')!, /follows one that ended in PENDING/);
    assert.match(chainProblem([started('PENDING'), changed('PENDING', 'IN_REVIEW')], 'APPROVED')!, /events end in IN_REVIEW, the process is listed APPROVED/);
    assert.equal(chainProblem([], 'APPROVED'), 'no event');
    assert.match(chainProblem([started('PENDING')], undefined)!, /unreadable/);
    assert.match(chainProblem([changed('PENDING', 'APPROVED')], 'APPROVED')!, /the first event is process.state_changed/);
  });

  test('out of order: a later change before an earlier one', () => {
    assert.match(chainProblem([started('PENDING'), changed('IN_REVIEW', 'APPROVED'), changed('PENDING', 'IN_REVIEW')], 'IN_REVIEW')!, /event 2/);
  });

  test('a second start is a new run only where the listing shows two; an unverified delivery is a loss', () => {
    const twice = [started('PENDING', 'a'), changed('PENDING', 'READY', 'b'), started('PENDING', 'c'), changed('PENDING', 'READY', 'd')];
    assert.equal(chainProblem(twice, 'READY', 2), undefined);
    assert.match(chainProblem(twice, 'READY')!, /event 3 \(process.started/);
    assert.match(
      chainProblem([started('PENDING'), { webhookId: 'x', at: at++, problem: 'not verified: No matching signature found' }], 'PENDING')!,
      /x: not verified/,
    );
  });
});
