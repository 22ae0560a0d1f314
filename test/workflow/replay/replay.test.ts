// Replay tests: every recorded history (test/fixtures/histories/<workflowType>/<case>.json, written by
// scripts/record-histories.ts) replayed against the current workflow code, with the worker's data converter.
// A change that makes a workflow's code take other steps than its recorded runs fails here, naming the
// workflow type and case: such a change needs a patch (README, "Changing workflow code").
// The last test shows it: a copy of one workflow with an extra timer is caught.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { bundleWorkflowCode, Worker, type ReplayWorkerOptions } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { FAILURE_CONVERTER_PATH } from '../../../common/data-converter.js';
import { createLogger } from '../../../common/logger.js';
import { installRuntime } from '../../../workers/runtime.js';
import { workflowSpanSinks } from '../../../workers/tracing.js';
import { WORKFLOWS_PATH } from '../../../workers/worker.js';
import { loadFixtures, replayDataConverter, workflowTypeOf } from '../../helpers/replay.js';

const fixtures = loadFixtures();
/** What the worker runs: the bundle `npm test` built, or the workflows bundled at start. */
const workflowCode = (): Pick<ReplayWorkerOptions, 'workflowBundle' | 'workflowsPath'> =>
  process.env.RELAYFLOW_WORKFLOW_BUNDLE ? { workflowBundle: { codePath: process.env.RELAYFLOW_WORKFLOW_BUNDLE } } : { workflowsPath: WORKFLOWS_PATH };

/** The workflow types the worker registers (workflows/index.ts). */
const registeredTypes = [...readFileSync(WORKFLOWS_PATH, 'utf8').matchAll(/export \{([^}]+)\}/g)]
  .flatMap((m) => m[1]!.split(',').map((s) => s.trim()).filter(Boolean));

installRuntime(createLogger({ name: 'test', level: process.env.TEST_LOG_LEVEL ?? 'silent' }), { handleSignals: false });

/** Replays every fixture against `code`; the error of each that failed, by `<workflowType>/<case>`. */
async function replayAll(code: Pick<ReplayWorkerOptions, 'workflowBundle' | 'workflowsPath'>, replayName: string): Promise<Map<string, Error | undefined>> {
  const byId = new Map(fixtures.map((f) => [f.workflowId, f]));
  const results = new Map<string, Error | undefined>();
  const replays = Worker.runReplayHistories(
    // The worker's sinks: the bundled OpenTelemetry workflow interceptor sends its spans to `exporter` (none on replay).
    { ...code, dataConverter: replayDataConverter(), replayName, sinks: workflowSpanSinks() },
    fixtures.map((f) => ({ workflowId: f.workflowId, history: f.history })),
  );
  for await (const r of replays) {
    const f = byId.get(r.workflowId)!;
    results.set(`${f.workflowType}/${f.case}`, r.error);
  }
  return results;
}

describe('replay of recorded histories', () => {
  let results = new Map<string, Error | undefined>();
  before(async () => {
    assert.equal(new Set(fixtures.map((f) => f.workflowId)).size, fixtures.length, 'every fixture has its own workflow ID');
    results = await replayAll(workflowCode(), 'relayflow-fixtures');
  });

  test('every workflow type the worker runs has a recorded history', () => {
    assert.ok(registeredTypes.length >= 10, `read the registered types: ${registeredTypes.join(', ')}`);
    const recorded = new Set(fixtures.map((f) => f.workflowType));
    assert.deepEqual(registeredTypes.filter((t) => !recorded.has(t)), [], 'workflow types without a fixture');
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
    await writeFile(loader, `module.exports = function (source) {
  const changed = source.replace('const sub = await ensureSubproject(', 'await sleep(1);\\n    const sub = await ensureSubproject(');
  if (changed === source) throw new Error('the line to change was not found');
  return changed;
};\n`);
    const { code } = await bundleWorkflowCode({
      workflowsPath: WORKFLOWS_PATH,
      failureConverterPath: FAILURE_CONVERTER_PATH,
      logger: undefined,
      webpackConfigHook: (config) => {
        config.module?.rules?.push({ test: /subproject-provisioning\.ts$/, enforce: 'pre', use: [{ loader }] });
        return config;
      },
    });
    const results = await replayAll({ workflowBundle: { code } }, 'relayflow-mutant');
    const failed = [...results].filter(([, err]) => err).map(([name]) => name).sort();
    const expected = fixtures.filter((f) => f.workflowType === 'subprojectProvisioning').map((f) => `${f.workflowType}/${f.case}`).sort();
    assert.ok(expected.length > 0, 'subprojectProvisioning fixtures exist');
    assert.deepEqual(failed, expected, 'exactly the changed workflow\'s histories fail, named by type and case');
    for (const name of failed) {
      const err = results.get(name)!;
      assert.ok(err instanceof DeterminismViolationError || err.name === 'DeterminismViolationError', `${name}: a determinism violation, got ${err.name}: ${err.message}`);
    }
    // Through the single-history API too, as a developer would check one fixture.
    const one = fixtures.find((f) => f.workflowType === 'subprojectProvisioning')!;
    await assert.rejects(
      Worker.runReplayHistory({ workflowBundle: { code }, dataConverter: replayDataConverter(), replayName: 'relayflow-mutant-one' }, one.history, one.workflowId),
      (err: Error) => err instanceof DeterminismViolationError || err.name === 'DeterminismViolationError',
    );
  });
});
