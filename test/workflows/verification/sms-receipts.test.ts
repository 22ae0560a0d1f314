// A Successful SMS receipt only needs recording: the callback intake keeps it in relayflow's store (no number in the row)
// and the next message the process gets anyway carries it, so it costs the process no signal and no workflow task of
// its own. A process that ends by its step's time reads it there once, so its audit still says the SMS was delivered.
// A repeated receipt is recorded once; a Failed one is still signalled at once and the chain falls back.
// Real Temporal, the sandbox (its own receipts, ~100 ms after each SMS), the store.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
// @temporalio/proto is CommonJS: in native ESM only its default export is reliable.
import proto from '@temporalio/proto';
import { processStatusQuery } from '../../../contracts/process-status.js';
import { useHarness, setSandboxVerificationConfig, type Harness } from '../../helpers/harness.js';
import { freshNumber, messageFor, platformStarts, postCallback, report, startVerification, statusOf } from '../../helpers/verification.js';

const { EventType } = proto.temporal.api.enums.v1;

interface Row {
  event_id: string;
  process_id: string;
  verification_id: string;
  sms_result: string;
  received_at: number;
  handed_at: number | null;
}
interface Entry {
  kind: string;
  summary: string;
  details: Record<string, unknown>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rowsOf = (h: Harness, processId: string) => h.store.sql.query<Row>('SELECT * FROM relayflow_sms_receipts WHERE process_id = $1', [processId]);

async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(50);
  }
}

/** The store holds the process's receipt (the sandbox's, ~100 ms after the SMS). */
const recorded = (h: Harness, processId: string) =>
  until('the receipt in the store', 10_000, async () => ((await rowsOf(h, processId)).length ? rowsOf(h, processId) : undefined));

/** The run's history events by short name, with the signal each names. */
async function eventsOf(h: Harness, processId: string): Promise<string[]> {
  const { events } = await h.client.workflow.getHandle(processId).fetchHistory();
  return (events ?? []).map((e) => {
    const name = EventType[e.eventType ?? 0]!.replace('EVENT_TYPE_', '');
    const signal = e.workflowExecutionSignaledEventAttributes?.signalName;
    return signal ? `${name}:${signal}` : name;
  });
}

async function timeline(h: Harness, processId: string): Promise<Entry[]> {
  const res = await h.api({ method: 'GET', url: `/v1/processes/${encodeURIComponent(processId)}/timeline?pageSize=500` });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as { entries: Entry[] }).entries;
}
const receiptEntries = (entries: Entry[]) => entries.filter((e) => e.details.receipt === 'sms-delivered');
const signalledReceipts = (entries: Entry[]) =>
  entries.filter((e) => e.details.signal === 'platformEvent' && (e.details.payload as { kind?: string } | undefined)?.kind === 'sms-delivered');

/** The process's own status (its query, not the API's view, which also shows a receipt the process has not had yet). */
async function ownDetails(h: Harness, processId: string): Promise<Record<string, unknown>> {
  return (await h.client.workflow.getHandle(processId).query(processStatusQuery)).details as Record<string, unknown>;
}

async function closedRun(h: Harness, processId: string): Promise<void> {
  await until(`${processId} closed`, 30_000, async () =>
    (await h.client.workflow.getHandle(processId).describe()).status.name !== 'RUNNING' ? true : undefined,
  );
}

