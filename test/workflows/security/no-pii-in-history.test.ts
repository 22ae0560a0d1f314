// Privacy: no phone number in any workflow history or log. Processes that carry numbers and fail (a
// verification out of attempts, an expired code, a platform denial quoting the number, a subproject the
// platform rejects with a message quoting one, a platform outage quoting one; and one an SDK started, which
// relayflow adopted from the platform's events, each carrying the number) run on the real Temporal dev
// server; then every history of the run's task queue is read raw (proto JSON, payloads still encrypted) and
// the API's, worker's and Temporal runtime's logs are searched for every form of every number used.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { WorkflowFailedError } from '@temporalio/client';
import { createLogger } from '../../../common/logger.js';
import { flushRuntimeLogs, startHarness, setSandboxVerificationConfig, uniqueName, type Harness } from '../../helpers/harness.js';
import { createPlatformClients } from '../../../platform/index.js';
import { messageFor, report, startOnPlatform, startVerification } from '../../helpers/verification.js';
import { assertBundleFits, WORKFLOWS_PATH } from '../../../workers/worker.js';
import { cachedBundleCode } from '../../helpers/workflow-bundles.js';

/** Swedish mobiles used only here (national significant numbers 70 000 09 01 … 06). */
const NUMBERS = ['+46700000901', '+46700000902', '+46700000903', '+46700000904', '+46700000905', '+46700000906'] as const;
const [OUT_OF_ATTEMPTS, EXPIRED, DENIED, IN_SUBPROJECT_ERROR, IN_OUTAGE, BY_SDK] = NUMBERS;

/** A number's national significant digits, with any separators a formatted form may put between them. */
const numberPattern = (e164: string) => new RegExp(e164.slice(3).split('').join('[\\s().\\-]*'));
/** The forms a number may be written in: E.164, digits, national, international and national formatted. */
const forms = (e164: string) => {
  const nsn = e164.slice(3);
  const spaced = `${nsn.slice(0, 2)} ${nsn.slice(2, 5)} ${nsn.slice(5, 7)} ${nsn.slice(7)}`;
  return [e164, e164.slice(1), `0${nsn}`, `+46 ${spaced}`, `0${spaced}`, `0${nsn.slice(0, 2)}-${nsn.slice(2)}`, nsn];
};

/** Which numbers (by any form) occur in `text`. */
function numbersIn(text: string): string[] {
  return NUMBERS.filter((n) => numberPattern(n).test(text) || forms(n).some((f) => text.includes(f)) || text.includes(encodeURIComponent(n)));
}

