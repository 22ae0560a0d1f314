// Sender ID registrations through the API against the sandbox: the sandbox's callback URL and secret,
// its reviewer and callback faults, starting and reading processes.
import assert from 'node:assert/strict';
import { createPlatformClients } from '../../platform/index.js';
import { SENDERID_CALLBACK_PATH } from '../../contracts/callbacks.js';
import { workflowIds } from '../../processes/kinds.js';
import type { SenderIdRegistrationInput } from '../../processes/senderid/senderid-registration/contract.js';
import { signSenderIdCallback } from '../../common/signing.js';
import { pollGaps } from './deadline.js';
import type { Harness } from './harness.js';

export interface SenderIdView {
  processId: string;
  state: string;
  history: { state: string; at: string; reason?: string }[];
  details: {
    registrationId?: string;
    platformState?: string;
    senderId?: string;
    etaDate?: string;
    logs: { at: string; state: string; message: string }[];
    attachments: { attachmentDefinitionId: string; uploadStatus?: string; mandatory?: boolean }[];
    missing?: string[];
    overdue: boolean;
    adopted: boolean;
    callbacks: number;
    duplicateCallbacks: number;
    reads: number;
    violations?: { field: string; rule: string }[];
  };
  execution: { status: string };
}

const sandboxSenderId = async (h: Harness, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${h.sandbox.url}/_sandbox/senderid${path}`, {
    method,
    ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  assert.ok(res.ok, `${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
};

/** Callbacks go to the listening API, signed with `secret` (the platform's callback configuration). */
export async function wireSenderId(h: Harness, secret = h.config.api.senderIdCallbackSecrets[0]!): Promise<void> {
  await sandboxSenderId(h, 'PUT', '/callback-url', { url: `${h.apiUrl}${SENDERID_CALLBACK_PATH}` });
  await setPlatformSecret(h, secret);
}

export const setPlatformSecret = async (h: Harness, secret: string) => {
  await createPlatformClients(h.config.platform).senderid.setCallbackConfiguration(secret);
};

export const setReviewer = (h: Harness, settings: Record<string, unknown>) => sandboxSenderId(h, 'PUT', '/reviewer', settings);

/**
 * The reviewer's step where a test asserts an intermediate state: a callback is a hint and the process reads the
 * registration, so the state must last until that read. At 200-400 ms a loaded machine read a later state.
 */
export const SEEN_STEP_MS = 2_500;
export const setCallbackFaults = (h: Harness, faults: Record<string, unknown>) => sandboxSenderId(h, 'PUT', '/callback-faults', faults);

export interface SentCallback {
  event: { eventId: string; registrationId: string; registrationState: string; eventType: string };
  delivery: string;
  duplicated: boolean;
  reordered: boolean;
}
export const sentCallbacks = async (h: Harness, registrationId: string): Promise<SentCallback[]> =>
  ((await sandboxSenderId(h, 'GET', '/callbacks')).callbacks as SentCallback[]).filter((c) => c.event.registrationId === registrationId);

/** HTTP statuses relayflow answered to the sandbox's callback attempts for a registration, oldest first. */
export async function callbackAnswers(h: Harness, registrationId: string): Promise<number[]> {
  const res = await fetch(`${h.sandbox.url}/_sandbox/callbacks?area=senderId`);
  const { callbacks } = (await res.json()) as { callbacks: { body: { registrationId?: string }; attempts: { status?: number }[] }[] };
  return callbacks
    .filter((c) => c.body?.registrationId === registrationId)
    .flatMap((c) => c.attempts.flatMap((a) => (a.status === undefined ? [] : [a.status])));
}

export const brandRegistration = (key: string, senderId = 'Acme') => ({
  key,
  policyId: 'pol-au-alpha-brand',
  marketCode: 'AU',
  registrationType: 'ALPHANUMERIC_SENDER_ID',
  requestDetails: [
    {
      senderIdDetails: [{ senderId }],
      additionalDetails: [{ companyName: 'Acme Pty', website: 'https://acme.example', email: 'ops@acme.example', useCase: 'TRANSACTIONAL' }],
    },
  ],
});

export const company = { companyName: 'Acme Pty', website: 'https://acme.example', email: 'ops@acme.example', useCase: 'TRANSACTIONAL' };

export async function startRegistration(h: Harness, body: unknown, expected = 202): Promise<string> {
  const res = await h.api({ method: 'POST', url: '/v1/senderid/registrations', payload: body as Record<string, unknown> });
  assert.equal(res.statusCode, expected, res.body);
  return res.json().processId as string;
}

export async function senderIdView(h: Harness, id: string): Promise<SenderIdView> {
  const res = await h.api({ method: 'GET', url: `/v1/senderid/registrations/${encodeURIComponent(id)}` });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as SenderIdView;
}

export async function waitForView(h: Harness, id: string, ok: (v: SenderIdView) => boolean, what: string, timeoutMs = 30_000): Promise<SenderIdView> {
  const deadline = Date.now() + timeoutMs;
  const pause = pollGaps();
  let last: SenderIdView | undefined;
  while (Date.now() < deadline) {
    const res = await h.api({ method: 'GET', url: `/v1/senderid/registrations/${encodeURIComponent(id)}` });
    if (res.statusCode === 200) {
      last = res.json() as SenderIdView;
      if (ok(last)) return last;
    }
    await pause();
  }
  throw new Error(`${id}: not ${what} within ${timeoutMs} ms; last seen: ${JSON.stringify(last)}`);
}

export const states = (v: SenderIdView) => v.history.map((s) => s.state).filter((s, i, all) => i === 0 || all[i - 1] !== s);

/** Posts a callback body signed with `secret` to the API as the platform would. */
export async function postCallback(h: Harness, body: unknown, secret: string | undefined) {
  const raw = JSON.stringify(body);
  return h.app.inject({
    method: 'POST',
    url: SENDERID_CALLBACK_PATH,
    headers: { 'content-type': 'application/json', ...(secret ? signSenderIdCallback(secret, raw) : {}) },
    payload: raw,
  });
}

/**
 * A registration the reviewer keeps PENDING ("Please confirm the website."), started straight on the client
 * with a history limit of 40 and 150 ms polls, so it continues as new soon: its ID and first run's handle.
 */
export async function startPendingRegistration(h: Harness, key: string) {
  await setReviewer(h, {
    outcome: 'pending',
    stepMs: 150,
    pendingApproval: 'never',
    stopForAttachments: 'never',
    pendingMessage: 'Please confirm the website.',
  });
  const id = workflowIds['senderid-registration']('sandbox-project', key);
  const input: SenderIdRegistrationInput = {
    projectId: 'sandbox-project',
    key,
    create: { policyId: 'pol-au-long-standard', marketCode: 'AU', registrationType: 'LONG_NUMBER', requestDetails: [{ additionalDetails: [company] }] },
    pollIntervalMs: 150,
    historyLimit: 40,
  };
  const first = await h.client.workflow.start('senderIdRegistration', { workflowId: id, taskQueue: h.config.taskQueue, args: [input] });
  return { id, first };
}
