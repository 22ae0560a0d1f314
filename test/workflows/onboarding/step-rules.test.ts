// The onboarding's step rules, without Temporal: outcomes of child states, which steps start, wait, are
// blocked or skipped (cascading through hard dependencies), and the binding of a value into a child's input.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { StepPlan, StepState, StepView } from '../../../processes/onboarding/onboarding/contract.js';
import { inPlaceRetry, outcomeOf, settleDependencies, withValue } from '../../../processes/onboarding/onboarding/workflow/step-rules.js';

function board(specs: [string, StepState, { step: string; hard?: boolean }[]][]): { views: StepView[]; plans: Map<string, StepPlan> } {
  const views = specs.map(([name, state, after]): StepView => ({
    name,
    kind: 'chatb-sender',
    state,
    after: after.map((d) => d.step),
    resource: {},
    attempts: 0,
  }));
  const plans = new Map(specs.map(([name, , after]): [string, StepPlan] => [name, { name, kind: 'chatb-sender', after }]));
  return { views, plans };
}
const stateOf = (views: StepView[]) => Object.fromEntries(views.map((v) => [v.name, v.state]));

describe('onboarding step rules', () => {
  test('child states: what ends a step, what fails it, what is on the way', () => {
    assert.equal(outcomeOf('subproject', 'READY'), 'ok');
    assert.equal(outcomeOf('bundle-provisioning', 'FAILED'), 'failed');
    assert.equal(outcomeOf('chata-template', 'APPROVED'), 'ok');
    assert.equal(outcomeOf('chata-template', 'REJECTED'), 'failed');
    assert.equal(outcomeOf('chata-template', 'IN_PROGRESS'), 'on-the-way');
    assert.equal(outcomeOf('chata-sender', 'ERROR'), 'on-the-way', 'the platform retries an ERROR');
    assert.equal(outcomeOf('rcs-sender', 'PARTIALLY_LAUNCHED'), 'on-the-way', 'countries still in review');
    assert.equal(outcomeOf('senderid-registration', 'REJECTED'), 'failed');
    assert.equal(inPlaceRetry('chatb-template', 'REJECTED'), 'resubmit');
    assert.equal(inPlaceRetry('rcs-sender', 'REJECTED'), 'relaunch');
    assert.equal(inPlaceRetry('chatb-sender', 'FAILED'), undefined);
  });

  test('ready steps are those whose needs succeeded; the rest wait, saying for what', () => {
    const { views, plans } = board([
      ['a', 'SUCCEEDED', []],
      ['b', 'RUNNING', []],
      ['c', 'PENDING', [{ step: 'a' }]],
      ['d', 'PENDING', [{ step: 'a' }, { step: 'b' }]],
    ]);
    assert.deepEqual(
      settleDependencies(views, plans).map((v) => v.name),
      ['c'],
    );
    assert.equal(views[3]!.reason, 'waits for b');
  });

  test('a failure blocks what needs it, transitively; a retried step unblocks them', () => {
    const { views, plans } = board([
      ['a', 'FAILED', []],
      ['b', 'PENDING', [{ step: 'a' }]],
      ['c', 'PENDING', [{ step: 'b', hard: true }]],
      ['d', 'PENDING', []],
    ]);
    assert.deepEqual(
      settleDependencies(views, plans).map((v) => v.name),
      ['d'],
    );
    assert.deepEqual(stateOf(views), { a: 'FAILED', b: 'BLOCKED', c: 'BLOCKED', d: 'PENDING' });
    assert.match(views[1]!.reason!, /a, which failed/);
    views[3]!.state = 'RUNNING'; // started by the loop
    views[0]!.state = 'SUCCEEDED';
    assert.deepEqual(
      settleDependencies(views, plans).map((v) => v.name),
      ['b'],
    );
    assert.equal(views[2]!.state, 'PENDING');
  });

  test('a skipped step counts as met for a soft need and skips a hard one, cascading', () => {
    const { views, plans } = board([
      ['a', 'SKIPPED', []],
      ['soft', 'BLOCKED', [{ step: 'a' }]],
      ['hard', 'BLOCKED', [{ step: 'a', hard: true }]],
      ['next', 'PENDING', [{ step: 'hard', hard: true }]],
    ]);
    assert.deepEqual(
      settleDependencies(views, plans).map((v) => v.name),
      ['soft'],
    );
    assert.deepEqual(stateOf(views), { a: 'SKIPPED', soft: 'PENDING', hard: 'SKIPPED', next: 'SKIPPED' });
    assert.match(views[3]!.reason!, /needs step hard, which was skipped/);
  });

  test('withValue sets a dotted path in a copy', () => {
    const input = { bundle: { name: 'Acme' }, key: 'k' };
    assert.deepEqual(withValue(input, 'bundle.subprojectId', 'SUB-1'), { bundle: { name: 'Acme', subprojectId: 'SUB-1' }, key: 'k' });
    assert.deepEqual(input, { bundle: { name: 'Acme' }, key: 'k' }, 'the plan is untouched');
    assert.deepEqual(withValue({}, 'a.b', 'x'), { a: { b: 'x' } });
  });
});
