// The audit archive on both drivers (PostgreSQL and embedded PGlite): a run is written once however often it is
// offered, racing writers of one process still make one chain, the sealed columns need the codec's key, an edited
// or removed row breaks the chain where verify() says, the export streams a time range in order, and the sweep
// takes old processes whole.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { ulid } from 'ulid';
import { AesGcmPayloadCodec } from '../../common/codec.js';
import { AuditArchive, type ArchivedRun, type CampaignStore } from '../../store/index.js';
import { storeDrivers } from '../helpers/store-drivers.js';

const key = { id: 'k1', key: randomBytes(32) };
const at = (m: number) => new Date(Date.UTC(2026, 10, 28, 12, m)).toISOString();

function run(processId: string, closedMinute: number, over: Partial<ArchivedRun> = {}): ArchivedRun {
  const runId = ulid();
  return {
    processId,
    runId,
    firstRunId: runId,
    kind: 'verification',
    state: 'VERIFIED',
    executionStatus: 'COMPLETED',
    startedAt: at(closedMinute - 1),
    closedAt: at(closedMinute),
    businessKey: processId.slice(processId.indexOf(':') + 1),
    summary: { lastChangeAt: at(closedMinute), reason: 'code entered by +447700900123' },
    timeline: { masked: [{ summary: 'to +***23' }], unmasked: [{ summary: 'to +447700900123' }] },
    ...over,
  };
}

describe('audit archive store', () => {
  const { drivers } = storeDrivers();

  for (const [name, openStore] of drivers) {
    describe(`audit archive (${name})`, () => {
      let store: CampaignStore;
      const open = async () => {
        store ??= await openStore();
        return new AuditArchive(store.sql, new AesGcmPayloadCodec([key]));
      };

      test('a run is written once; racing writers of one process make one unbroken chain', async () => {
        const archive = await open();
        const pid = `verification:${ulid()}`;
        const first = run(pid, 1);
        assert.equal(await archive.append(first), 'archived');
        assert.equal(await archive.append(first), 'there');
        const others = Array.from({ length: 6 }, (_, i) => run(pid, 2 + i));
        await Promise.all(others.map((r) => archive.append(r)));
        assert.deepEqual(await archive.verify(pid), []);
        assert.deepEqual([...(await archive.has([first.runId, 'nope']))], [first.runId]);
        const n = await store.sql.query<{ n: number }>('SELECT n FROM relayflow_audit_archive WHERE process_id = $1 ORDER BY n', [pid]);
        assert.deepEqual(
          n.map((r) => r.n),
          [1, 2, 3, 4, 5, 6, 7],
        );
      });

      test('what is personal is sealed: the bytes do not hold the phone number, and another key cannot open them', async () => {
        const archive = await open();
        const r = run(`verification:${ulid()}`, 10);
        await archive.append(r);
        const [row] = await store.sql.query<{ summary: Uint8Array; timeline: Uint8Array }>(
          'SELECT summary, timeline FROM relayflow_audit_archive WHERE run_id = $1',
          [r.runId],
        );
        for (const bytes of [row!.summary, row!.timeline]) assert.ok(!Buffer.from(bytes).toString('latin1').includes('447700900123'));
        const [back] = await archive.chainOf(r.processId);
        assert.deepEqual(back!.timeline, r.timeline);
        assert.equal(back!.summary.reason, r.summary.reason);
        const stranger = new AuditArchive(store.sql, new AesGcmPayloadCodec([{ id: 'k2', key: randomBytes(32) }]));
        await assert.rejects(stranger.chainOf(r.processId), /unknown encryption key id "k1"/);
      });

      test('an edited row, a forged hash or a removed row is caught by verify()', async () => {
        const archive = await open();
        const pid = `verification:${ulid()}`;
        const runs = [run(pid, 20), run(pid, 21), run(pid, 22)];
        for (const r of runs) await archive.append(r);
        assert.deepEqual(await archive.verify(pid), []);
        await store.sql.query(`UPDATE relayflow_audit_archive SET state = 'FAILED' WHERE run_id = $1`, [runs[1]!.runId]);
        assert.deepEqual(await archive.verify(pid), [{ processId: pid, n: 2, problem: 'its content does not match its hash (edited)' }]);
        // Forging the edited row's hash moves the break to the next row, which names the old one.
        const [edited] = await store.sql.query<{ hash: string }>('SELECT hash FROM relayflow_audit_archive WHERE run_id = $1', [runs[1]!.runId]);
        await store.sql.query(`UPDATE relayflow_audit_archive SET hash = $2 WHERE run_id = $1`, [runs[1]!.runId, 'f'.repeat(64)]);
        const forged = await archive.verify(pid);
        assert.ok(
          forged.some((p) => p.n === 3 && /does not name the hash/.test(p.problem)),
          JSON.stringify(forged),
        );
        await store.sql.query(`UPDATE relayflow_audit_archive SET hash = $2 WHERE run_id = $1`, [runs[1]!.runId, edited!.hash]);
        await store.sql.query(`DELETE FROM relayflow_audit_archive WHERE run_id = $1`, [runs[1]!.runId]);
        const removed = await archive.verify(pid);
        assert.ok(
          removed.some((p) => p.n === 3 && /row 2 is missing/.test(p.problem)),
          JSON.stringify(removed),
        );
      });

      test('the export streams one time range and kind, oldest first, past one batch', async () => {
        const archive = await open();
        const kind = `kind-${ulid()}`;
        const many = Array.from({ length: 260 }, (_, i) => run(`${kind}:${ulid()}`, 100 + (i % 40), { kind }));
        for (const r of many) await archive.append(r);
        await archive.append(run(`verification:${ulid()}`, 120));
        const got: ArchivedRun[] = [];
        for await (const r of archive.export({ from: at(105), to: at(140), kind })) got.push(r);
        const want = many.filter((r) => r.closedAt >= at(105) && r.closedAt < at(140));
        assert.equal(got.length, want.length);
        assert.deepEqual(new Set(got.map((r) => r.runId)), new Set(want.map((r) => r.runId)));
        assert.ok(got.every((r, i) => i === 0 || got[i - 1]!.closedAt <= r.closedAt));
        const page = await archive.list({ kind }, 10);
        assert.equal(page.runs.length, 10);
        assert.ok(page.more);
        const next = await archive.list({ kind }, 10, page.runs.at(-1));
        assert.ok(next.runs.every((r) => !page.runs.some((p) => p.runId === r.runId)));
      });

      test('the sweep takes a process whole once its newest run is older than the cutoff', async () => {
        const archive = await open();
        const old = `verification:${ulid()}`;
        const mixed = `verification:${ulid()}`;
        await archive.append(run(old, -600));
        await archive.append(run(old, -590));
        await archive.append(run(mixed, -600));
        await archive.append(run(mixed, 200));
        assert.ok((await archive.sweep(new Date(at(-500)))) >= 2);
        assert.equal((await archive.chainOf(old)).length, 0);
        assert.equal((await archive.chainOf(mixed)).length, 1, 'the newest chain of a kept process');
        assert.deepEqual(await archive.verify(mixed), []);
      });
    });
  }
});
