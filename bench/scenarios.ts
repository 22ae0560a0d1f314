// One process of each kind, run to its end through the API against the sandbox: what bench/actions.ts counts
// Temporal actions over and bench/worker-cpu.ts measures worker CPU over; and provisioning webhooks, for a
// resource a waiting process has claimed and for one nobody has. Waits use describe() (not the process's
// query) where they can, so the waiting costs the worker nothing.
import { ulid } from 'ulid';
import type { Harness } from '../test/helpers/harness.js';
import { uniqueName } from '../test/helpers/harness.js';
import { deliverWebhook, rcsBody, setReviewer, templateBody } from '../test/helpers/provisioning.js';
import { brandRegistration, setReviewer as setSenderIdReviewer, wireSenderId } from '../test/helpers/senderid.js';
import { messageFor } from '../test/helpers/verification.js';
import { hangUp, incomingCall, OWN_NUMBERS, phone, voiceClient, voiceSettings, wireVoice } from '../test/helpers/voice.js';
import { sleep } from './bench-stack.js';

export type BenchApi = (method: string, url: string, body?: unknown) => Promise<{ status: number; json: Record<string, unknown> }>;
export type ScenarioKind = 'verification' | 'incoming call' | 'callout' | 'template approval' | 'onboarding';
export type Scenario = () => Promise<{ processId: string; ended: string }>;

/** The API through the harness's in-process app, with its key. */
export function benchApi(h: Harness): BenchApi {
  return async (method, url, body) => {
    const res = await h.api({ method: method as 'POST', url, ...(body === undefined ? {} : { payload: body as Record<string, unknown> }) });
    return { status: res.statusCode, json: res.body ? (res.json() as Record<string, unknown>) : {} };
  };
}

/** Waits until the process's view has `field` in its details (read through the API). */
async function untilDetail(api: BenchApi, processId: string, field: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const view = await api('GET', `/v1/processes/${encodeURIComponent(processId)}`);
    if ((view.json.details as Record<string, unknown> | undefined)?.[field] !== undefined) return;
    if (Date.now() > deadline) throw new Error(`${processId} has no details.${field} after ${timeoutMs} ms: ${JSON.stringify(view.json).slice(0, 1000)}`);
    await sleep(50);
  }
}

/** Waits until the workflow is no longer running; its closing status. */
export async function untilClosed(h: Harness, workflowId: string, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = (await h.client.workflow.getHandle(workflowId).describe()).status.name;
    if (status !== 'RUNNING') return status;
    if (Date.now() > deadline) throw new Error(`${workflowId} still running after ${timeoutMs} ms`);
    await sleep(200);
  }
}

/** The sandbox wired as the scenarios need it: voice callbacks, numbers and a connect rule, sender ID callbacks, fast reviewers. */
const REVIEWERS = {
  templates: { outcome: 'approve', delayMs: 200 },
  rcs: { outcome: 'launch', delayMs: 200 },
  chatbSenders: { outcome: 'activate', delayMs: 200 },
};

export async function wireScenarios(h: Harness, api: BenchApi): Promise<void> {
  await wireVoice(h);
  await voiceClient(h).assignNumbers([...OWN_NUMBERS]);
  await voiceSettings(h, { noAnswerMs: 500, sayMs: 200 });
  const rule = await api('PUT', `/v1/voice/incoming-rules/${encodeURIComponent(OWN_NUMBERS[0])}`, {
    script: { start: { type: 'connect', number: phone(), cli: OWN_NUMBERS[0] } },
  });
  if (rule.status !== 200) throw new Error(`incoming rule: ${rule.status} ${JSON.stringify(rule.json)}`);
  await wireSenderId(h);
  await setSenderIdReviewer(h, { outcome: 'approve', stepMs: 200, pendingApproval: 'never' });
  await setReviewer(h, REVIEWERS);
}

/** A provisioning process waiting on its resource, and what that resource's webhooks name. */
export interface WebhookTarget {
  processId: string;
  resourceId: string;
}

