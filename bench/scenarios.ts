// One process of each kind, run to its end through the API against the sandbox: what bench/actions.ts counts
// Temporal actions over and bench/worker-cpu.ts measures worker CPU over. Waits use describe() (not the process's
// query) where they can, so the waiting costs the worker nothing.
import type { Harness } from '../test/helpers/harness.js';
import { uniqueName } from '../test/helpers/harness.js';
import { rcsBody, setReviewer, templateBody } from '../test/helpers/provisioning.js';
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
  await setReviewer(h, {
    templates: { outcome: 'approve', delayMs: 200 },
    rcs: { outcome: 'launch', delayMs: 200 },
    chatbSenders: { outcome: 'activate', delayMs: 200 },
  });
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
