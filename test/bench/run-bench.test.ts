// One bench as a child process, with tiny fake benches (node -e) in place of the real ones: the result taken
// from its BENCH_JSON line and the log streamed with a prefix; no result, a bad line, and a bench that
// overruns its bound, whose processes (one in a process group of its own, like the Temporal dev server) are
// all stopped.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isAlive } from '../../scripts/lib/leftover-server.js';
import { runBench } from '../../bench/table/run-bench.js';

const RESULT = { bench: 'fake', rounds: 1, rows: [{ figure: 'f', unit: '/s', baseline: 'b', relayflow: [1], baselineValues: [2], ratios: [0.5] }] };
const fake = (code: string, boundMs = 10_000, exitGraceMs?: number) => {
  const lines: string[] = [];
  const outcome = runBench({ name: 'fake', command: [process.execPath, '-e', code], boundMs, exitGraceMs, write: (l) => lines.push(l) });
  return { lines, outcome };
};

describe('runBench', () => {
  test('takes the result from the BENCH_JSON line and streams the rest with a prefix', async () => {
    const { lines, outcome } = fake(
      `console.log('warming up'); console.error('a warning'); console.log('BENCH_JSON ' + ${JSON.stringify(JSON.stringify(RESULT))})`,
    );
    const o = await outcome;
    assert.equal(o.status, 'ok');
    assert.equal(o.exitCode, 0);
    assert.deepEqual(o.result, RESULT);
    assert.deepEqual(lines.sort(), ['[fake] BENCH_JSON: 1 rows, 1 rounds', '[fake] a warning', '[fake] warming up']);
  });

  test('no BENCH_JSON line, or one that is not JSON: no result, saying why', async () => {
    assert.deepEqual(await fake('process.exit(3)').outcome.then((o) => [o.status, o.detail]), ['no result', 'exited with code 3 without a BENCH_JSON line']);
    const bad = await fake(`console.log('BENCH_JSON {oops')`).outcome;
    assert.equal(bad.status, 'no result');
    assert.match(bad.detail!, /^BENCH_JSON line is not JSON/);
  });

  test('past its bound the bench and every process under it are killed, and it is reported as timed out', async () => {
    // The fake starts a grandchild in a group of its own that would outlive a group kill, prints its PID, hangs.
    const code = `const c = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore' });
      console.log('grandchild ' + c.pid); setInterval(() => {}, 1000);`;
    const { lines, outcome } = fake(code, 1_500);
    const o = await outcome;
    assert.deepEqual([o.status, o.detail], ['timed out', 'bound 2 s']);
    const pid = Number(lines.find((l) => l.startsWith('[fake] grandchild '))!.split(' ')[2]);
    assert.equal(isAlive(pid), false);
  });

  test('a bench that printed its result but does not exit is killed after the grace, keeping the result', async () => {
    const o = await fake(`console.log('BENCH_JSON ' + ${JSON.stringify(JSON.stringify(RESULT))}); setInterval(() => {}, 1000)`, 10_000, 500).outcome;
    assert.equal(o.status, 'ok');
    assert.equal(o.detail, 'killed: it did not exit after its result');
    assert.ok(o.seconds < 8);
  });
});
