// A customer's audit stays its own: processes of two customers' tenant keys (and one of a key of every customer)
// close and are archived with their customer; each tenant key reads the timeline (JSON and CSV) of its own processes
// only, from Temporal and, once their histories are deleted, from the archive, lists and exports its own runs only,
// and gets for another's the 404 of an unknown ID. A key of every customer reads and exports all, or one customer's.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { InjectOptions } from 'fastify';
import { AesGcmPayloadCodec } from '../../../common/codec.js';
import { AuditArchive } from '../../../store/index.js';
import { TEST_API_KEY, uniqueName, useHarness } from '../../helpers/harness.js';
import { freshNumber, messageFor, report } from '../../helpers/verification.js';

const KEY_A = 'tenant-a-audit-key-0123456789';
const KEY_B = 'tenant-b-audit-key-0123456789';
const keysFile = join(mkdtempSync(join(tmpdir(), 'relayflow-tenant-audit-')), 'api-keys');
writeFileSync(keysFile, `${KEY_A} operator tenant=a\n${KEY_B} operator tenant=b\n`);

async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let wait = 50; Date.now() < deadline; wait = Math.min(wait * 2, 500)) {
    const v = await fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, wait));
  }
  throw new Error(`timed out waiting for ${what}`);
}

type Line = { processId: string; runId: string; tenant?: string };

