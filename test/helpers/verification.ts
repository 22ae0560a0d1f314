// Test helpers for verification: the simulated phone's inbox and API shortcuts.
import assert from 'node:assert/strict';
import type { Harness } from './harness.js';

export interface PhoneMessage {
  verificationId: string;
  method: string;
  kind: string;
  text?: string;
  code?: string;
  cli?: string;
  language?: string;
}

let counter = 0;
/** A fresh valid Swedish mobile number per call, so the per-number guard of one test never hits another. */
export function freshNumber(): string {
  counter += 1;
  return `+4670${String(process.pid % 1000).padStart(3, '0')}${String(counter).padStart(4, '0')}`;
}

/** The sandbox application has WhatsApp verification (the default) or not (an older account: a whatsapp start is refused). */
export async function setWhatsApp(h: Harness, enabled: boolean): Promise<void> {
  const res = await fetch(`${h.sandbox.url}/_sandbox/verification/config`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ whatsappEnabled: enabled }),
  });
  assert.equal(res.status, 200, await res.text());
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

export interface Started {
  processId: string;
  state: string;
  reason?: string;
  current?: {
    verificationId: string;
    method: string;
    language?: string;
    sms?: { template?: string };
    flashCall?: { cliFilter?: string };
    callout?: unknown;
    seamless?: { targetUri?: string };
  };
}

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

/**
 * The verification routes alone, over the harness's Temporal client, with a VerificationService built here:
 * a short start deadline (`waitMs`) and, optionally, another task queue for the processes (`taskQueue`:
 * one nobody polls), so deadline tests take a second or two. The guards (in the store) are shared with the harness's app.
 */
export async function verificationRoutesWith(h: Harness, opts: { waitMs: number; taskQueue?: string }) {
  const [
    { default: Fastify },
    { VerificationService },
    { verificationRoutes },
    { ProcessService, pageTokenKey },
    { validationPlugin },
    { errorHandlerPlugin },
    { subjectHasher },
    { createPlatformClients },
  ] = await Promise.all([
    import('fastify'),
    import('../../processes/verification/routes/service.js'),
    import('../../processes/verification/routes/index.js'),
    import('../../api/processes/find.js'),
    import('../../api/plugins/validation.js'),
    import('../../api/plugins/error-handler.js'),
    import('../../common/subject-hash.js'),
    import('../../platform/index.js'),
  ]);
  const app = Fastify();
  await app.register(validationPlugin);
  await app.register(errorHandlerPlugin);
  const config = { ...h.config, ...(opts.taskQueue ? { taskQueue: opts.taskQueue } : {}) };
  const verifications = new VerificationService(h.client, config, subjectHasher(h.config.codecKeys), h.store.sql, { waitMs: opts.waitMs });
  await app.register(verificationRoutes, {
    client: h.client,
    processes: new ProcessService(h.client, { pageTokenKey: pageTokenKey(h.config.codecKeys) }),
    verifications,
    platform: createPlatformClients(h.config.platform).verification,
  });
  await app.ready();
  return { app, config, verifications };
}

/** Platform starts the sandbox received for a number (POST .../verifications bodies), from its request log. */
export async function platformStarts(h: Harness, identity: string): Promise<{ reference?: string; custom?: string; method: string }[]> {
  const res = await fetch(`${h.sandbox.url}/_sandbox/requests?area=verification&method=POST`);
  const { requests } = (await res.json()) as {
    requests: { path: string; body: { identity?: { endpoint?: string }; reference?: string; custom?: string; method: string } }[];
  };
  return requests.filter((r) => r.path.endsWith('/verifications') && r.body?.identity?.endpoint === identity).map((r) => r.body);
}

/** A verification callback's body and headers, signed with these application credentials as the platform signs it. */
export async function signedCallback(credentials: { appKey: string; appSecret: string }, body: unknown) {
  const { signApplicationRequest } = await import('../../common/signing.js');
  const { VERIFICATION_CALLBACK_PATH } = await import('../../contracts/callbacks.js');
  const raw = JSON.stringify(body);
  const { appKey, appSecret } = credentials;
  const headers = signApplicationRequest({
    appKey,
    appSecret,
    method: 'POST',
    path: VERIFICATION_CALLBACK_PATH,
    contentType: 'application/json; charset=UTF-8',
    body: raw,
  });
  return { path: VERIFICATION_CALLBACK_PATH, raw, headers };
}

/** A verification callback to relayflow, signed as the platform signs it. */
export async function postCallback(h: Harness, body: unknown): Promise<Response> {
  const { path, raw, headers } = await signedCallback(h.config.platform.credentials, body);
  return fetch(`${h.apiUrl}${path}`, { method: 'POST', headers, body: raw });
}

/** The process's status view (GET /v1/verifications/{id}). */
export async function statusOf(
  h: Harness,
  processId: string,
): Promise<{ state: string; history: { state: string; reason?: string }[]; details: Record<string, unknown> }> {
  const res = await h.api({ method: 'GET', url: `/v1/verifications/${encodeURIComponent(processId)}` });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}