const CHATA_TEMPLATE = { channel: 'CHATA', resourceType: 'TEMPLATE', trigger: 'CHATA_TEMPLATE_COMMENT_ADDED' } as const;
let sequence = 2_000_000;

/** A comment event on a CHATA template, as the platform sends it. */
function templateComment(h: Harness, resourceId: string): { eventId: string; event: Record<string, unknown> } {
  const eventId = `bench-${ulid()}`;
  const { channel, resourceType, trigger } = CHATA_TEMPLATE;
  const event = {
    eventId,
    projectId: h.config.platform.credentials.projectId,
    trigger,
    channel,
    resourceType,
    resourceId,
    sequence: ++sequence,
    eventTime: new Date().toISOString(),
    comment: `bench comment ${eventId}`,
    details: {},
  };
  return { eventId, event };
}

async function deliver(h: Harness, event: Record<string, unknown>): Promise<void> {
  const status = await deliverWebhook(h, event);
  if (status !== 200) throw new Error(`provisioning webhook for ${String(event.resourceId)}: ${status}`);
}

/** Waits until the process lists the event among those it took in (details.events). */
async function untilTaken(api: BenchApi, processId: string, eventId: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const view = await api('GET', `/v1/processes/${encodeURIComponent(processId)}`);
    const events = (view.json.details as { events?: { eventId: string }[] } | undefined)?.events;
    if (events?.some((e) => e.eventId === eventId)) return;
    if (Date.now() > deadline) throw new Error(`${processId} did not take in webhook ${eventId} within 30 s: ${JSON.stringify(view.json).slice(0, 1000)}`);
    await sleep(100);
  }
}

/**
 * A CHATA template approval waiting for its review (decided an hour later: never during a bench), which one comment
 * webhook has already reached: its resource is claimed by then, however the intake finds the owner.
 */
export async function waitingTemplate(h: Harness, api: BenchApi): Promise<WebhookTarget> {
  // The reviewer's decision is taken at submission: held for this one template, then the usual again.
  await setReviewer(h, { templates: { outcome: 'approve', delayMs: 3_600_000 } });
  let target: WebhookTarget;
  try {
    const res = await api('POST', '/v1/templates/chata', templateBody(uniqueName('bench_hook').replace(/-/g, '_')));
    if (res.status !== 202) throw new Error(`template start: ${res.status} ${JSON.stringify(res.json)}`);
    const processId = res.json.processId as string;
    const deadline = Date.now() + 30_000;
    for (;;) {
      const view = await api('GET', `/v1/processes/${encodeURIComponent(processId)}`);
      const resourceId = (view.json.details as { templateId?: string } | undefined)?.templateId;
      if (resourceId) {
        target = { processId, resourceId };
        break;
      }
      if (Date.now() > deadline) throw new Error(`${processId} submitted no template within 30 s: ${JSON.stringify(view.json).slice(0, 1000)}`);
      await sleep(100);
    }
  } finally {
    await setReviewer(h, REVIEWERS);
  }
  const first = templateComment(h, target.resourceId);
  await deliver(h, first.event);
  await untilTaken(api, target.processId, first.eventId);
  return target;
}

/** `n` comment webhooks for the target's resource, one at a time: each once the process has taken in the one before. */
export async function commentWebhooks(h: Harness, api: BenchApi, target: WebhookTarget, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const { eventId, event } = templateComment(h, target.resourceId);
    await deliver(h, event);
    await untilTaken(api, target.processId, eventId);
  }
}

/** `n` comment webhooks, each for a template no process has claimed (a resource made outside relayflow, say). */
export async function unclaimedWebhooks(h: Harness, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await deliver(h, templateComment(h, ulid()).event);
}

/**
 * The scenarios. `numberPrefix` keeps each bench's verified numbers apart (each verification pays for its own
 * per-number guard, so each needs a fresh number).
 */
