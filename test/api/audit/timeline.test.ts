// GET /v1/processes/{id}/timeline: a verification driven through the API (callbacks, duplicate deliveries,
// a wrong and a right code) told back as its timeline: callbacks named with their event IDs, the duplicate
// marked, caller actions with the key ID (never the key), phone numbers masked unless an allowed key asks,
// CSV that parses back to the same rows, paging that returns everything once; a template process's
// continue-as-new runs joined in order; and the list's new filters.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { keyIdOf } from '../../../api/plugins/actor.js';
import { useHarness, TEST_API_KEY, uniqueName } from '../../helpers/harness.js';
import { reviewerEvent, startApprovedTemplate, waitUntil } from '../../helpers/provisioning.js';
import { freshNumber, messageFor, platformStarts, postCallback, report, startVerification } from '../../helpers/verification.js';
import { parseCsv } from '../../helpers/audit-csv.js';

const AUDITOR_KEY = 'auditor-key-fedcba9876543210';

interface Entry {
  at: string;
  runId: string;
  eventId: number;
  kind: string;
  summary: string;
  details: Record<string, unknown>;
}
interface Page {
  processId: string;
  entries: Entry[];
  nextPageToken: string;
}

describe('process timeline', () => {
  const h = useHarness({
    env: {
      RELAYFLOW_API_KEYS: `${TEST_API_KEY},${AUDITOR_KEY}`,
      RELAYFLOW_AUDIT_UNMASK_KEY_IDS: keyIdOf(AUDITOR_KEY),
      RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS: '60000',
    },
    sandbox: { provisioningReviewer: { templates: { outcome: 'approve', delayMs: 100 } } },
  });

  const timelineUrl = (id: string, q = '') => `/v1/processes/${encodeURIComponent(id)}/timeline${q}`;
  async function timeline(id: string, q = '', key = TEST_API_KEY): Promise<{ page: Page; body: string }> {
    const res = await h.api({ method: 'GET', url: timelineUrl(id, q), headers: { authorization: `Bearer ${key}` } });
    assert.equal(res.statusCode, 200, res.body);
    return { page: res.json(), body: res.body };
  }
  /** Every entry, page by page. */
  async function allPages(id: string, pageSize: number): Promise<{ entries: Entry[]; pages: number }> {
    const entries: Entry[] = [];
    let token = '';
    let pages = 0;
    do {
      const { page } = await timeline(id, `?pageSize=${pageSize}${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`);
      assert.ok(page.entries.length <= pageSize);
      entries.push(...page.entries);
      token = page.nextPageToken;
      pages++;
    } while (token && pages < 200);
    return { entries, pages };
  }

  /** The event ID relayflow gives a verification callback (api/callbacks/verification.ts). */
  const eventIdOf = (kind: string, b: { id: string; status?: string; reason?: string; smsResult?: string }) =>
    createHash('sha256')
      .update(JSON.stringify([kind, b.id, b.status ?? '', b.reason ?? '', b.smsResult ?? '']))
      .digest('base64url');

  /** The SMS receipts the sandbox delivered for a platform verification, once there is one. */
  async function waitForSandboxReceipts(verificationId: string): Promise<{ id: string; smsResult: string }[]> {
    for (let i = 0; i < 100; i++) {
      const res = await fetch(`${h.sandbox.url}/_sandbox/callbacks?area=verification`);
      const { callbacks } = (await res.json()) as { callbacks: { outcome: string; body: { id?: string; smsResult?: string } }[] };
      const receipts = callbacks
        .filter((c) => c.outcome === 'delivered' && c.body.id === verificationId && c.body.smsResult)
        .map((c) => c.body as { id: string; smsResult: string });
      if (receipts.length) return receipts;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`the sandbox delivered no receipt for ${verificationId}`);
  }

  test('a verification: callbacks (duplicate marked), caller actions by key ID, masking, CSV and paging', async () => {
    const identity = freshNumber();
    const s = await startVerification(h, { identity, method: 'sms', reference: `audit-${Date.now()}` });
    const verificationId = s.current!.verificationId;
    const sms = await messageFor(h, identity, verificationId);
    // A receipt, delivered twice (the platform's retry after a lost acknowledgement): a Successful one is kept in the
    // store once and carried to the process by a later message.
    const custom = (await platformStarts(h, identity))[0]!.custom!;
    const receipt = {
      event: 'VerificationSmsDeliveredEvent',
      id: verificationId,
      method: 'sms',
      identity: { type: 'number', endpoint: identity },
      reference: 'r',
      custom,
      smsResult: 'Successful',
    };
    assert.equal((await postCallback(h, receipt)).status, 200);
    assert.equal((await postCallback(h, receipt)).status, 200);
    // A Failed one is signalled at once: one of a verification the process no longer waits on, delivered twice. The
    // intake drops the repeat; one that comes once the intake has forgotten it (its row swept after a day) reaches the
    // process, which marks it.
    const stale = { ...receipt, id: 'V-EARLIER-SEND', smsResult: 'Failed' };
    assert.equal((await postCallback(h, stale)).status, 200);
    assert.deepEqual(await (await postCallback(h, stale)).json(), { duplicate: true });
    await h.store.sql.query(`DELETE FROM relayflow_seen_callbacks WHERE intake = 'verification' AND event_id = $1`, [eventIdOf('sms-delivered', stale)]);
    assert.equal((await postCallback(h, stale)).status, 200);
    // The sandbox's own receipt too, before the process ends (a callback after the end is not the process's).
    const sandboxReceipts = await waitForSandboxReceipts(verificationId);
    const wrong = sms.code === '0000' ? '1111' : '0000';
    assert.notEqual((await report(h, s.processId, wrong)).statusCode, 500);
    const right = await report(h, s.processId, sms.code!);
    assert.equal(right.statusCode, 200, right.body);
    await h.waitForState(s.processId, 'SUCCESSFUL');

    const { page, body } = await timeline(s.processId, '?pageSize=500');
    assert.equal(page.nextPageToken, '');
    const { entries } = page;
    const kinds = entries.map((e) => e.kind);
    assert.equal(kinds[0], 'started');
    assert.equal(kinds.at(-1), 'completed');
    assert.ok(kinds.includes('platform call'), 'platform calls are told');

    // Every callback the process received is named, with its event ID; the second copy is marked.
    const callbacks = entries.filter((e) => e.kind === 'callback');
    const signalled = callbacks.filter((e) => e.details.signal === 'platformEvent' && (e.details.payload as { kind?: string })?.kind === 'sms-delivered');
    assert.equal(signalled.length, 2, JSON.stringify(callbacks, null, 1));
    const mine = eventIdOf('sms-delivered', receipt);
    const staleId = eventIdOf('sms-delivered', stale);
    // The Successful receipt (the sandbox's is the same event) is told once, carried by a message: the repeat was
    // dropped when it came.
    const carried = callbacks.filter((e) => e.details.receipt === 'sms-delivered');
    assert.deepEqual(
      carried.map((e) => e.details.eventId),
      [mine],
      JSON.stringify(callbacks, null, 1),
    );
    const told = new Set(callbacks.map((e) => e.details.eventId));
    for (const r of sandboxReceipts) assert.ok(told.has(eventIdOf('sms-delivered', r)), `the sandbox's ${JSON.stringify(r)} is told`);
    assert.ok(told.has(mine));
    // Whatever arrived first with an event ID is the delivery; every later copy is marked a duplicate.
    const byId = new Map<unknown, Entry[]>();
    for (const e of callbacks) byId.set(e.details.eventId, [...(byId.get(e.details.eventId) ?? []), e]);
    for (const copies of byId.values())
      assert.deepEqual(
        copies.map((e) => e.details.duplicate),
        copies.map((_, i) => i > 0),
      );
    assert.ok(byId.get(staleId)!.length >= 2);
    assert.match(byId.get(staleId)![1]!.summary, /duplicate/);
    assert.ok(
      callbacks.every((e) => e.details.actor === 'platform'),
      'callbacks come from the platform',
    );

    // Caller actions carry the test key's ID, never the key.
    const keyId = keyIdOf(TEST_API_KEY);
    const actions = entries.filter((e) => e.kind === 'caller action');
    const reports = actions.filter((e) => e.details.update === 'reportCode');
    assert.equal(reports.length, 2, JSON.stringify(actions, null, 1));
    assert.ok(reports.every((e) => e.details.actor === keyId && e.details.operationId && e.details.outcome === 'completed'));
    assert.ok(actions.some((e) => e.details.update === 'verificationStarted' && e.details.actor === keyId));
    assert.equal(entries[0]!.details.actor, keyId, 'the start names who started');
    assert.ok(!body.includes(TEST_API_KEY), 'the key itself is nowhere');

    // State changes, with reasons from the process where it gave one. A verification is listed PENDING from its
    // start (its STARTING lasts only until the platform accepts, inside the start's answer).
    const states = entries.filter((e) => e.kind === 'state').map((e) => e.details.state);
    assert.deepEqual([states[0], states.at(-1)], ['PENDING', 'SUCCESSFUL']);

    // Phone numbers: masked by default; unmasked only for an allowed key.
    const digits = identity.slice(1);
    assert.ok(!body.includes(digits), 'the number is masked');
    assert.match(body, /\*\*\*/);
    const forbidden = await h.api({ method: 'GET', url: timelineUrl(s.processId, '?unmasked=true') });
    assert.equal(forbidden.statusCode, 403);
    assert.equal(forbidden.json().error.details[0].field, 'query.unmasked');
    const unmasked = await timeline(s.processId, '?unmasked=true&pageSize=500', AUDITOR_KEY);
    assert.ok(unmasked.body.includes(digits), 'the allowed key sees the number');
    assert.ok(!unmasked.body.includes(AUDITOR_KEY));

    // CSV parses back to the same rows; Accept: text/csv asks for it too.
    const csv = await h.api({ method: 'GET', url: timelineUrl(s.processId, '?format=csv&pageSize=500') });
    assert.equal(csv.statusCode, 200);
    assert.equal(csv.headers['content-type'], 'text/csv; charset=utf-8');
    const rows = parseCsv(csv.body);
    assert.deepEqual(rows[0], ['at', 'runId', 'eventId', 'kind', 'summary', 'details']);
    assert.deepEqual(
      rows.slice(1),
      entries.map((e) => [e.at, e.runId, String(e.eventId), e.kind, e.summary, JSON.stringify(e.details)]),
    );
    assert.ok(
      rows.slice(1).some((r) => /[",\n]/.test(r[5]!)),
      'quoting was exercised',
    );
    const accepted = await h.api({ method: 'GET', url: timelineUrl(s.processId, '?pageSize=500'), headers: { accept: 'text/csv' } });
    assert.equal(accepted.body, csv.body);

    // Paging returns everything exactly once, in order.
    const paged = await allPages(s.processId, 3);
    assert.deepEqual(paged.entries, entries);
    assert.equal(paged.pages, Math.ceil(entries.length / 3));
  });

  test('page tokens of another process or made up are a 400; unknown processes are a 404', async () => {
    const a = await startVerification(h, { identity: freshNumber(), method: 'sms' });
    const b = await startVerification(h, { identity: freshNumber(), method: 'sms' });
    const { page } = await timeline(a.processId, '?pageSize=1');
    assert.ok(page.nextPageToken);
    for (const token of [page.nextPageToken.slice(0, -2), 'made-up']) {
      const res = await h.api({ method: 'GET', url: timelineUrl(a.processId, `?pageToken=${encodeURIComponent(token)}`) });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().error.details[0].field, 'query.pageToken');
    }
    const foreign = await h.api({ method: 'GET', url: timelineUrl(b.processId, `?pageToken=${encodeURIComponent(page.nextPageToken)}`) });
    assert.equal(foreign.statusCode, 400);
    assert.equal((await h.api({ method: 'GET', url: timelineUrl('verification:01J00000000000000000000000') })).statusCode, 404);
    assert.equal((await h.api({ method: 'GET', url: timelineUrl('no-such-kind:x') })).statusCode, 404);
  });

  test('continue-as-new runs are joined in order', async () => {
    const { handle, processId, templateId } = await startApprovedTemplate(h, uniqueName('audit').replace(/-/g, '_'));
    const scores = ['QUALITY_SCORE_GREEN', 'QUALITY_SCORE_YELLOW', 'QUALITY_SCORE_RED', 'QUALITY_SCORE_YELLOW', 'QUALITY_SCORE_GREEN', 'QUALITY_SCORE_RED'];
    for (const qualityScore of scores) {
      await reviewerEvent(h, { resourceType: 'TEMPLATE', resourceId: templateId, trigger: 'CHATA_TEMPLATE_QUALITY_SCORE_UPDATED', details: { qualityScore } });
      await waitUntil(h, processId, (v) => v.details.qualityScore === qualityScore, `quality ${qualityScore}`);
    }
    await waitUntil(h, processId, (v) => (v as unknown as { execution: { runId: string } }).execution.runId !== handle.firstExecutionRunId, 'a new run');

    const { entries } = await allPages(processId, 500);
    const runIds = [...new Set(entries.map((e) => e.runId))];
    assert.ok(runIds.length >= 2, 'more than one run');
    assert.equal(runIds[0], handle.firstExecutionRunId, 'the first run first');
    // Runs are contiguous, each ends by continuing as new into the next, and time never goes back.
    for (let i = 0; i < runIds.length - 1; i++) {
      const last = entries.filter((e) => e.runId === runIds[i]).at(-1)!;
      assert.equal(last.kind, 'continued as new');
      assert.equal(last.details.newRunId, runIds[i + 1]);
    }
    assert.deepEqual(
      entries.map((e) => e.runId),
      [...entries.map((e) => e.runId)].sort((x, y) => runIds.indexOf(x) - runIds.indexOf(y)),
    );
    // Runs follow each other in time. Entries are in history order: a platform call is placed where its activity
    // completed but dated when it started, so a callback that arrived while it ran may be dated before it.
    for (let i = 0; i < runIds.length - 1; i++) {
      const lastOfRun = entries.filter((e) => e.runId === runIds[i]).at(-1)!;
      const firstOfNext = entries.find((e) => e.runId === runIds[i + 1])!;
      assert.ok(firstOfNext.at >= lastOfRun.at, `run ${i + 2} starts after run ${i + 1} ends`);
    }
    const callbacks = entries.filter((e) => e.kind === 'callback');
    assert.ok(callbacks.length >= scores.length, 'every webhook event is told');
    assert.ok(
      callbacks.every((e) => e.details.eventId),
      'with its event ID',
    );
  });

  test('GET /v1/processes filters by start time and business key; quotes cannot escape the literal', async () => {
    const s = await startVerification(h, { identity: freshNumber(), method: 'sms' });
    const list = async (q: string) => {
      const res = await h.api({ method: 'GET', url: `/v1/processes?${q}` });
      assert.equal(res.statusCode, 200, res.body);
      return (res.json() as { processes: { processId: string }[] }).processes.map((p) => p.processId);
    };
    const key = s.processId.slice('verification:'.length);
    let found: string[] = [];
    for (let i = 0; i < 50 && !found.includes(s.processId); i++) {
      found = await list(`kind=verification&key=${key}`);
      if (!found.includes(s.processId)) await new Promise((r) => setTimeout(r, 100));
    }
    assert.deepEqual(found, [s.processId]);
    assert.deepEqual(await list(`key=${encodeURIComponent(s.processId)}`), [s.processId]);
    const past = new Date(Date.now() - 3_600_000).toISOString();
    const future = new Date(Date.now() + 3_600_000).toISOString();
    assert.ok((await list(`kind=verification&startedAfter=${past}&startedBefore=${future}`)).includes(s.processId));
    assert.deepEqual(await list(`kind=verification&key=${key}&startedAfter=${future}`), []);
    assert.deepEqual(await list(`key=${encodeURIComponent("x' OR WorkflowId != '")}`), []);
    assert.deepEqual(await list(`key=${encodeURIComponent('x\\')}`), []);
  });
});
