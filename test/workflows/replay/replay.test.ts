// Replay tests: every recorded history (test/fixtures/histories/<workflowType>/<case>.json, written by
// scripts/record-histories.ts) replayed against the current workflow code, with the worker's data converter.
// A change that makes a workflow's code take other steps than its recorded runs fails here, naming the
// workflow type and case: such a change needs a patch (docs/testing.md, "Changing workflow code").
// The last test shows it: a copy of one workflow with an extra timer is caught. Every replay runs with the
// worker's workflow options (workers/workflow-options.ts), interceptors included.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { createLogger } from '../../../common/logger.js';
import { installRuntime } from '../../../workers/runtime.js';
import { workflowBundleOptions, WORKFLOWS_PATH } from '../../../workers/workflow-options.js';
import { FIXTURES_DIR, loadFixtures, patchesOf, replayFixtures, replayOptions, workflowTypeOf } from '../../helpers/replay.js';

const fixtures = loadFixtures();

/** The workflow types the worker registers (processes/workflows.ts). */
const registeredTypes = [...readFileSync(WORKFLOWS_PATH, 'utf8').matchAll(/export \{([^}]+)\}/g)].flatMap((m) =>
  m[1]!
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

installRuntime(createLogger({ name: 'test', level: process.env.TEST_LOG_LEVEL ?? 'silent' }), { handleSignals: false });

describe('replay of recorded histories', () => {
  let results = new Map<string, Error | undefined>();
  before(async () => {
    assert.equal(new Set(fixtures.map((f) => f.workflowId)).size, fixtures.length, 'every fixture has its own workflow ID');
    results = await replayFixtures(fixtures, replayOptions('relayflow-fixtures'));
  });

  test('every workflow type the worker runs has a recorded history', () => {
    assert.ok(registeredTypes.length >= 10, `read the registered types: ${registeredTypes.join(', ')}`);
    const recorded = new Set(fixtures.map((f) => f.workflowType));
    assert.deepEqual(
      registeredTypes.filter((t) => !recorded.has(t)),
      [],
      'workflow types without a fixture',
    );
  });

  test('before 1.0.0 no recorded run takes a patched() branch: changes record the fixtures again (docs/testing.md)', () => {
    const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
    if (Number(version.split('.')[0]) >= 1) return;
    const patched = fixtures.filter((f) => patchesOf(f.history).size > 0).map((f) => `${f.workflowType}/${f.case}: ${[...patchesOf(f.history)].join(', ')}`);
    assert.deepEqual(patched, [], `version ${version}: fixtures recorded with patches`);
  });

  test("every released version's fixtures are here, unchanged: each is replayed below (docs/upgrades.md)", () => {
    const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
    const released = JSON.parse(readFileSync(join(FIXTURES_DIR, 'released.json'), 'utf8')) as Record<string, Record<string, string>>;
    if (Number(version.split('.')[0]) >= 1 && !version.includes('-'))
      assert.ok(released[version], `version ${version} has no frozen fixtures: npx tsx scripts/freeze-fixtures.ts ${version}`);
    const changed: string[] = [];
    for (const [release, files] of Object.entries(released)) {
      for (const [file, sha256] of Object.entries(files)) {
        const path = join(FIXTURES_DIR, file);
        const now = existsSync(path) ? createHash('sha256').update(readFileSync(path)).digest('hex') : 'missing';
        if (now !== sha256) changed.push(`${release}: ${file} ${now === 'missing' ? 'is missing' : 'changed'}`);
      }
    }
    assert.deepEqual(changed, [], 'a released fixture never changes: record a new case instead');
  });

  for (const f of fixtures) {
    test(`${f.workflowType}/${f.case} replays deterministically`, () => {
      assert.equal(workflowTypeOf(f.history), f.workflowType, `${f.file} holds a ${workflowTypeOf(f.history)} history`);
      assert.ok(results.has(`${f.workflowType}/${f.case}`), `${f.workflowType}/${f.case} was replayed`);
      const error = results.get(`${f.workflowType}/${f.case}`);
      if (error) assert.fail(`${f.workflowType}/${f.case} (${f.file}) no longer replays: ${error.name}: ${error.message}`);
    });
  }
});

describe('a deliberate nondeterministic change', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'relayflow-replay-'));
  });
  after(async () => rm(dir, { recursive: true, force: true }));

  test('an extra timer before the first activity of subprojectProvisioning: its histories fail with a DeterminismViolationError, no other does', async () => {
    // The workflows as they are, except one line of one file, changed while webpack reads it.
    const loader = join(dir, 'insert-sleep-loader.cjs');
    await writeFile(
      loader,
      `module.exports = function (source) {
  const changed = source.replace('const sub = await ensureSubproject(', 'await sleep(1);\\n    const sub = await ensureSubproject(');
  if (changed === source) throw new Error('the line to change was not found');
  return changed;
};\n`,
    );
    const { code } = await bundleWorkflowCode({
      ...workflowBundleOptions(),
      logger: undefined,
      webpackConfigHook: (config) => {
        config.module?.rules?.push({ test: /subproject-provisioning\.ts$/, enforce: 'pre', use: [{ loader }] });
        return config;
      },
    });
    const results = await replayFixtures(fixtures, replayOptions('relayflow-mutant', { bundle: { code } }));
    const failed = [...results]
      .filter(([, err]) => err)
      .map(([name]) => name)
      .sort();
    const expected = fixtures
      .filter((f) => f.workflowType === 'subprojectProvisioning')
      .map((f) => `${f.workflowType}/${f.case}`)
      .sort();
    assert.ok(expected.length > 0, 'subprojectProvisioning fixtures exist');
    assert.deepEqual(failed, expected, "exactly the changed workflow's histories fail, named by type and case");
    for (const name of failed) {
      const err = results.get(name)!;
      assert.ok(
        err instanceof DeterminismViolationError || err.name === 'DeterminismViolationError',
        `${name}: a determinism violation, got ${err.name}: ${err.message}`,
      );
    }
    // Through the single-history API too, as a developer would check one fixture.
    const one = fixtures.find((f) => f.workflowType === 'subprojectProvisioning')!;
    await assert.rejects(
      Worker.runReplayHistory(replayOptions('relayflow-mutant-one', { bundle: { code } }), one.history, one.workflowId),
      (err: Error) => err instanceof DeterminismViolationError || err.name === 'DeterminismViolationError',
    );
  });
});
