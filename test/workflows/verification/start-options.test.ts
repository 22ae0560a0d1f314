// The platform start's retry budget: its backoffs always fit the time it is given, so the start ends
// (ERROR platform_unavailable) before the caller's deadline even while the worker waits between attempts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  attemptsWithin,
  MIN_START_MS,
  START_TIMEOUT_MS,
  startActivityOptions,
} from '../../../processes/verification/verification/workflow/activity-options.js';

const backoffsBefore = (attempts: number) => {
  let total = 0;
  for (let i = 1, next = 200; i < attempts; i++, next = Math.min(2_000, next * 2)) total += next;
  return total;
};

test('the backoffs before the last attempt fit the budget, and one more would not', () => {
  for (const ms of [MIN_START_MS, 1_000, 2_400, 5_000, START_TIMEOUT_MS]) {
    const n = attemptsWithin(ms);
    assert.ok(backoffsBefore(n) <= ms, `${ms}: ${n} attempts`);
    assert.ok(backoffsBefore(n + 1) > ms, `${ms}: room for more than ${n}`);
  }
  assert.equal(attemptsWithin(100), 1);
});

test('options are clamped to the start timeout and carry the attempt limit', () => {
  const o = startActivityOptions(60_000);
  assert.equal(o.scheduleToCloseTimeout, START_TIMEOUT_MS);
  assert.equal(o.retry?.maximumAttempts, attemptsWithin(START_TIMEOUT_MS));
  assert.equal(startActivityOptions(-5).scheduleToCloseTimeout, MIN_START_MS);
});
