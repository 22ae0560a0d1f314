// Verifications relayflow did not start (a mobile SDK's, played by a signed start straight on the sandbox) are
// adopted as `sdk-verification:<platform ID>` processes, through the API's callback intake against the sandbox and
// a real Temporal: the request answered and recorded with why, the result recorded, the process listed, its view
// and timeline telling both, ended with the platform's status; the same events twice recorded once; a result with
// no request still adopts one; and a verification relayflow started itself is not adopted a second time.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ulid } from 'ulid';
import { SANDBOX_CREDENTIALS } from '../../../common/config.js';
import { createPlatformClients } from '../../../platform/index.js';
import { offlineApp } from '../../helpers/offline-app.js';
import { useHarness } from '../../helpers/harness.js';
import { eventually } from '../../helpers/process-list.js';
import { pollUntil } from '../../helpers/deadline.js';
import { freshNumber, messageFor, postCallback, report, signedCallback, startOnPlatform, startVerification } from '../../helpers/verification.js';

interface View {
  state: string;
  history: { state: string; reason?: string }[];
  details: {
    verificationId: string;
    method?: string;
    request?: { at: string; action: string; why: string };
    result?: { status: string; reason?: string; source?: string; via: string };
    platformVerifications: { status: string }[];
  };
}
interface Entry {
  kind: string;
  summary: string;
  details: { signal?: string; duplicate?: boolean; payload?: { kind?: string; identity?: string; answer?: { action: string } } };
}

