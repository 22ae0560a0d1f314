// Replays the fixtures with other workflow interceptors than the worker's: none, and each alone. An
// interceptor adds awaits around update handlers and workflow calls, so a workflow whose commands came in an
// order that depended on them (an update's answer against the main loop cancelling its timer) would break
// running processes on an upgrade or removal of an interceptor. The runs of the fixed workflows (their
// histories record the patches below) must replay with any set; runs of the old code replay with the
// worker's set (replay.test.ts).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { createLogger } from '../../../common/logger.js';
import { installRuntime } from '../../../workers/runtime.js';
import { CAMPAIGN_AFTER_HANDLERS_PATCH } from '../../../workflows/campaigns/campaign.js';
import { SENDERID_AFTER_HANDLERS_PATCH } from '../../../workflows/senderid/senderid-registration.js';
import { NUMBER_GUARD_ONE_TIMER_PATCH } from '../../../workflows/verification/number-guard.js';
import { VERIFICATION_AFTER_HANDLERS_PATCH } from '../../../workflows/verification/verification.js';
import { CALLOUT_AFTER_HANDLERS_PATCH } from '../../../workflows/voice/callout.js';
import { INTERCEPTOR_SETS, loadFixtures, patchesOf, replayFixtures, replayOptions } from '../../helpers/replay.js';

/** The patches that make a workflow's commands independent of interceptor timing, by workflow type. */
const INDEPENDENT: Record<string, string> = {
  numberGuard: NUMBER_GUARD_ONE_TIMER_PATCH,
  senderIdRegistration: SENDERID_AFTER_HANDLERS_PATCH,
  verification: VERIFICATION_AFTER_HANDLERS_PATCH,
  voiceCallout: CALLOUT_AFTER_HANDLERS_PATCH,
};

/**
 * Runs of other types recorded with an update answered while the workflow waited (on a timer, a condition),
 * unpatched: they replay with any set, as their handlers change what the loop waits on only after an await
 * (OperationMemory.run, an activity), and the SDK unblocks conditions only once pending microtasks (the
 * update's answer among them) have run. The campaign's run here was recorded before its patch (below).
 */
const INDEPENDENT_UNPATCHED = [
  'bundleProvisioning/deleted-while-waiting',
  'bundleProvisioning/stopped-while-waiting',
  'campaign/paused-resumed-cancelled',
  'chataSenderOnboarding/stopped-while-waiting',
  'chatbSenderOnboarding/stopped-while-waiting',
  'onboarding/steps-added-skipped-cancelled',
  'rcsSenderLaunch/relaunched-stopped',
  'templateApproval/resubmitted-stopped-while-waiting',
];

/**
 * Patched although no recorded run of the old code failed with the sets here: the campaign's cancel handler and
 * its loop woke together when the last chunk ended, and the loop's activity came first only by hop counts.
 */
const DEFENSIVE: Record<string, string> = { campaign: CAMPAIGN_AFTER_HANDLERS_PATCH };

const fixtures = loadFixtures();
const name = (f: { workflowType: string; case: string }) => `${f.workflowType}/${f.case}`;
const fixed = [
  ...fixtures.filter((f) => INDEPENDENT[f.workflowType] && patchesOf(f.history).has(INDEPENDENT[f.workflowType]!)).map(name),
  ...fixtures.filter((f) => DEFENSIVE[f.workflowType] && patchesOf(f.history).has(DEFENSIVE[f.workflowType]!)).map(name),
  ...INDEPENDENT_UNPATCHED,
];
/** Recorded on purpose with the code before the patches, with the worker's interceptors. */
const beforePatches = fixtures.filter((f) => INDEPENDENT[f.workflowType] && /-before-/.test(f.case)).map(name);

installRuntime(createLogger({ name: 'test', level: process.env.TEST_LOG_LEVEL ?? 'silent' }), { handleSignals: false });

describe("replay with other workflow interceptors than the worker's", () => {
  const results = new Map<string, Map<string, Error | undefined>>();
  before(async () => {
    // One set at a time: each bundles the workflows anew (2 cores shared).
    for (const [set, modules] of Object.entries(INTERCEPTOR_SETS)) {
      results.set(set, await replayFixtures(fixtures, replayOptions(`relayflow-interceptors-${set.replace(/\W+/g, '-')}`, { interceptorModules: modules })));
    }
  });

  test('the runs recorded for the workflow types that needed no patch are fixtures', () => {
    const names = new Set(fixtures.map(name));
    assert.deepEqual(
      INDEPENDENT_UNPATCHED.filter((n) => !names.has(n)),
      [],
    );
  });

  test('every workflow type patched defensively has a fixture recorded with its patch', () => {
    for (const [type, patch] of Object.entries(DEFENSIVE))
      assert.ok(
        fixed.some((n) => n.startsWith(`${type}/`) && !INDEPENDENT_UNPATCHED.includes(n)),
        `${type}: a fixture recorded with ${patch}`,
      );
  });

  test('every fixed workflow type has fixtures recorded with its patch, and ones recorded before it', () => {
    for (const type of Object.keys(INDEPENDENT)) {
      assert.ok(
        fixed.some((n) => n.startsWith(`${type}/`)),
        `${type}: a fixture recorded with ${INDEPENDENT[type]}`,
      );
      assert.ok(
        beforePatches.some((n) => n.startsWith(`${type}/`)),
        `${type}: a fixture recorded before ${INDEPENDENT[type]}`,
      );
    }
  });

  for (const set of Object.keys(INTERCEPTOR_SETS)) {
    test(`${set}: the runs of the fixed workflows replay`, () => {
      const r = results.get(set)!;
      assert.equal(r.size, fixtures.length, 'every fixture was replayed');
      const failed = fixed.filter((n) => r.get(n)).map((n) => `${n}: ${r.get(n)!.message}`);
      assert.deepEqual(failed, [], `${set}: runs recorded with the patches fail`);
    });
  }

  test('without interceptors, the runs recorded before the patches fail: the check catches the order dependence', () => {
    const r = results.get('none')!;
    for (const n of beforePatches) {
      const err = r.get(n);
      assert.ok(err, `${n} replays without interceptors: the fixture no longer shows the problem`);
      assert.match(err.message, /Nondeterminism|TMPRL1100/, `${n}: ${err.message}`);
    }
  });
});
