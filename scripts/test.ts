// `npm test`: one Temporal dev server for the whole suite and the workflow bundle built once, then node's
// test runner over every test file (or the files given: `npm test -- test/unit/common/config.test.ts`).
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildWorkflowBundle } from '../workers/build-bundle.js';
import { startDevServer } from './lib/dev-server.js';

const SUITES = ['test/unit', 'test/api', 'test/workflow', 'test/e2e', 'test/faults'];

function testFiles(): string[] {
  const given = process.argv.slice(2);
  if (given.length) return given;
  return SUITES.flatMap((dir) => {
    try {
      return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.test.ts')).sort().map((f) => join(dir, f));
    } catch {
      return [];
    }
  });
}

const started = Date.now();
const log = (msg: string) => process.stdout.write(`[test] ${msg}\n`);
const server = await startDevServer({ log });
log(`Temporal dev server at ${server.address} (CLI from ${server.cli.source})`);
const bundle = await buildWorkflowBundle(resolve('.relayflow/test/workflow-bundle.js'));
log(`workflow bundle built in ${((Date.now() - started) / 1000).toFixed(1)} s (with server start)`);

const files = testFiles();
// Unit files touch neither Temporal nor a worker, so they run two at a time (it saves about a minute of
// per-file start-up); the rest run one file at a time: on two cores, parallel files (each with its worker,
// API and sandbox) starve the Temporal server and turn timing into flakiness.
const unit = files.filter((f) => f.startsWith('test/unit/'));
const rest = files.filter((f) => !f.startsWith('test/unit/'));
const env = { ...process.env, TEMPORAL_ADDRESS: server.address, RELAYFLOW_WORKFLOW_BUNDLE: bundle };
const run = (group: string[], concurrency: number): Promise<number> => {
  if (!group.length) return Promise.resolve(0);
  const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', `--test-concurrency=${concurrency}`, ...group], { stdio: 'inherit', env });
  return new Promise((res) => child.on('exit', (c, signal) => res(c ?? (signal ? 1 : 0))));
};
const unitCode = await run(unit, 2);
const code = (await run(rest, 1)) || unitCode;
await server.stop();
log(`suite finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exit(code);