describe('SMS receipts kept in the store until a message carries them', () => {
  const h = useHarness();

  test('a receipt before the report: recorded without the number, carried by the report, no signal of its own', async () => {
    const identity = freshNumber();
    const s = await startVerification(h, { identity, method: 'sms' });
    const verificationId = s.current!.verificationId;
    const sms = await messageFor(h, identity, verificationId);
    const [row] = await recorded(h, s.processId);
    assert.equal(row!.verification_id, verificationId);
    assert.equal(row!.sms_result, 'Successful');
    assert.equal(row!.handed_at, null);
    const digits = identity.slice(1);
    assert.ok(!JSON.stringify(row).includes(digits) && !JSON.stringify(row).includes(digits.slice(2)), `no number in the row: ${JSON.stringify(row)}`);

    // The API's view says the SMS was delivered as soon as relayflow knows it; the process itself has not had it.
    assert.equal((await statusOf(h, s.processId)).details.smsDelivery, 'Successful');
    assert.equal((await ownDetails(h, s.processId)).smsDelivery, undefined);

    const res = await report(h, s.processId, sms.code!);
    assert.equal(res.json().result, 'SUCCESSFUL', res.body);
    assert.equal((await ownDetails(h, s.processId)).smsDelivery, 'Successful');
    assert.ok((await rowsOf(h, s.processId))[0]!.handed_at !== null, 'handed over: no later message carries it again');
    await closedRun(h, s.processId);

    // One signal in the run: the platform's result. The receipt came with the report's update.
    const events = await eventsOf(h, s.processId);
    assert.deepEqual(
      events.filter((e) => e.startsWith('WORKFLOW_EXECUTION_SIGNALED')),
      ['WORKFLOW_EXECUTION_SIGNALED:platformEvent'],
      events.join(' '),
    );
    const entries = await timeline(h, s.processId);
    assert.deepEqual(signalledReceipts(entries), []);
    const receipts = receiptEntries(entries);
    assert.equal(receipts.length, 1, JSON.stringify(entries, null, 1));
    assert.equal(receipts[0]!.kind, 'callback');
    assert.equal(receipts[0]!.details.eventId, row!.event_id);
    assert.equal(receipts[0]!.details.carriedBy, 'reportCode');
    assert.equal(receipts[0]!.details.smsResult, 'Successful');
    assert.equal((await statusOf(h, s.processId)).details.smsDelivery, 'Successful');
  });

  test('a verification that expires unreported reads its receipt from the store before it ends', async () => {
    const identity = freshNumber();
    const s = await startVerification(h, { identity, fallback: [{ method: 'sms', timeoutSeconds: 2 }] });
    const [row] = await recorded(h, s.processId);
    const ended = await h.waitForState(s.processId, 'FAIL', 15_000);
    assert.match((ended.history as { reason?: string }[]).at(-1)!.reason!, /Expired/);
    assert.equal((ended.details as { smsDelivery?: string }).smsDelivery, 'Successful');
    await closedRun(h, s.processId);
    assert.equal((await statusOf(h, s.processId)).details.smsDelivery, 'Successful', 'the closed run itself says so');

    const events = await eventsOf(h, s.processId);
    assert.ok(!events.some((e) => e.startsWith('WORKFLOW_EXECUTION_SIGNALED')), events.join(' '));
    const receipts = receiptEntries(await timeline(h, s.processId));
    assert.equal(receipts.length, 1);
    assert.equal(receipts[0]!.details.eventId, row!.event_id);
    assert.equal(receipts[0]!.details.carriedBy, 'smsReceipts');
  });

  test('a repeated receipt is recorded once and reaches the process once', async () => {
    const identity = freshNumber();
    const s = await startVerification(h, { identity, method: 'sms' });
    const verificationId = s.current!.verificationId;
    const sms = await messageFor(h, identity, verificationId);
    await recorded(h, s.processId);
    // The platform's retries of the same receipt (a lost acknowledgement): the same event ID each time.
    const custom = (await platformStarts(h, identity))[0]!.custom!;
    const receipt = {
      event: 'VerificationSmsDeliveredEvent',
      id: verificationId,
      method: 'sms',
      identity: { type: 'number', endpoint: identity },
      custom,
      smsResult: 'Successful',
    };
    for (let i = 0; i < 2; i++) assert.equal((await postCallback(h, receipt)).status, 200);
    assert.equal((await rowsOf(h, s.processId)).length, 1);

    assert.equal((await report(h, s.processId, sms.code!)).json().result, 'SUCCESSFUL');
    await closedRun(h, s.processId);
    const receipts = receiptEntries(await timeline(h, s.processId));
    assert.equal(receipts.length, 1, JSON.stringify(receipts));
    assert.equal(receipts[0]!.details.duplicate, false);
  });

  test('a Failed receipt is signalled at once: the chain falls back without waiting for the step to end', async () => {
    const identity = freshNumber();
    await setSandboxVerificationConfig(h.sandbox.url, { undeliverableNumbers: [identity] });
    try {
      const s = await startVerification(h, { identity, fallback: [{ method: 'sms', timeoutSeconds: 120 }, { method: 'flashcall' }] });
      const t0 = Date.now();
      const view = await h.waitForView(
        s.processId,
        (v) => (v.details as { current?: { method?: string } }).current?.method === 'flashcall',
        'the fallback to flashcall',
        15_000,
      );
      assert.ok(Date.now() - t0 < 15_000);
      assert.match((view.history as { reason?: string }[]).map((c) => c.reason ?? '').join('\n'), /sms did not succeed \(FAIL: SMS delivery failure\)/);
      assert.deepEqual(await rowsOf(h, s.processId), [], 'a Failed receipt is not kept for later');
      const signalled = signalledReceipts(await timeline(h, s.processId));
      assert.equal(signalled.length, 1);
      assert.equal((signalled[0]!.details.payload as { smsResult?: string }).smsResult, 'Failed');
      await h.api({ method: 'POST', url: `/v1/verifications/${encodeURIComponent(s.processId)}/cancel` });
    } finally {
      await setSandboxVerificationConfig(h.sandbox.url, { undeliverableNumbers: [] });
    }
  });
});
