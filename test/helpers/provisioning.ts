// Test helpers for provisioning: the sandbox's reviewer, webhook faults and reviewer-made events, and
// API shortcuts for the template and sender processes.
import assert from 'node:assert/strict';
import { ulid } from 'ulid';
import { KIND, STATE } from '../../common/search-attributes.js';
import { PROVISIONING_WEBHOOK_PATH } from '../../contracts/callbacks.js';
import { workflowIds } from '../../processes/kinds.js';
import type { ProvisioningEvent, ResourceRef, TemplateApprovalInput } from '../../processes/provisioning/contract.js';
import type { CreateRcsSenderRequest } from '../../platform/provisioning/rcs-senders.js';
import { conversationWebhookSignature } from '../../common/signing.js';
import { uniqueName, type Harness } from './harness.js';
import { PlatformNotFoundError } from '../../platform/errors.js';

export interface View {
  processId: string;
  statusSource?: 'workflow' | 'search-attributes';
  state: string;
  kind: string;
  history: { state: string; at: string; reason?: string }[];
  details: Record<string, unknown> & {
    events: { eventId: string; trigger: string; sequence?: number; applied: boolean; hint?: boolean; note?: string }[];
    comments: { text: string; eventId?: string }[];
    overdue: boolean;
    duplicateEvents: number;
    polls: number;
  };
  execution: { status: string };
  failure?: string;
}