describe("a customer's audit", () => {
  const h = useHarness({ env: { RELAYFLOW_API_KEYS_FILE: keysFile, RELAYFLOW_AUDIT_ARCHIVE_INTERVAL_MS: '200' } });
  const as = (key: string, opts: InjectOptions) => h.app.inject({ ...opts, headers: { ...opts.headers, authorization: `Bearer ${key}` } });
  const timeline = (processId: string) => `/v1/processes/${encodeURIComponent(processId)}/timeline?pageSize=500`;

  /** A verification started by `key` (its customer's), closed SUCCESSFUL by the key of every customer. */
  async function closedVerification(key: string): Promise<{ processId: string; runId: string }> {
    const identity = freshNumber();
    const res = await as(key, { method: 'POST', url: '/v1/verifications', payload: { identity, method: 'sms' } });
    assert.equal(res.statusCode, 201, res.body);
    const { processId, current } = res.json() as { processId: string; current: { verificationId: string } };
    const sms = await messageFor(h, identity, current.verificationId);
    assert.equal((await report(h, processId, sms.code!)).statusCode, 200);
    await h.waitForState(processId, 'SUCCESSFUL');
    return { processId, runId: (await h.client.workflow.getHandle(processId).describe()).runId };
  }

  /** The timeline as `key` reads it: JSON and CSV answer alike (status, and source when 200). */
  async function read(key: string, processId: string): Promise<{ status: number; source?: string; code?: string }> {
    const json = await as(key, { method: 'GET', url: timeline(processId) });
    const csv = await as(key, { method: 'GET', url: timeline(processId), headers: { accept: 'text/csv' } });
    assert.equal(csv.statusCode, json.statusCode, csv.body);
    if (json.statusCode !== 200) return { status: json.statusCode, code: (json.json() as { error: { code: string } }).error.code };
    const { source } = json.json() as { source: string };
    assert.equal(csv.headers['x-timeline-source'], source);
    return { status: 200, source };
  }

  async function exported(key: string, query = ''): Promise<Line[]> {
    const from = new Date(Date.now() - 10 * 60_000).toISOString();
    const to = new Date(Date.now() + 60_000).toISOString();
    const res = await as(key, { method: 'GET', url: `/v1/audit/export?from=${from}&to=${to}&kind=verification${query}` });
    assert.equal(res.statusCode, 200, res.body);
    return res.body
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Line);
  }

  test('each tenant key reads, lists and exports its own customer only, from Temporal and from the archive', async () => {
    const [a, b, none] = await Promise.all([closedVerification(KEY_A), closedVerification(KEY_B), closedVerification(TEST_API_KEY)]);
    const unknown = `verification:${uniqueName('never-started')}`;
    const notFound = await read(KEY_A, unknown);
    assert.equal(notFound.status, 404);

    // From Temporal: the timeline's describe answers another customer's process as unknown.
    assert.deepEqual(await read(KEY_A, a.processId), { status: 200, source: 'temporal' });
    assert.deepEqual(await read(KEY_B, a.processId), notFound, "another customer's, as an unknown ID");
    assert.deepEqual(await read(KEY_A, b.processId), notFound);
    assert.deepEqual(await read(KEY_A, none.processId), notFound, "a process of no customer is not a tenant key's");
    assert.deepEqual(await read(TEST_API_KEY, b.processId), { status: 200, source: 'temporal' });

    // The archiver keeps each run's customer (none for a process of no customer).
    const tenants = await until('the three runs archived', async () => {
      const rows = await h.store.sql.query<{ run_id: string; tenant: string | null }>(
        'SELECT run_id, tenant FROM relayflow_audit_archive WHERE run_id = ANY($1::text[])',
        [[a.runId, b.runId, none.runId]],
      );
      return rows.length === 3 ? new Map(rows.map((r) => [r.run_id, r.tenant])) : undefined;
    });
    assert.deepEqual([tenants.get(a.runId), tenants.get(b.runId), tenants.get(none.runId)], ['a', 'b', null]);

    // The export: a tenant key's own runs only, whatever it asks; a key of every customer all, or one customer's.
    const ofA = await exported(KEY_A);
    assert.ok(ofA.some((l) => l.runId === a.runId));
    assert.ok(
      ofA.every((l) => l.tenant === 'a'),
      JSON.stringify(ofA.map((l) => l.tenant)),
    );
    assert.deepEqual(
      (await exported(KEY_A, '&tenant=b')).map((l) => l.runId),
      ofA.map((l) => l.runId),
      'asking for another customer changes nothing',
    );
    const ofB = await exported(KEY_B);
    assert.deepEqual(
      ofB.map((l) => [l.runId, l.tenant]),
      [[b.runId, 'b']],
    );
    const all = (await exported(TEST_API_KEY)).map((l) => l.runId);
    for (const r of [a, b, none]) assert.ok(all.includes(r.runId), `${r.processId} exported to the key of every customer`);
    assert.deepEqual(
      (await exported(TEST_API_KEY, '&tenant=b')).map((l) => l.runId),
      [b.runId],
    );
    const badTenant = await as(TEST_API_KEY, { method: 'GET', url: `/v1/audit/export?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z&tenant=no%20such` });
    assert.equal(badTenant.statusCode, 400, badTenant.body);
    assert.match(badTenant.body, /tenant/);

    // Histories deleted from Temporal: the timelines and the list come from the archive, still kept to their customer.
    for (const r of [a, b, none]) {
      await h.client.workflowService.deleteWorkflowExecution({
        namespace: h.client.options.namespace,
        workflowExecution: { workflowId: r.processId, runId: r.runId },
      });
    }
    for (const r of [a, b, none]) {
      await until(`${r.processId} deleted`, () =>
        h.client.workflow
          .getHandle(r.processId)
          .describe()
          .then(
            () => undefined,
            (err: unknown) => (err instanceof WorkflowNotFoundError ? true : Promise.reject(err)),
          ),
      );
    }
    assert.deepEqual(await read(KEY_A, a.processId), { status: 200, source: 'archive' });
    assert.deepEqual(await read(KEY_B, b.processId), { status: 200, source: 'archive' });
    assert.deepEqual(await read(KEY_B, a.processId), notFound, "another customer's archived process, as an unknown ID");
    assert.deepEqual(await read(KEY_A, b.processId), notFound);
    assert.deepEqual(await read(KEY_A, none.processId), notFound, "an archived run of no customer is not a tenant key's");
    assert.deepEqual(await read(TEST_API_KEY, a.processId), { status: 200, source: 'archive' });

    // The list, once visibility has dropped them: each key finds its own archived run, never the other's.
    const listed = async (key: string, processId: string) => {
      const res = await as(key, { method: 'GET', url: `/v1/processes?kind=verification&key=${encodeURIComponent(processId)}` });
      assert.equal(res.statusCode, 200, res.body);
      return (res.json() as { processes: { processId: string; source: string; tenant?: string }[] }).processes;
    };
    for (const r of [a, b, none]) {
      await until(`${r.processId} listed from the archive`, async () =>
        (await listed(TEST_API_KEY, r.processId))[0]?.source === 'archive' ? true : undefined,
      );
    }
    assert.deepEqual(
      (await listed(KEY_A, a.processId)).map((p) => [p.processId, p.source, p.tenant]),
      [[a.processId, 'archive', 'a']],
    );
    assert.deepEqual(await listed(KEY_A, b.processId), []);
    assert.deepEqual(await listed(KEY_B, a.processId), []);
    assert.deepEqual(await listed(KEY_B, none.processId), []);

    // The customer is in the chain's hash: a row moved to another customer is caught as edited.
    const archive = new AuditArchive(h.store.sql, new AesGcmPayloadCodec(h.config.codecKeys));
    assert.deepEqual(await archive.verify(a.processId), []);
    assert.deepEqual(await archive.verify(none.processId), [], 'a row of no customer hashes as before');
    await h.store.sql.query(`UPDATE relayflow_audit_archive SET tenant = 'b' WHERE run_id = $1`, [a.runId]);
    assert.deepEqual(await archive.verify(a.processId), [{ processId: a.processId, n: 1, problem: 'its content does not match its hash (edited)' }]);
  });
});