describe('verifications an SDK started, adopted', () => {
  const h = useHarness();
  const platform = () => createPlatformClients(h.config.platform).verification;
  const processIdOf = (verificationId: string) => `sdk-verification:${verificationId}`;

  const callbackFaults = async (faults: { duplicate: number }) => {
    const res = await fetch(`${h.sandbox.url}/_sandbox/callback-faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(faults),
    });
    assert.equal(res.status, 200, await res.text());
  };

  /** Starts a verification on the platform as the app's SDK does; the platform asked relayflow first. */
  async function sdkStart(identity: string): Promise<string> {
    const res = await startOnPlatform(h, identity);
    const text = await res.text();
    assert.equal(res.status, 200, text);
    return (JSON.parse(text) as { id: string }).id;
  }
  /** The SDK reports the code the phone got, on the platform (relayflow is not asked). */
  async function sdkReport(identity: string, verificationId: string): Promise<void> {
    const { code } = await messageFor(h, identity, verificationId);
    assert.equal((await platform().reportById(verificationId, { method: 'sms', sms: { code: code! } })).status, 'SUCCESSFUL');
  }
  const view = async (processId: string) => {
    const res = await h.api({ method: 'GET', url: `/v1/processes/${encodeURIComponent(processId)}` });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as View;
  };
  const timeline = async (processId: string) => {
    const res = await h.api({ method: 'GET', url: `/v1/processes/${encodeURIComponent(processId)}/timeline?pageSize=200` });
    assert.equal(res.statusCode, 200, res.body);
    return (res.json() as { entries: Entry[] }).entries;
  };
  const adoptedSignals = (entries: Entry[]) => entries.filter((e) => e.details.signal === 'sdkVerificationEvent');

  test('recorded from its request to its result: listed, its view and timeline show both, ended with the platform status', async () => {
    const identity = freshNumber();
    const verificationId = await sdkStart(identity);
    const processId = processIdOf(verificationId);
    // The request was handed to the process before relayflow answered it: it is there once the platform answered the start.
    const pending = await view(processId);
    assert.equal(pending.state, 'PENDING');
    assert.equal(pending.details.method, 'sms');
    assert.equal(pending.details.request?.action, 'allow');
    assert.match(pending.details.request!.why, /geo rules and the per-number guard/);

    await sdkReport(identity, verificationId);
    const ended = (await h.waitForState(processId, 'SUCCESSFUL')) as unknown as View;
    assert.deepEqual(
      { status: ended.details.result?.status, source: ended.details.result?.source, via: ended.details.result?.via },
      { status: 'SUCCESSFUL', source: 'manual', via: 'result event' },
    );
    assert.equal(ended.details.platformVerifications[0]?.status, 'SUCCESSFUL', 'the audit picture has its outcome');
    const reasons = ended.history.map((c) => c.reason ?? '');
    assert.equal(reasons.filter((r) => /^sms requested; relayflow answered allow/.test(r)).length, 1, JSON.stringify(ended.history));
    assert.match(reasons.at(-1)!, /the platform said SUCCESSFUL \(manual\), by its result event/);

    const listed = await eventually(
      async () => {
        const res = await h.api({ method: 'GET', url: '/v1/processes?kind=sdk-verification&state=SUCCESSFUL' });
        assert.equal(res.statusCode, 200, res.body);
        return (res.json() as { processes: { processId: string; kind: string; state: string }[] }).processes;
      },
      (rows) => rows.some((r) => r.processId === processId),
      'the adopted verification in the list by kind and state',
    );
    assert.equal(listed.find((r) => r.processId === processId)?.kind, 'sdk-verification');

    const signals = adoptedSignals(await timeline(processId));
    const kinds = signals.map((e) => e.details.payload?.kind);
    assert.ok(kinds.includes('request') && kinds.includes('result'), JSON.stringify(kinds));
    assert.equal(signals.find((e) => e.details.payload?.kind === 'request')?.details.payload?.answer?.action, 'allow');
    // The number is in encrypted payloads only, and masked in the timeline.
    for (const e of signals) assert.ok(!JSON.stringify(e).includes(identity.slice(1)), `unmasked number in ${e.summary}`);
    assert.ok(!processId.includes(identity.slice(1)));
  });

  test('the same events delivered twice are recorded once', async () => {
    const identity = freshNumber();
    await callbackFaults({ duplicate: 10 }); // the request, the SMS receipt and the result, each sent twice
    let verificationId: string;
    try {
      verificationId = await sdkStart(identity);
      await sdkReport(identity, verificationId);
    } finally {
      await callbackFaults({ duplicate: 0 });
    }
    const processId = processIdOf(verificationId);
    const ended = (await h.waitForState(processId, 'SUCCESSFUL')) as unknown as View;
    // Each event's copy was answered by the intake (a repeat, or a retry of one that came while the first was being
    // handed over) and never reached the process.
    const copies = await pollUntil(
      async () => {
        const res = await fetch(`${h.sandbox.url}/_sandbox/callbacks?area=verification`);
        const { callbacks } = (await res.json()) as { callbacks: { body: { id?: string }; outcome: string; duplicateOf?: string }[] };
        const mine = callbacks.filter((c) => c.body.id === verificationId);
        const sent = mine.filter((c) => c.duplicateOf);
        return sent.length >= 2 && mine.every((c) => c.outcome !== 'pending') && sent;
      },
      'every copy answered',
      15_000,
      200,
    );
    assert.ok(
      copies.every((c) => c.outcome === 'delivered'),
      JSON.stringify(copies),
    );
    const entries = adoptedSignals(await timeline(processId));
    assert.ok(!entries.some((e) => e.details.duplicate), 'no copy reached the process');
    const firsts = entries.map((e) => e.details.payload?.kind);
    assert.equal(firsts.filter((k) => k === 'request').length, 1, JSON.stringify(firsts));
    assert.equal(firsts.filter((k) => k === 'result').length, 1, JSON.stringify(firsts));
    const again = await view(processId);
    assert.deepEqual(again.history, ended.history, 'nothing recorded twice');
    assert.equal(again.history.filter((c) => /requested; relayflow answered/.test(c.reason ?? '')).length, 1);
    assert.equal(again.history.filter((c) => /the platform said/.test(c.reason ?? '')).length, 1);

    // A repeat after the end is acknowledged and starts no second run under the same ID.
    const handle = h.client.workflow.getHandle(processId);
    const { runId } = await handle.describe();
    const result = {
      event: 'VerificationResultEvent',
      id: verificationId,
      method: 'sms',
      identity: { type: 'number', endpoint: identity },
      status: 'SUCCESSFUL',
      source: 'manual',
    };
    assert.equal((await postCallback(h, result)).status, 200);
    const latest = await handle.describe();
    assert.deepEqual([latest.runId, latest.status.name], [runId, 'COMPLETED'], 'still the one run, ended');
  });

  test('a request relayflow denied is recorded with why, and ends DENIED; one a newer start replaced ends ABORTED', async () => {
    const identity = freshNumber();
    const admitted: string[] = [];
    // The per-number guard admits 5 verifications of a number per hour (RELAYFLOW_VERIFICATION_GUARD_MAX).
    for (let i = 0; i < h.config.processes.verification.guardMax; i++) admitted.push(await sdkStart(identity));
    const refused = await startOnPlatform(h, identity);
    assert.equal(refused.status, 403, await refused.text());
    const res = await fetch(`${h.sandbox.url}/_sandbox/callbacks?area=verification`);
    const { callbacks } = (await res.json()) as { callbacks: { body: { event?: string; id?: string; identity?: { endpoint?: string } } }[] };
    const requests = callbacks.filter((c) => c.body.event === 'VerificationRequestEvent' && c.body.identity?.endpoint === identity).map((c) => c.body.id!);
    const deniedId = requests.find((id) => !admitted.includes(id))!;
    assert.ok(deniedId, `the refused start's request event: ${JSON.stringify(requests)}`);

    const denied = (await h.waitForState(processIdOf(deniedId), 'DENIED')) as unknown as View;
    assert.deepEqual([denied.details.request?.action, denied.details.request?.why], ['deny', 'refused by the per-number guard']);
    assert.match(denied.history.at(-1)!.reason!, /the platform said DENIED: Denied by callback, by its result event/);
    // The first was replaced by the second start to the number (the platform's ABORTED).
    const aborted = (await h.waitForState(processIdOf(admitted[0]!), 'ABORTED')) as unknown as View;
    assert.equal(aborted.details.result?.reason, 'Replaced by a newer verification');
  });

  test('a result with no request event before it adopts the verification', async () => {
    const identity = freshNumber();
    const verificationId = `sdk-${ulid()}`;
    const res = await postCallback(h, {
      event: 'VerificationResultEvent',
      id: verificationId,
      method: 'flashcall',
      identity: { type: 'number', endpoint: identity },
      status: 'FAIL',
      reason: 'Expired',
      reference: 'app-login-7',
    });
    assert.equal(res.status, 200, await res.text());
    const ended = (await h.waitForState(processIdOf(verificationId), 'FAIL')) as unknown as View & { details: { reference?: string } };
    assert.equal(ended.details.request, undefined, 'no request was seen');
    assert.equal(ended.details.method, 'flashcall');
    assert.equal(ended.details.reference, 'app-login-7');
    assert.match(ended.history.at(-1)!.reason!, /the platform said FAIL: Expired, by its result event/);
  });

  test('a verification relayflow started itself is not adopted a second time', async () => {
    const identity = freshNumber();
    const s = await startVerification(h, { identity, method: 'sms', reference: `own-${ulid()}` });
    const verificationId = s.current!.verificationId;
    const { code } = await messageFor(h, identity, verificationId);
    assert.equal((await report(h, s.processId, code!)).statusCode, 200);
    await h.waitForState(s.processId, 'SUCCESSFUL');
    // Its request, receipt and result events were all routed to its own process by the token in `custom`.
    const res = await h.api({ method: 'GET', url: `/v1/processes/${encodeURIComponent(processIdOf(verificationId))}` });
    assert.equal(res.statusCode, 404, res.body);
  });
});

describe('an SDK verification event Temporal cannot take', () => {
  test('is answered 503 within its deadline, not acknowledged, so the platform sends it again', async () => {
    const offline = await offlineApp((_req, res) => res.writeHead(500).end()); // no Temporal behind it
    try {
      const { path, raw, headers } = await signedCallback(SANDBOX_CREDENTIALS, {
        event: 'VerificationResultEvent',
        id: `sdk-${ulid()}`,
        method: 'sms',
        identity: { type: 'number', endpoint: freshNumber() },
        status: 'SUCCESSFUL',
      });
      // The app's routes compiled before the clock starts (inject would make them ready first): only the answer is timed.
      await offline.app.ready();
      const t0 = Date.now();
      const res = await offline.app.inject({ method: 'POST', url: path, headers, payload: raw });
      assert.equal(res.statusCode, 503, res.body);
      // The hand-over's deadline (3 s), not the Temporal client's own retries (20 s without it).
      assert.ok(Date.now() - t0 < 8_000, `answered after ${Date.now() - t0} ms`);
      assert.equal(res.json().error.code, 'unavailable');
      assert.ok(res.headers['retry-after'], 'with Retry-After');
    } finally {
      await offline.close();
    }
  });
});