async function control(h: Harness, method: 'PUT' | 'POST' | 'GET', path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${h.sandbox.url}/_sandbox/provisioning${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const text = await res.text();
  assert.ok(res.ok, `sandbox ${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

export const setReviewer = (h: Harness, config: Record<string, unknown>) => control(h, 'PUT', '/reviewer', config);
/** PUT replaces the whole setting: fields left out are cleared. */
export const setWebhookFaults = (h: Harness, faults: Record<string, unknown>) => control(h, 'PUT', '/webhook-faults', faults);
/** The webhook body's shape: `{shape: 'minimal', resourceAt?}` sends only the trigger, comment and resource JSON. */
export const setWebhookEnvelope = (h: Harness, setting: Record<string, unknown>) => control(h, 'PUT', '/webhook-envelope', setting);
export const reviewerEvent = (h: Harness, event: Record<string, unknown>) => control(h, 'POST', '/events', event);

export interface SandboxEventRecord {
  event: { eventId: string; trigger: string; resourceId: string; sequence: number };
  body: Record<string, unknown>;
  delivery: string;
  duplicated: boolean;
  reordered: boolean;
}
export const sandboxEvents = async (h: Harness, resourceId: string) =>
  ((await control(h, 'GET', '/events')).events as SandboxEventRecord[]).filter((r) => r.event.resourceId === resourceId);

export async function sandboxRequests(h: Harness, method: string, pathPart: string): Promise<{ method: string; path: string; status: number }[]> {
  const res = await fetch(`${h.sandbox.url}/_sandbox/requests?area=provisioning&method=${method}`);
  const all = ((await res.json()) as { requests: { method: string; path: string; status: number }[] }).requests;
  return all.filter((r) => r.path.includes(pathPart));
}

export async function view(h: Harness, processId: string): Promise<View> {
  const res = await h.api({ method: 'GET', url: `/v1/processes/${encodeURIComponent(processId)}` });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

/** Polls the process until `ok` holds (or fails the test with the last view). */
export const waitUntil = (h: Harness, processId: string, ok: (v: View) => boolean, what: string, timeoutMs = 20_000): Promise<View> =>
  h.waitForView<View & Record<string, unknown>>(processId, ok, what, timeoutMs);

const states = (v: View) => v.history.map((s) => s.state);
/** States in order with consecutive repeats (overdue notes, quality updates) folded. */
export const stateChanges = (v: View) => states(v).filter((s, i, all) => i === 0 || all[i - 1] !== s);

export async function start(h: Harness, url: string, body: Record<string, unknown>, expected = 202): Promise<string> {
  const res = await h.api({ method: 'POST', url, payload: body });
  assert.equal(res.statusCode, expected, res.body);
  return res.json<{ processId: string }>().processId;
}

export function templateBody(name: string, more: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    language: 'en_US',
    category: 'MARKETING',
    components: [{ type: 'BODY', text: 'Hello {{1}}, your order is on its way' }],
    ...more,
  };
}

/** An RCS sender's own fields (FR, multi-use), without the questionnaire's answers or a launch contact. */
export function rcsSenderFields(displayName: string, more: Record<string, unknown> = {}): CreateRcsSenderRequest {
  return {
    displayName,
    description: 'Order updates from a test brand',
    websites: [{ url: 'https://example.com' }],
    brandPhoneNumber: '+33612345678',
    banner: { url: 'https://example.com/banner.png', width: 1440, height: 448 },
    useCase: 'MULTIUSE',
    countries: ['FR'],
    ...more,
  };
}

/** A whole RCS sender start: its fields, the answers and a launch contact. */
export function rcsBody(displayName: string, more: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...rcsSenderFields(displayName),
    answers: { brand_description: 'A shop', message_types: 'Order updates', opt_in: 'At checkout', opt_out: 'Reply STOP', siren: '123456789' },
    contact: { email: 'launch@example.com' },
    ...more,
  };
}

let numberCounter = 0;
/** A fresh valid French mobile number per call. */
export function freshMobile(): string {
  numberCounter += 1;
  return `+3361${String(process.pid % 1000).padStart(3, '0')}${String(numberCounter).padStart(4, '0')}`;
}

export async function update(h: Harness, processId: string, base: 'templates' | 'senders', action: string, body: Record<string, unknown> = {}, key?: string) {
  return h.api({
    method: 'POST',
    url: `/v1/${base}/${encodeURIComponent(processId)}/${action}`,
    payload: body,
    ...(key ? { headers: { 'idempotency-key': key } } : {}),
  });
}

/** A webhook delivery signed as the platform signs it (conversation webhook scheme). */
export function signedDelivery(secret: string, payload: unknown, opts: { nonce?: string; timestamp?: number } = {}) {
  const raw = JSON.stringify(payload);
  const nonce = opts.nonce ?? ulid();
  const timestamp = String(opts.timestamp ?? Math.floor(Date.now() / 1000));
  return {
    payload: raw,
    headers: {
      'content-type': 'application/json',
      'x-platform-webhook-signature': conversationWebhookSignature(secret, raw, nonce, timestamp),
      'x-platform-webhook-signature-nonce': nonce,
      'x-platform-webhook-signature-timestamp': timestamp,
      'x-platform-webhook-signature-algorithm': 'HmacSHA256',
    },
  };
}

/** Delivers an event to the intake route as the platform would (e.g. a late copy of an old event). */
export async function deliverWebhook(h: Harness, event: Record<string, unknown>): Promise<number> {
  const res = await h.app.inject({ method: 'POST', url: PROVISIONING_WEBHOOK_PATH, ...signedDelivery(h.config.api.provisioningWebhookSecret!, event) });
  return res.statusCode;
}

/**
 * Starts a CHATA template approval for `name` straight on the client, with a history limit of 50 (so it
 * continues as new within a test), and waits until it is APPROVED: its handle, process ID and template ID.
 */
export async function startApprovedTemplate(h: Harness, name: string) {
  const projectId = h.config.platform.credentials.projectId;
  const processId = workflowIds['chata-template'](projectId, name, 'en_US');
  const input: TemplateApprovalInput = {
    channel: 'CHATA',
    projectId,
    template: { name, language: 'en_US', category: 'UTILITY', components: [{ type: 'BODY', text: 'Your code is ready' }] },
    pollIntervalMs: 60_000,
    overdueAfterMs: 600_000,
    historyLimit: 50,
  };
  const handle = await h.client.workflow.start('templateApproval', {
    workflowId: processId,
    taskQueue: h.config.taskQueue,
    args: [input],
    typedSearchAttributes: [
      { key: KIND, value: 'chata-template' },
      { key: STATE, value: 'CREATING' },
    ],
  });
  const approved = await h.waitForState(processId, 'APPROVED');
  return { handle, processId, templateId: (approved.details as { templateId: string }).templateId };
}

/** A comment event on resource `r`, number `sequence` of its events, as the platform sends it. */
export const commentEvent = (r: ResourceRef, sequence: number): ProvisioningEvent => ({
  eventId: ulid(),
  projectId: 'sandbox-project',
  trigger: 'RCS_SENDER_COMMENT_ADDED',
  ...r,
  sequence,
  eventTime: new Date().toISOString(),
  comment: `c${sequence}`,
  details: {},
});

/**
 * An onboarding whose CHATB sender the reviewer rejects: its step FAILED, the template that needs it BLOCKED. Returns
 * once the onboarding waits for the caller (the reviewer still rejects: a test that fixes the cause sets it again).
 */
export async function startBlockedOnboarding(h: Harness, name: string): Promise<{ id: string; waiting: View }> {
  await setReviewer(h, { chatbSenders: { outcome: 'reject', delayMs: 200 } });
  const key = uniqueName(name);
  const res = await h.api({
    method: 'POST',
    url: '/v1/onboardings',
    payload: {
      key,
      subproject: { displayName: uniqueName('team') },
      bundle: { displayName: 'Acme', region: 'EU' },
      webhook: { target: `https://hooks.example.com/${key}`, secret: 'a-secret-of-some-length' },
      chatbSenders: [{ step: 'chatb', displayName: uniqueName('Brand'), categoryCode: 'RETAIL' }],
      templates: [{ step: 'welcome', sender: 'chatb', ...templateBody(uniqueName('welcome').replace(/-/g, '_')) }],
    },
  });
  assert.equal(res.statusCode, 202, res.body);
  const id = res.json<{ processId: string }>().processId;
  return { id, waiting: await waitUntil(h, id, (v) => v.state === 'WAITING_FOR_CALLER', 'waiting for the caller', 90_000) };
}

/** The platform's answer, or 404 when it says the resource does not exist. */
export async function readOr404<T>(get: () => Promise<T>): Promise<T | 404> {
  try {
    return await get();
  } catch (err) {
    if (err instanceof PlatformNotFoundError) return 404;
    throw err;
  }
}
