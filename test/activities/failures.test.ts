import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApplicationFailure } from '@temporalio/common';
import { toActivityFailure, withFailureMapping, withFailureMappingAll } from '../../processes/shared/activities/failures.js';
import * as errors from '../../platform/errors.js';

const init = {
  area: 'conversation' as const,
  httpStatus: 400,
  code: 'INVALID_ARGUMENT',
  message: 'conversation 400 INVALID_ARGUMENT: bad',
  details: [{ field: 'app_id' }],
};

test('non-retryable platform errors become non-retryable ApplicationFailures typed by class', () => {
  for (const Cls of [
    errors.PlatformValidationError,
    errors.PlatformAuthError,
    errors.PlatformNotFoundError,
    errors.PlatformConflictError,
    errors.PlatformError,
  ]) {
    const failure = toActivityFailure(new Cls(init));
    assert.ok(failure instanceof ApplicationFailure, Cls.name);
    assert.equal(failure.type, Cls.name);
    assert.equal(failure.nonRetryable, true, Cls.name);
    assert.equal(failure.message, init.message);
    assert.deepEqual(failure.details, [{ httpStatus: 400, code: 'INVALID_ARGUMENT', details: [{ field: 'app_id' }] }]);
    assert.equal(failure.nextRetryDelay, undefined);
    assert.ok(failure.cause instanceof Cls);
  }
});

test('rate limits are retryable with nextRetryDelay from Retry-After', () => {
  const err = errors.platformErrorFromResponse({
    area: 'conversation',
    status: 429,
    headers: { 'retry-after': '7' },
    body: { error: { code: 429, message: 'slow', status: 'RESOURCE_EXHAUSTED' } },
  });
  const failure = toActivityFailure(err);
  assert.ok(failure instanceof ApplicationFailure);
  assert.equal(failure.type, 'PlatformRateLimitError');
  assert.equal(failure.nonRetryable, false);
  assert.equal(failure.nextRetryDelay, 7000);
  assert.deepEqual(failure.details, [{ httpStatus: 429, code: 'RESOURCE_EXHAUSTED', details: undefined }]);

  const e113 = toActivityFailure(new errors.PlatformRateLimitError({ area: 'mms', httpStatus: 200, code: 'E113', message: 'throughput' }));
  assert.ok(e113 instanceof ApplicationFailure);
  assert.equal(e113.nonRetryable, false);
  assert.equal(e113.nextRetryDelay, undefined, 'no Retry-After: Temporal backoff applies');
});

test('unavailable errors are retryable ApplicationFailures with their type', () => {
  const failure = toActivityFailure(new errors.PlatformUnavailableError({ area: 'voice', code: 'TIMEOUT', message: 'voice: no answer' }));
  assert.ok(failure instanceof ApplicationFailure);
  assert.equal(failure.type, 'PlatformUnavailableError');
  assert.equal(failure.nonRetryable, false);
  assert.deepEqual(failure.details, [{ httpStatus: undefined, code: 'TIMEOUT', details: undefined }]);
});

test('other errors pass through unchanged', () => {
  const plain = new Error('boom');
  assert.equal(toActivityFailure(plain), plain);
  const already = ApplicationFailure.nonRetryable('x', 'Mine');
  assert.equal(toActivityFailure(already), already);
  assert.equal(toActivityFailure('text'), 'text');
});

test('withFailureMapping maps what an activity throws and passes results through', async () => {
  const failing = withFailureMapping(async (_x: number) => {
    throw new errors.PlatformValidationError(init);
  });
  await assert.rejects(failing(1), (err: unknown) => {
    assert.ok(err instanceof ApplicationFailure);
    assert.equal(err.type, 'PlatformValidationError');
    assert.equal(err.nonRetryable, true);
    return true;
  });
  const ok = withFailureMapping(async (a: number, b: number) => a + b);
  assert.equal(await ok(2, 3), 5);

  const all = withFailureMappingAll({
    async good(x: string) {
      return x.toUpperCase();
    },
    async bad() {
      throw new errors.PlatformNotFoundError({ ...init, httpStatus: 404, code: 'NOT_FOUND' });
    },
  });
  assert.equal(await all.good('a'), 'A');
  await assert.rejects(all.bad(), { name: 'ApplicationFailure', type: 'PlatformNotFoundError', nonRetryable: true });
});
