// An adopted SDK verification (processes/verification/verification/workflow/sdk-verification.ts) whose result event never comes: at its
// deadline it reads the platform's status by ID and ends with it; while the platform says PENDING it reads again,
// then ends UNKNOWN saying so; a verification the platform does not know ends UNKNOWN naming the failed read. Real
// Temporal and the sandbox, with the sandbox's callbacks off (the SDK's start then asks nobody, and no result event
// is sent), and the process started as the intake starts it, with a short wait.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ulid } from 'ulid';
import { VERIFICATION_CALLBACK_PATH } from '../../../contracts/callbacks.js';
import { workflowIds } from '../../../processes/kinds.js';
import { sdkVerificationEventSignal, type SdkVerificationEvent, type SdkVerificationInput } from '../../../processes/verification/sdk-verification/contract.js';
import { createPlatformClients } from '../../../platform/index.js';
import { setSandboxVerificationConfig, useHarness } from '../../helpers/harness.js';
import { freshNumber, messageFor, startOnPlatform } from '../../helpers/verification.js';

const WAIT_MS = 800;

describe('an adopted SDK verification with no result event', () => {
  const h = useHarness();

  /** Runs `fn` with the sandbox's verification callbacks off: no request event, no result event. */
  async function withoutCallbacks<T>(fn: () => Promise<T>): Promise<T> {
    await setSandboxVerificationConfig(h.sandbox.url, { callbackUrl: null });
    try {
      return await fn();
    } finally {
      await setSandboxVerificationConfig(h.sandbox.url, { callbackUrl: `${h.apiUrl}${VERIFICATION_CALLBACK_PATH}` });
    }
  }

  async function sdkStart(identity: string): Promise<string> {
    const res = await startOnPlatform(h, identity);
    const text = await res.text();
    assert.equal(res.status, 200, text);
    return (JSON.parse(text) as { id: string }).id;
  }

  /** Adopts it as the intake does on its request event (signal-with-start), waiting WAIT_MS for the result. */
  async function adopt(verificationId: string, identity: string) {
    const input: SdkVerificationInput = { verificationId, resultWaitMs: WAIT_MS };
    const event: SdkVerificationEvent = {
      eventId: `request-${verificationId}`,
      kind: 'request',
      at: new Date().toISOString(),
      verificationId,
      method: 'sms',
      identity,
      answer: { action: 'allow', why: 'within the geo rules and the per-number guard' },
    };
    const handle = await h.client.workflow.signalWithStart('sdkVerification', {
      workflowId: workflowIds['sdk-verification'](verificationId),
      taskQueue: h.config.taskQueue,
      args: [input],
      signal: sdkVerificationEventSignal,
      signalArgs: [event],
    });
    return (await handle.result()) as { state: string; reason?: string };
  }

  test('reads the platform at its deadline and ends with the status it says', async () => {
    const identity = freshNumber();
    const result = await withoutCallbacks(async () => {
      const verificationId = await sdkStart(identity);
      const { code } = await messageFor(h, identity, verificationId);
      await createPlatformClients(h.config.platform).verification.reportById(verificationId, { method: 'sms', sms: { code: code! } });
      return adopt(verificationId, identity);
    });
    assert.equal(result.state, 'SUCCESSFUL');
    assert.match(result.reason!, /the platform said SUCCESSFUL \(manual\), by its status read/);
  });

  test('ends UNKNOWN when the platform still says PENDING after its reads', async () => {
    const identity = freshNumber();
    const started = Date.now();
    // All of it without callbacks: the SMS receipt, sent a moment after the start, must not adopt it first.
    const { verificationId, result } = await withoutCallbacks(async () => {
      const id = await sdkStart(identity);
      return { verificationId: id, result: await adopt(id, identity) };
    });
    assert.equal(result.state, 'UNKNOWN');
    assert.match(result.reason!, /no result event within \d+ min, and the platform still says PENDING/);
    assert.ok(Date.now() - started >= 4 * WAIT_MS, 'four waits, a read after each');
    const view = await h.api({ method: 'GET', url: `/v1/processes/${encodeURIComponent(workflowIds['sdk-verification'](verificationId))}` });
    assert.equal(view.json().details.statusReads, 4, view.body);
  });

  test('ends UNKNOWN naming the read when the platform does not know the verification', async () => {
    const result = await adopt(`sdk-${ulid()}`, freshNumber());
    assert.equal(result.state, 'UNKNOWN');
    assert.match(result.reason!, /the platform's status could not be read: .*not found/i);
  });
});