export function processScenarios(h: Harness, api: BenchApi, numberPrefix: string): Record<ScenarioKind, Scenario> {
  let numbers = 0;
  const endedAs = async (processId: string, expected: string, closed: string): Promise<{ processId: string; ended: string }> => {
    const view = await api('GET', `/v1/processes/${encodeURIComponent(processId)}`);
    if (view.json.state !== expected) throw new Error(`${processId} ended ${String(view.json.state)} (${closed}): ${JSON.stringify(view.json).slice(0, 2000)}`);
    return { processId, ended: expected };
  };
  return {
    async verification() {
      const identity = `${numberPrefix}${String(process.pid % 1000).padStart(3, '0')}${String(++numbers).padStart(4, '0')}`;
      const started = await api('POST', '/v1/verifications', { identity, method: 'sms' });
      if (started.status !== 201) throw new Error(`verification start: ${started.status} ${JSON.stringify(started.json)}`);
      const { processId, current } = started.json as { processId: string; current: { verificationId: string } };
      const { code } = await messageFor(h, identity, current.verificationId);
      // The SMS's delivery receipt reaches the process before the code is typed, as it does for a person: the
      // order of the platform's events is fixed, so the count is the same every time.
      await untilDetail(api, processId, 'smsDelivery', 10_000);
      const reported = await api('POST', `/v1/verifications/${encodeURIComponent(processId)}/report`, { code });
      if (reported.json.result !== 'SUCCESSFUL') throw new Error(`verification report: ${JSON.stringify(reported.json)}`);
      // It stays open for the platform's result callback, which closes it.
      await untilClosed(h, processId, 30_000);
      return { processId, ended: 'SUCCESSFUL' };
    },
    async 'incoming call'() {
      const { callId } = await incomingCall(h, phone(), OWN_NUMBERS[0]);
      const processId = `voice-incoming:${callId}`;
      await h.waitForState(processId, 'CONNECTED', 30_000);
      await hangUp(h, callId);
      return endedAs(processId, 'ENDED', await untilClosed(h, processId, 30_000));
    },
    async callout() {
      const res = await api('POST', '/v1/voice/callouts/tts', {
        key: uniqueName('tts'),
        destination: phone(),
        text: 'Your parcel arrives today.',
        cli: OWN_NUMBERS[1],
      });
      if (res.status !== 202) throw new Error(`callout start: ${res.status} ${JSON.stringify(res.json)}`);
      const processId = res.json.processId as string;
      return endedAs(processId, 'COMPLETED', await untilClosed(h, processId, 30_000));
    },
    async 'template approval'() {
      // Approved, it keeps watching the template: it is not closed, the caller stops it.
      const res = await api('POST', '/v1/templates/chata', templateBody(uniqueName('bench').replace(/-/g, '_')));
      if (res.status !== 202) throw new Error(`template start: ${res.status} ${JSON.stringify(res.json)}`);
      const processId = res.json.processId as string;
      await h.waitForState(processId, 'APPROVED', 30_000);
      return { processId, ended: 'APPROVED' };
    },
    async onboarding() {
      const key = uniqueName('bench');
      const res = await api('POST', '/v1/onboardings', {
        key,
        subproject: { displayName: uniqueName('team') },
        bundle: { displayName: 'Acme', region: 'EU' },
        webhook: { target: `https://hooks.example.com/${key}`, secret: 'a-secret-of-some-length' },
        rcsSenders: [{ step: 'rcs', ...rcsBody(uniqueName('Rcs')) }],
        chatbSenders: [{ step: 'chatb', displayName: uniqueName('Brand'), categoryCode: 'RETAIL' }],
        templates: [{ step: 'welcome', sender: 'chatb', ...templateBody(uniqueName('welcome').replace(/-/g, '_')) }],
        senderIds: [{ step: 'brand', ...brandRegistration(uniqueName('brand')) }],
      });
      if (res.status !== 202) throw new Error(`onboarding start: ${res.status} ${JSON.stringify(res.json)}`);
      const processId = res.json.processId as string;
      return endedAs(processId, 'COMPLETED', await untilClosed(h, processId, 90_000));
    },
  };
}
