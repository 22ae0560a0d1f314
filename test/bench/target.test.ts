// RELAYFLOW_BENCH_TARGET for a bench alone, and the table's --target flag that sets it for the benches it runs.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseTableArgs } from '../../bench/table/args.js';
import { benchTarget } from '../../bench/target.js';

describe('the bench target', () => {
  test('dev unless told; cluster when told; anything else an error naming the variable and the values', () => {
    assert.equal(benchTarget({}), 'dev');
    assert.equal(benchTarget({ RELAYFLOW_BENCH_TARGET: ' ' }), 'dev');
    assert.equal(benchTarget({ RELAYFLOW_BENCH_TARGET: 'dev' }), 'dev');
    assert.equal(benchTarget({ RELAYFLOW_BENCH_TARGET: 'cluster' }), 'cluster');
    assert.throws(() => benchTarget({ RELAYFLOW_BENCH_TARGET: 'prod' }), /^Error: RELAYFLOW_BENCH_TARGET must be dev or cluster \(got "prod"\)$/);
  });

  test('the table: --target, else RELAYFLOW_BENCH_TARGET, else dev', () => {
    assert.deepEqual(parseTableArgs(['--only', 'verification,campaign'], 'full', {}), {
      profile: 'full',
      target: 'dev',
      only: ['verification', 'campaign'],
      record: false,
    });
    assert.equal(parseTableArgs(['--target', 'cluster'], 'short', {}).target, 'cluster');
    assert.equal(parseTableArgs([], 'full', { RELAYFLOW_BENCH_TARGET: 'cluster' }).target, 'cluster');
    assert.equal(parseTableArgs(['--target', 'dev'], 'full', { RELAYFLOW_BENCH_TARGET: 'cluster' }).target, 'dev');
  });
});
