// The fault suite, on the production topology (`npm run test:cluster`): the cluster of `npm run cluster` (test/faults/
// rig.ts), every process kind end to end through its front (the README's try-it blocks), then real load through
// the API while a scenario breaks a part of the cluster or the platform. Every scenario counts from the sandbox's
// records and fails on any duplicate or loss; the table of all of them is printed at the end.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { kindsNotStarted, runTryIts, tryItProblems } from '../helpers/try-it.js';
import { startRig, type Rig } from './rig.js';
import { FAULT_ENV, FAULTS, runFaultRow } from './fault-rows.js';
import { formatTable, type Row } from './scenario.js';

const PER_KIND = 2;

describe('fault suite on the cluster', () => {
  let rig: Rig;
  const rows: Row[] = [];
  let failed = false;

  before(async () => {
    rig = await startRig({ env: FAULT_ENV });
  });

  after(async () => {
    if (rows.length) process.stdout.write(`\nfault suite on the cluster\n${formatTable(rows)}\n\n`);
    if (failed) process.stdout.write(`the cluster's logs are kept in ${rig?.dir}/logs\n`);
    await rig?.close({ keep: failed });
  });

  test('every process kind end to end through the front: the README try-it blocks', { timeout: 240_000 }, async (t) => {
    const began = Date.now();
    const env = {
      PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
      HOME: process.env.HOME ?? tmpdir(),
      API: rig.apiUrl,
      SBX: rig.cluster.sandboxUrl,
      KEY: rig.cluster.apiKey,
    };
    try {
      const results = await runTryIts(await readFile('README.md', 'utf8'), env);
      t.diagnostic(`${results.length} blocks in ${((Date.now() - began) / 1000).toFixed(1)} s`);
      assert.deepEqual(tryItProblems(results), []);
      // Listed by kind: the cluster's visibility store (PostgreSQL) answers the queries the dev server's SQLite did.
      assert.deepEqual(await kindsNotStarted(rig.apiUrl, rig.cluster.apiKey), []);
    } catch (err) {
      failed = true;
      throw err;
    }
  });

  for (const fault of FAULTS) {
    void test(fault.name, async () => {
      try {
        const row = await runFaultRow(rig, fault, { perKind: PER_KIND });
        rows.push(row);
        assert.deepEqual(row.findings, []);
        assert.deepEqual([row.completed, row.duplicates, row.losses], [row.processes, 0, 0]);
      } catch (err) {
        failed = true;
        throw err;
      }
    });
  }
});
