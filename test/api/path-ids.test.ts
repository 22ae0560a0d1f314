// Every ID in a path states its length limit (maxLength in the OpenAPI document), and one character over it is a
// 400 naming the field and the rule before anything is asked of Temporal or the platform. Walks the document, so
// every family's routes are covered as they are: process IDs, call and conference IDs, policy IDs, step names, ...
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { workflowIds } from '../../processes/kinds.js';
import { StartTemplate } from '../../processes/provisioning/routes/schemas.js';
import { PROCESS_ID_MAX_LENGTH } from '../../api/schemas.js';
import { offlineApp, type OfflineApp } from '../helpers/offline-app.js';

interface Param {
  name: string;
  in: string;
  schema: { type?: string; enum?: string[]; maxLength?: number; format?: string; pattern?: string };
}
interface Operation {
  parameters?: Param[];
}

/** A value the parameter takes, for the other parameters of a path under test. */
function valid(p: Param): string {
  if (p.schema.enum) return p.schema.enum[0]!;
  if (p.schema.format === 'e164' || p.schema.pattern?.includes('default')) return '+46700000001';
  return 'a';
}

describe('IDs in paths', () => {
  let offline: OfflineApp;
  let operations: Array<{ method: string; path: string; params: Param[] }>;
  before(async () => {
    // Nothing may reach the platform: any request to it is counted and refused.
    offline = await offlineApp((_req, res) => res.writeHead(500).end());
    const doc = (await offline.api('GET', '/docs/json')).json() as { paths: Record<string, Record<string, Operation>> };
    operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, params: (op.parameters ?? []).filter((p) => p.in === 'path') })),
    );
  });
  after(() => offline?.close());

  test('every path parameter that is not a closed list states its maxLength in the document', () => {
    const open = operations.flatMap((o) => o.params.filter((p) => !p.schema.enum).map((p) => ({ ...o, param: p })));
    assert.ok(open.length >= 40, `found ${open.length}`);
    const unlimited = open.filter((o) => typeof o.param.schema.maxLength !== 'number').map((o) => `${o.method} ${o.path} ${o.param.name}`);
    assert.deepEqual(unlimited, []);
  });

  test('one character over the limit is a 400 naming path.<name> and maxLength, and reaches nothing', async () => {
    let checked = 0;
    for (const { method, path, params } of operations) {
      for (const p of params.filter((q) => q.schema.maxLength !== undefined)) {
        const url = params.reduce((u, q) => u.replace(`{${q.name}}`, q === p ? 'a'.repeat(p.schema.maxLength! + 1) : encodeURIComponent(valid(q))), path);
        const res = await offline.api(method, url);
        assert.equal(res.statusCode, 400, `${method} ${path} ${p.name}: ${res.body}`);
        const details = res.json().error.details as Array<{ field: string; rule: string }>;
        assert.ok(
          details.some((d) => d.field === `path.${p.name}` && d.rule === 'maxLength'),
          `${method} ${path}: ${res.body}`,
        );
        checked += 1;
      }
    }
    assert.ok(checked >= 40, `checked ${checked}`);
    assert.equal(offline.platformRequests(), 0);
  });

  test("a call ID as long as the sandbox's router refuses (101) is a 400 of ours, not its 414 as a 422", async () => {
    const res = await offline.api('GET', `/v1/voice/calls/${'c'.repeat(101)}`);
    assert.equal(res.statusCode, 400, res.body);
    assert.match(res.json().error.message, /path\.callId: must NOT have more than 64 characters/);
    assert.equal(offline.platformRequests(), 0);
  });

  test('the process ID limit holds the longest ID relayflow builds', () => {
    const project = 'p'.repeat(100);
    const key = 'k'.repeat(64);
    const ulid = '0'.repeat(26);
    const name = 'n'.repeat((StartTemplate.properties.name as unknown as { maxLength: number }).maxLength);
    const longest = [
      workflowIds['chata-template'](project, name, 'abc_ABCD'),
      workflowIds['chatb-template'](project, name, 'abc_ABCD'),
      workflowIds.subproject(project, 'd'.repeat(100)),
      workflowIds['rcs-sender'](project, 'd'.repeat(100)),
      workflowIds['chata-sender'](project, `pnid-${'9'.repeat(64)}`),
      workflowIds['chatb-sender'](project, 'd'.repeat(64)),
      workflowIds['senderid-registration'](project, key),
      workflowIds['conversation-campaign'](project, key),
      workflowIds['mms-campaign'](project, key),
      workflowIds['bundle-provisioning'](project, key),
      workflowIds.onboarding(project, key),
      workflowIds['voice-callout'](key),
      workflowIds['voice-incoming']('c'.repeat(64)),
      workflowIds.verification(ulid),
    ];
    for (const id of longest) assert.ok(id.length <= PROCESS_ID_MAX_LENGTH, `${id.slice(0, 40)}...: ${id.length}`);
    assert.ok(Math.max(...longest.map((id) => id.length)) > PROCESS_ID_MAX_LENGTH - 10, 'the limit is the longest ID, not more');
  });
});
