// Replays every fixture with other workflow interceptors than the worker's: none, and each alone. An
// interceptor adds awaits around update handlers and workflow calls, so a workflow whose commands came in an
// order that depended on them (an update's answer against the main loop cancelling its timer) would break
// running processes on an upgrade or removal of an interceptor. Every recorded run must replay with any set.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { createLogger } from '../../../common/logger.js';
import { installRuntime } from '../../../workers/runtime.js';
import { workflowBundleOptions } from '../../../workers/workflow-options.js';
import { INTERCEPTOR_SETS, loadFixtures, replayFixtures, replayOptions } from '../../helpers/replay.js';
import { cachedBundleCode } from '../../helpers/workflow-bundles.js';

const fixtures = loadFixtures();
const name = (f: { workflowType: string; case: string }) => `${f.workflowType}/${f.case}`;

installRuntime(createLogger({ name: 'test', level: process.env.TEST_LOG_LEVEL ?? 'silent' }), { handleSignals: false });

describe("replay with other workflow interceptors than the worker's", () => {
  const results = new Map<string, Map<string, Error | undefined>>();
  before(async () => {
    // One set at a time (2 cores shared): each is the workflows bundled with its modules, built only when they changed.
    for (const [set, modules] of Object.entries(INTERCEPTOR_SETS)) {
      const code = await cachedBundleCode(workflowBundleOptions(modules));
      results.set(set, await replayFixtures(fixtures, replayOptions(`relayflow-interceptors-${set.replace(/\W+/g, '-')}`, { bundle: { code } })));
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
