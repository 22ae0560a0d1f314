// Test helpers for verification: the simulated phone's inbox and API shortcuts.
import assert from 'node:assert/strict';
import type { Harness } from './harness.js';

export interface PhoneMessage { verificationId: string; method: string; kind: string; text?: string; code?: string; cli?: string; language?: string }

let counter = 0;
/** A fresh valid Swedish mobile number per call, so the per-number guard of one test never hits another. */
export function freshNumber(): string {
  counter += 1;
  return `+4670${String(process.pid % 1000).padStart(3, '0')}${String(counter).padStart(4, '0')}`;
}

export async function phoneInbox(h: Harness, identity: string): Promise<PhoneMessage[]> {
  const res = await fetch(`${h.sandbox.url}/_sandbox/verification/phones/${encodeURIComponent(identity)}`);
  assert.equal(res.status, 200);
  return ((await res.json()) as { messages: PhoneMessage[] }).messages;
}

/** The newest message the phone got for a platform verification, waiting briefly for it. */
export async function messageFor(h: Harness, identity: string, verificationId: string): Promise<PhoneMessage> {
  for (let i = 0; i < 50; i++) {
    const m = (await phoneInbox(h, identity)).filter((x) => x.verificationId === verificationId).at(-1);
    if (m) return m;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the phone got nothing for ${verificationId}`);
}

export interface Started { processId: string; state: string; reason?: string; current?: { verificationId: string; method: string; language?: string; sms?: { template?: string }; flashCall?: { cliFilter?: string }; callout?: unknown; seamless?: { targetUri?: string } } }

export async function startVerification(h: Harness, body: Record<string, unknown>, expectStatus = 201): Promise<Started> {
  const res = await h.api({ method: 'POST', url: '/v1/verifications', payload: body });
  assert.equal(res.statusCode, expectStatus, res.body);
  return res.json();
}

export async function report(h: Harness, processId: string, code: string, idempotencyKey?: string) {
  return h.api({
    method: 'POST',
    url: `/v1/verifications/${encodeURIComponent(processId)}/report`,
    payload: { code },
    ...(idempotencyKey ? { headers: { 'idempotency-key': idempotencyKey } } : {}),
  });
}

/** Starts a verification directly on the sandbox, as a client SDK would (not through relayflow). */
export async function startOnPlatform(h: Harness, identity: string, method = 'sms', reference = `sdk-${Date.now()}`): Promise<Response> {
  const { signApplicationRequest } = await import('../../common/signing.js');
  const body = JSON.stringify({ identity: { type: 'number', endpoint: identity }, method, reference });
  const path = '/verification/verification/v1/verifications';
  const { appKey, appSecret } = h.config.platform.credentials;
  const headers = signApplicationRequest({ appKey, appSecret, method: 'POST', path, contentType: 'application/json; charset=UTF-8', body });
  return fetch(`${h.sandbox.url}${path}`, { method: 'POST', headers, body });
}
