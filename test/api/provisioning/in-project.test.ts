// Senders and templates started on their own routes in a customer's subproject (`projectId`), end to end against the
// sandbox on the real Temporal dev server: the resource is made in the subproject, not the platform project, and
// its process says so; a customer's (tenant) key may name only one of its own customer's subprojects, and is refused
// (422 naming body.projectId, nothing started) for an unknown one or one that is not its customer's.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { InjectOptions } from 'fastify';
import { createPlatformClients } from '../../../platform/index.js';
import { useHarness, uniqueName } from '../../helpers/harness.js';
import { readOr404, setReviewer, start, templateBody, waitUntil } from '../../helpers/provisioning.js';

const KEY = 'in-project-acme-key-0123456789abcdef';
const keysFile = join(mkdtempSync(join(tmpdir(), 'relayflow-in-project-')), 'api-keys');
writeFileSync(keysFile, `${KEY} operator tenant=acme\n`);

const templateName = (prefix: string) => uniqueName(prefix).replace(/-/g, '_');

describe('a sender or template started in a subproject', () => {
  // Polling only once a minute: the webhooks carry every change.
  const h = useHarness({ env: { RELAYFLOW_API_KEYS_FILE: keysFile, RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS: '60000' } });
  const as = (key: string, opts: InjectOptions) => h.app.inject({ ...opts, headers: { ...opts.headers, authorization: `Bearer ${key}` } });
  /** A READY subproject started with `key` (the harness's own key when absent): its project ID. */
  async function subproject(key?: string): Promise<string> {
    const opts: InjectOptions = { method: 'POST', url: '/v1/subprojects', payload: { displayName: uniqueName('in-project') } };
    const res = key ? await as(key, opts) : await h.api(opts);
    assert.equal(res.statusCode, 202, res.body);
    const ready = await waitUntil(h, res.json().processId, (v) => v.state === 'READY', 'the subproject to be usable');
    return (ready.details as unknown as { subprojectId: string }).subprojectId;
  }

  test("a template named in a subproject is made there, with the platform project's key; its process says where", async () => {
    await setReviewer(h, { templates: { outcome: 'approve', delayMs: 200 } });
    const projectId = await subproject();
    const id = await start(h, '/v1/templates/chatb', templateBody(templateName('in_sub'), { projectId }));
    const approved = await waitUntil(h, id, (v) => v.state === 'APPROVED', 'APPROVED');
    const templateId = approved.details.templateId as string;
    const parent = createPlatformClients(h.config.platform).provisioning;
    assert.equal((await parent.forProject(projectId).chatbTemplates.get(templateId)).state, 'APPROVED');
    assert.equal(await readOr404(() => parent.chatbTemplates.get(templateId)), 404, 'not in the platform project');
    assert.equal((approved.details as { projectId?: string }).projectId, projectId);
  });

  test("a customer's key names only one of its customer's subprojects, or is refused naming body.projectId", async () => {
    const refused = async (url: string, body: Record<string, unknown>, rule: string) => {
      const before = (await h.api({ method: 'GET', url: '/v1/processes?kind=chatb-template&pageSize=100' })).json().processes.length;
      const res = await as(KEY, { method: 'POST', url, payload: body });
      assert.equal(res.statusCode, 422, res.body);
      assert.deepEqual(
        res.json().error.details.map((d: { field: string; rule: string }) => [d.field, d.rule]),
        [['body.projectId', rule]],
      );
      const after = (await h.api({ method: 'GET', url: '/v1/processes?kind=chatb-template&pageSize=100' })).json().processes.length;
      assert.equal(after, before, 'nothing started');
    };
    const notTheirs = await subproject(); // the harness's key: a subproject of no customer
    await refused('/v1/templates/chatb', templateBody(templateName('unknown'), { projectId: 'no-such-project' }), 'not_customer_project');
    await refused('/v1/templates/chatb', templateBody(templateName('other'), { projectId: notTheirs }), 'not_customer_project');
    await refused('/v1/senders/chatb', { displayName: uniqueName('Acme'), categoryCode: 'RETAIL', projectId: notTheirs }, 'not_customer_project');

    const own = await subproject(KEY);
    const res = await as(KEY, { method: 'POST', url: '/v1/templates/chatb', payload: templateBody(templateName('own'), { projectId: own }) });
    assert.equal(res.statusCode, 202, res.body);
    const started = await as(KEY, { method: 'GET', url: `/v1/processes/${encodeURIComponent(res.json().processId)}` });
    assert.equal(started.json().tenant, 'acme');
  });
});
