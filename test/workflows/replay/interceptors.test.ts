// Replays every fixture with other workflow interceptors than the worker's: none, and each alone. An
// interceptor adds awaits around update handlers and workflow calls, so a workflow whose commands came in an
// order that depended on them (an update's answer against the main loop cancelling its timer) would break
// running processes on an upgrade or removal of an interceptor. Every recorded run must replay with any set.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { createLogger } from '../../../common/logger.js';
import { installRuntime } from '../../../workers/runtime.js';
import { INTERCEPTOR_SETS, loadFixtures, replayFixtures, replayOptions } from '../../helpers/replay.js';

const fixtures = loadFixtures();
const name = (f: { workflowType: string; case: string }) => `${f.workflowType}/${f.case}`;

installRuntime(createLogger({ name: 'test', level: process.env.TEST_LOG_LEVEL ?? 'silent' }), { handleSignals: false });

describe("replay with other workflow interceptors than the worker's", () => {
  const results = new Map<string, Map<string, Error | undefined>>();
  before(async () => {
    // One set at a time: each bundles the workflows anew (2 cores shared).
    for (const [set, modules] of Object.entries(INTERCEPTOR_SETS)) {
      results.set(set, await replayFixtures(fixtures, replayOptions(`relayflow-interceptors-${set.replace(/\W+/g, '-')}`, { interceptorModules: modules })));
    }
  });

  for (const set of Object.keys(INTERCEPTOR_SETS)) {
    test(`${set}: every recorded run replays`, () => {
      const r = results.get(set)!;
      assert.equal(r.size, fixtures.length, 'every fixture was replayed');
      const failed = fixtures.filter((f) => r.get(name(f))).map((f) => `${name(f)}: ${r.get(name(f))!.message}`);
      assert.deepEqual(failed, [], `${set}: runs that depend on the interceptors' timing`);
    });
  }
});
