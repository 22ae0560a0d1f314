// The fault suite, on the production topology (`npm run test:cluster`): the cluster of `npm run cluster` (test/faults/
// rig.ts), every process kind end to end through its front (the README's try-it blocks), then real load through
// the API while a scenario breaks a part of the cluster or the platform. Every scenario counts from the sandbox's
// records and from the events its processes told a subscription (test/faults/events.ts), and fails on any duplicate
// or loss; the table of all of them is printed at the end.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { kindsNotStarted, runTryIts, tryItProblems } from '../helpers/try-it.js';
import { startRig, type Rig } from './rig.js';
import { FAULT_ENV, FAULTS, runFaultRow } from './fault-rows.js';
import { listedProcesses } from './events.js';
import { KINDS } from './kinds.js';
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
      // Every process they started (children too) told each of its changes to the subscription, once, in order.
      const listed = await listedProcesses(rig.api);
      const events = await rig.events.check(listed, { since: began });
      const kinds = [...new Set(listed.map((p) => p.kind))].sort();
      t.diagnostic(`events of ${listed.length} processes of ${kinds.length} kinds: ${events.losses} incomplete, ${events.repeats} repeated`);
      assert.deepEqual(events.findings, []);
      assert.deepEqual(events.kindsWithout, []);
      assert.equal(events.repeats, 0);
    } catch (err) {
      failed = true;
      throw err;
    }
  });

  for (const fault of FAULTS) {
    void test(fault.name, async (t) => {
      try {
        const row = await runFaultRow(rig, fault, { perKind: PER_KIND });
        rows.push(row);
        t.diagnostic(`events of ${row.eventProcesses} processes checked; ${row.deliveriesCut} deliveries cut on their way by the fault`);
        assert.deepEqual(row.findings, []);
        assert.deepEqual([row.completed, row.duplicates, row.losses, row.eventLosses], [row.processes, 0, 0, 0]);
        // Every kind told its events.
        assert.deepEqual(
          row.eventKinds,
          KINDS.map((k) => k.kind),
        );
        if (fault.eventRepeats === 'cut') {
          // The kill met deliveries on their way, and each came again (a finding otherwise): at least once.
          assert.ok((row.deliveriesCut ?? 0) >= 1, 'the kill cut a delivery on its way');
          assert.ok((row.eventRepeats ?? 0) >= 1);
        } else if (!fault.eventRepeats) assert.equal(row.eventRepeats, 0, 'nothing sent twice where nothing died mid-delivery');
      } catch (err) {
        failed = true;
        throw err;
      }
    });
  }
});