const sandboxPost = async (h: Harness, path: string, body: unknown) => {
  const res = await fetch(`${h.sandbox.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.ok(res.ok, `${path}: ${await res.text()}`);
};

interface RawHistory {
  workflowId: string;
  runId: string;
  json: string;
}

/**
 * A history as the server stores it, in JSON: protobuf messages through their toJSON (enums by name, 64-bit
 * integers as strings), bytes in base64 (encrypted payloads stay opaque, a plain-text one would show).
 */
const historyJson = (history: unknown) => JSON.stringify(history, (_k, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v));

/** Every run on the harness's task queue (each run of every workflow), with its history as proto JSON. */
async function histories(h: Harness, expectIds: string[]): Promise<RawHistory[]> {
  const query = `TaskQueue = "${h.config.taskQueue}"`;
  // Visibility is eventually consistent: wait until the runs the test knows of are all listed and closed.
  let runs: { workflowId: string; runId: string; status: string }[] = [];
  for (let i = 0; i < 100; i++) {
    runs = [];
    for await (const w of h.client.workflow.list({ query })) runs.push({ workflowId: w.workflowId, runId: w.runId, status: w.status.name });
    if (expectIds.every((id) => runs.some((r) => r.workflowId === id && r.status !== 'RUNNING'))) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.ok(
    expectIds.every((id) => runs.some((r) => r.workflowId === id)),
    `listed: ${JSON.stringify(runs)}`,
  );
  return Promise.all(runs.map(async (r) => ({ ...r, json: historyJson(await h.client.workflow.getHandle(r.workflowId, r.runId).fetchHistory()) })));
}

interface JsonFailure {
  message?: string;
  stackTrace?: string;
  source?: string;
  serverFailureInfo?: unknown;
  encodedAttributes?: unknown;
  cause?: JsonFailure;
  applicationFailureInfo?: { type?: string };
}

const FAILURE_KEYS = new Set(['failure', 'lastFailure', 'continuedFailure', 'cause']);

/** Every failure in a history's events (top-level, last attempts' and causes), as the server stores them. */
function failuresIn(json: string): JsonFailure[] {
  const out: JsonFailure[] = [];
  const walk = (v: unknown, key?: string) => {
    if (Array.isArray(v)) return v.forEach((x) => walk(x));
    if (v === null || typeof v !== 'object') return;
    if (key !== undefined && FAILURE_KEYS.has(key) && 'message' in v) out.push(v as JsonFailure);
    for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  walk(JSON.parse(json));
  return out;
}

describe('security: no phone number in histories or logs', () => {
  let h: Harness;
  const logLines: string[] = [];
  const processIds: string[] = [];

  before(async () => {
    const destination = new Writable({
      write(chunk: Buffer, _enc, done) {
        logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    // Debug: the SDK logs activity failures (with the error) at debug/warn, and the API every request.
    const logger = createLogger({ name: 'security-test', level: 'debug', destination });
    h = await startHarness({ logger });
    await setSandboxVerificationConfig(h.sandbox.url, { callout: { startPollingAfter: 0, stopPollingAfter: 60, pollingInterval: 1 } });
  });
  after(async () => h.close());

  test('verifications that fail: out of attempts, expired, denied with the number in the platform message, outage quoting it', async () => {
    // Out of report attempts (wrong codes), after a lookup by identity (the number in the URL).
    const a = await startVerification(h, { identity: OUT_OF_ATTEMPTS, method: 'sms', policy: { maxReportAttempts: 1 } });
    processIds.push(a.processId);
    const byIdentity = await h.api({ method: 'GET', url: `/v1/verifications?identity=${encodeURIComponent(OUT_OF_ATTEMPTS)}&method=sms` });
    assert.equal(byIdentity.json().process.processId, a.processId);
    assert.ok((await messageFor(h, OUT_OF_ATTEMPTS, a.current!.verificationId)).code, 'the SMS reached the phone');
    assert.equal((await report(h, a.processId, '000000')).json().result, 'FAIL');
    await h.waitForState(a.processId, 'FAIL');

    // The code expires.
    const b = await startVerification(h, { identity: EXPIRED, method: 'sms', policy: { codeExpirySeconds: 2 } });
    processIds.push(b.processId);
    const expired = await h.waitForState(b.processId, 'FAIL', 15_000);
    assert.match((expired.history as { reason?: string }[]).at(-1)!.reason!, /Expired/);

    // The platform denies, quoting the number (formatted) in its message: a non-retryable activity failure.
    await sandboxPost(h, '/_sandbox/faults', {
      area: 'verification',
      method: 'POST',
      status: 403,
      count: 1,
      body: {
        errorCode: 40300,
        message: `Denied by guard: +46 ${DENIED.slice(3, 5)} ${DENIED.slice(5, 8)} ${DENIED.slice(8, 10)} ${DENIED.slice(10)} is blocked`,
      },
    });
    const c = await startVerification(h, { identity: DENIED, method: 'sms' });
    processIds.push(c.processId);
    assert.equal(c.state, 'DENIED');
    assert.deepEqual(numbersIn(c.reason ?? ''), [DENIED], `the decoded reason keeps the platform's words: ${c.reason}`);

    // A retryable outage whose message quotes the number: the attempt fails, the retry succeeds.
    await sandboxPost(h, '/_sandbox/faults', {
      area: 'verification',
      method: 'POST',
      status: 503,
      count: 1,
      body: { errorCode: 50300, message: `unavailable for ${IN_OUTAGE}` },
    });
    const e = await startVerification(h, { identity: IN_OUTAGE, method: 'sms' });
    processIds.push(e.processId);
    const sms = await messageFor(h, IN_OUTAGE, e.current!.verificationId);
    assert.equal((await report(h, e.processId, sms.code!)).json().result, 'SUCCESSFUL');
    await h.waitForState(e.processId, 'SUCCESSFUL');
  });

  test('a verification an SDK started: adopted as a process (its request and result events carry the number)', async () => {
    const started = await startOnPlatform(h, BY_SDK);
    const text = await started.text();
    assert.equal(started.status, 200, text);
    const { id } = JSON.parse(text) as { id: string };
    const { code } = await messageFor(h, BY_SDK, id);
    const platform = createPlatformClients(h.config.platform).verification;
    assert.equal((await platform.reportById(id, { method: 'sms', sms: { code: code! } })).status, 'SUCCESSFUL');
    const processId = `sdk-verification:${id}`;
    processIds.push(processId);
    await h.waitForState(processId, 'SUCCESSFUL', 20_000);
  });

  test('a subproject the platform rejects with a number in its message: the workflow fails; the client decodes the real message', async () => {
    const message = `displayName rejected: it quotes the phone number ${IN_SUBPROJECT_ERROR}`;
    await sandboxPost(h, '/_sandbox/faults', {
      area: 'subprojects',
      method: 'POST',
      status: 400,
      count: 1,
      body: { error: { code: 400, status: 'INVALID_ARGUMENT', message, details: [] } },
    });
    const res = await h.api({ method: 'POST', url: '/v1/subprojects', payload: { displayName: uniqueName('rejected') } });
    assert.equal(res.statusCode, 202, res.body);
    const id = res.json<{ processId: string }>().processId;
    processIds.push(id);
    const failed = await h.waitForState(id, 'FAILED');
    assert.match((failed.history as { reason?: string }[]).at(-1)!.reason!, /rejected: it quotes the phone number/);

    // Client side, through the data converter: the whole chain with its real messages.
    const err = await h.client.workflow
      .getHandle(id)
      .result()
      .then(
        () => assert.fail('the workflow should fail'),
        (e: unknown) => e,
      );
    assert.ok(err instanceof WorkflowFailedError, String(err));
    const messages: string[] = [];
    for (let e: unknown = err.cause; e instanceof Error; e = e.cause) messages.push(e.message);
    assert.ok(
      messages.some((m) => m.includes(message)),
      `decoded chain: ${JSON.stringify(messages)}`,
    );
    assert.ok(!messages.includes('Encoded failure'), `every message decoded: ${JSON.stringify(messages)}`);

    // Server side: the failure of WorkflowExecutionFailed carries only the placeholder.
    const history = historyJson(await h.client.workflow.getHandle(id).fetchHistory());
    const events = (JSON.parse(history) as { events: { eventType: string; workflowExecutionFailedEventAttributes?: { failure: JsonFailure } }[] }).events;
    const wfFailed = events.find((ev) => ev.workflowExecutionFailedEventAttributes)?.workflowExecutionFailedEventAttributes?.failure;
    assert.ok(wfFailed, `a WorkflowExecutionFailed event: ${events.map((ev) => ev.eventType).join(', ')}`);
    assert.equal(wfFailed.message, 'Encoded failure');
    assert.equal(wfFailed.stackTrace ?? '', '');
    assert.ok(wfFailed.encodedAttributes, 'message and stack moved into encodedAttributes');
    assert.ok(wfFailed.cause, 'the cause chain is kept');
  });

  test('no history of the run holds a phone number, and every failure message in them is the placeholder', async () => {
    const all = await histories(h, processIds);
    assert.ok(all.length >= processIds.length, `${all.length} histories`);
    // Sanity: the search works on these texts (a form of each number is found where it is written).
    for (const n of NUMBERS) for (const f of forms(n)) assert.deepEqual(numbersIn(`x ${f} y`), [n], f);
    for (const { workflowId, runId, json } of all) {
      assert.deepEqual(numbersIn(workflowId), [], `workflow ID ${workflowId}`);
      assert.deepEqual(numbersIn(json), [], `history of ${workflowId} (${runId}) holds a phone number`);
    }
    // The server writes some failures itself (timeouts, source "Server"; serverFailureInfo, e.g. a workflow task
    // failed with UnhandledCommand when a signal raced its completion): fixed words, no data, no converter.
    // Every other failure went through relayflow's failure converter (in an activity, a workflow or core's
    // wrapper re-encoded by the workflow) and must be encoded.
    const failures = all
      .flatMap((x) => failuresIn(x.json).map((f) => ({ workflowId: x.workflowId, f })))
      .filter(({ f }) => f.source !== 'Server' && f.serverFailureInfo === undefined);
    const kinds = new Set(failures.map(({ workflowId }) => workflowId.split(':')[0]));
    assert.ok(kinds.has('verification') && kinds.has('subproject'), `failures recorded in verification and subproject histories: ${[...kinds].join(', ')}`);
    for (const { workflowId, f } of failures) {
      assert.equal(f.message, 'Encoded failure', `a failure in ${workflowId} is in plain text: ${f.message}`);
      assert.equal(f.stackTrace ?? '', '', `a stack trace in ${workflowId} is in plain text`);
    }
  });

  test('no log line of the API, the worker or the Temporal runtime holds a phone number', async () => {
    // The runtime holds its lines (the SDK's "Activity failed" among them) a while before writing them.
    await flushRuntimeLogs();
    assert.ok(logLines.length > 0, 'logs were captured');
    const text = logLines.join('\n');
    assert.match(text, /worker ready/, 'the worker logged');
    assert.match(text, /\/v1\/verifications/, 'the API logged its requests');
    const activityFailures = logLines.filter((l) => l.includes('Activity failed'));
    assert.ok(activityFailures.length > 0, 'the SDK logged the failed activities');
    // The errors' real messages are logged (so the search below can find a number), numbers masked.
    assert.ok(
      activityFailures.some((l) => /Denied by guard: \+\*\*\*03 is blocked/.test(l)),
      activityFailures.join('\n'),
    );
    assert.ok(
      activityFailures.some((l) => /displayName rejected: it quotes the phone number \+\*\*\*04/.test(l)),
      activityFailures.join('\n'),
    );
    const leaking = logLines.filter((l) => numbersIn(l).length > 0);
    assert.deepEqual(leaking, [], 'log lines with a phone number');
  });

  test('a workflow bundle built without the failure converter is refused; the one the suite built is taken', async () => {
    const bundle = process.env.RELAYFLOW_WORKFLOW_BUNDLE;
    assert.ok(bundle, 'npm test builds the bundle with workers/build-bundle.ts');
    assert.doesNotThrow(() => assertBundleFits(bundle, false));
    const dir = await mkdtemp(join(tmpdir(), 'relayflow-bundle-'));
    try {
      const code = await cachedBundleCode({ workflowsPath: WORKFLOWS_PATH });
      const plain = join(dir, 'workflow-bundle.js');
      await writeFile(plain, code);
      assert.throws(() => assertBundleFits(plain, false), /without relayflow's failure converter/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
