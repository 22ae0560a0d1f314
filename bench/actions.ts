// Temporal actions benchmark: what one verification, one incoming call, one callout and one customer onboarding
// cost in Temporal actions (as Temporal Cloud bills them: run starts, activity attempts, timers, signals, updates,
// search attribute upserts, markers, child starts), counted from the histories (bench/action-counts.ts) of every
// workflow each made: the process, and what it started (a verification's per-number guard, an onboarding's child
// processes and their resources' inboxes). Each scenario runs alone through the API against the sandbox, in turn,
// once per round. Heartbeats are billed too but are not in histories; none of these processes' activities heartbeat.
// The targets are ceilings set just above the counts measured when the benchmark was written: an alarm for a
// change that adds actions, not a goal. (Campaign actions per 1,000 messages: bench/campaign.ts.)
//   RELAYFLOW_BENCH_PROFILE=short|full npx tsx bench/actions.ts
import type { Client } from '@temporalio/client';
import { nodeTransport } from '../common/http-transport.js';
import { uniqueName } from '../test/helpers/harness.js';
import { rcsBody, setReviewer, templateBody } from '../test/helpers/provisioning.js';
import { brandRegistration, setReviewer as setSenderIdReviewer, wireSenderId } from '../test/helpers/senderid.js';
import { hangUp, incomingCall, OWN_NUMBERS, phone, voiceClient, voiceSettings, wireVoice } from '../test/helpers/voice.js';
import { countActions, type ActionCounts } from './action-counts.js';
import { benchProfile, exitWhenDone, log, shutdown, sleep, startStack } from './bench-stack.js';
import { emitBenchResult, type BenchRow } from './result.js';

const profile = benchProfile();
const ROUNDS = profile === 'short' ? 1 : 3;

/** Ceilings: today's counts (see the commit that set them) plus a little room for timing (a check more or less). */
const CEILINGS: Record<string, number> = {
  verification: 20, // 17 and 18 measured
  'incoming call': 10, // 8 and 9
  callout: 9, // 8
  onboarding: 155, // 142 to 147
};

const { server, h } = await startStack();
const never = new AbortController().signal;

/** Every workflow ID the server has seen so far. */
async function workflowIdsNow(client: Client): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for await (const w of client.workflow.list()) ids.set(w.workflowId, w.type);
  return ids;
}

async function untilClosed(workflowId: string, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = (await h.client.workflow.getHandle(workflowId).describe()).status.name;
    if (status !== 'RUNNING') return status;
    if (Date.now() > deadline) throw new Error(`${workflowId} still running after ${timeoutMs} ms`);
    await sleep(200);
  }
}

async function api(method: string, url: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await h.api({ method: method as 'POST', url, ...(body === undefined ? {} : { payload: body as Record<string, unknown> }) });
  return { status: res.statusCode, json: res.body ? (res.json() as Record<string, unknown>) : {} };
}

let numbers = 0;
/** Each scenario runs one process to its end; it returns the process's ID and what it ended as. */
const SCENARIOS: Record<string, () => Promise<{ processId: string; ended: string }>> = {
  async verification() {
    // A fresh number: the verification pays for its own per-number guard.
    const identity = `+4673${String(process.pid % 1000).padStart(3, '0')}${String(++numbers).padStart(4, '0')}`;
    const started = await api('POST', '/v1/verifications', { identity, method: 'sms' });
    if (started.status !== 201) throw new Error(`verification start: ${started.status} ${JSON.stringify(started.json)}`);
    const { processId, current } = started.json as { processId: string; current: { verificationId: string } };
    const phoneInbox = await nodeTransport(new URL(`${h.sandbox.url}/_sandbox/verification/phones/${encodeURIComponent(identity)}`), {
      method: 'GET',
      headers: {},
      signal: never,
    });
    const code = (JSON.parse(phoneInbox.text) as { messages: { verificationId: string; code: string }[] }).messages.find(
      (m) => m.verificationId === current.verificationId,
    )!.code;
    const reported = await api('POST', `/v1/verifications/${encodeURIComponent(processId)}/report`, { code });
    if (reported.json.result !== 'SUCCESSFUL') throw new Error(`verification report: ${JSON.stringify(reported.json)}`);
    // It stays open for the platform's result callback, which closes it.
    await untilClosed(processId, 20_000);
    return { processId, ended: 'SUCCESSFUL' };
  },
  async 'incoming call'() {
    const { callId } = await incomingCall(h, phone(), OWN_NUMBERS[0]);
    const processId = `voice-incoming:${callId}`;
    await h.waitForState(processId, 'CONNECTED', 20_000);
    await hangUp(h, callId);
    await h.waitForState(processId, 'ENDED', 20_000);
    await untilClosed(processId, 20_000);
    return { processId, ended: 'ENDED' };
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
    await h.waitForState(processId, 'COMPLETED', 30_000);
    await untilClosed(processId, 20_000);
    return { processId, ended: 'COMPLETED' };
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
    const ended = await untilClosed(processId, 90_000);
    const view = await api('GET', `/v1/processes/${encodeURIComponent(processId)}`);
    if (view.json.state !== 'COMPLETED') throw new Error(`onboarding ended ${String(view.json.state)} (${ended}): ${JSON.stringify(view.json).slice(0, 2000)}`);
    return { processId, ended: 'COMPLETED' };
  },
};

const totals: Record<string, number[]> = Object.fromEntries(Object.keys(SCENARIOS).map((s) => [s, []]));
const notes: string[] = [];
const sum = (cs: ActionCounts[], f: (c: ActionCounts) => number) => cs.reduce((a, c) => a + f(c), 0);
try {
  log('wiring the sandbox: voice callbacks and numbers, a connect rule, sender ID callbacks, fast reviewers');
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

  log(`${profile} profile: ${ROUNDS} round(s) of ${Object.keys(SCENARIOS).join(', ')}, one at a time`);
  for (let round = 0; round < ROUNDS; round++) {
    log(`round ${round + 1} of ${ROUNDS}`);
    for (const [name, scenario] of Object.entries(SCENARIOS)) {
      const before = await workflowIdsNow(h.client);
      const t0 = Date.now();
      const { processId } = await scenario();
      await sleep(1_000); // the last closes reach visibility
      const made = [...(await workflowIdsNow(h.client))].filter(([id]) => !before.has(id));
      const counts = await Promise.all(made.map(([id]) => countActions(h.client, id, 60_000)));
      const total = sum(counts, (c) => c.total);
      totals[name]!.push(total);
      const byKind: Record<string, number> = {};
      for (const c of counts) for (const [k, n] of Object.entries(c.byKind)) if (n) byKind[k] = (byKind[k] ?? 0) + n;
      const byType: Record<string, number> = {};
      made.forEach(([, type], i) => (byType[type] = (byType[type] ?? 0) + counts[i]!.total));
      const kinds = Object.entries(byKind)
        .map(([k, n]) => `${n} ${k}`)
        .join(', ');
      const types = Object.entries(byType)
        .map(([t, n]) => `${t} ${n}`)
        .join(', ');
      log(
        `  ${name.padEnd(13)} ${String(total).padStart(4)} actions in ${made.length} workflow(s), ${((Date.now() - t0) / 1000).toFixed(1)} s: ${kinds}; by workflow: ${types}`,
      );
      if (round === ROUNDS - 1)
        notes.push(
          `${name} (${processId.split(':')[0]}): ${total} actions in ${made.length} workflow(s), ${sum(counts, (c) => c.events)} history events; ${kinds}; by workflow type: ${types}`,
        );
    }
  }
  notes.unshift(
    `${profile} profile: ${ROUNDS} round(s); each scenario alone, through the API against the sandbox; actions counted from the histories of every workflow the scenario started (the process, a verification's number guard, an onboarding's children and inboxes), once the process had closed`,
    "verification: SMS, code reported, closed by the platform's result callback; incoming call: ICE to a connect rule, ACE, hang-up (DiCE); callout: text-to-speech, answered; onboarding: subproject, bundle, webhook, RCS and CHATB senders, a template and a sender ID registration, reviewers deciding after 200 ms (the template keeps watching after the onboarding completes: counted up to then)",
    'targets are ceilings set just above the counts measured when this benchmark was written, so an added action fails the alarm: not goals; heartbeats are not in histories (none of these activities heartbeats)',
  );
} finally {
  await shutdown([
    ['worker, API and sandbox', () => h.close()],
    [`Temporal server (${server.target})`, () => server.stop()],
  ]);
}

emitBenchResult({
  bench: 'actions',
  target: server.target,
  rounds: ROUNDS,
  rows: Object.entries(totals).map(([name, values]): BenchRow => ({
    figure: `Temporal actions per ${name}`,
    unit: 'actions',
    baseline: 'none (a ceiling)',
    relayflow: values,
    baselineValues: [],
    ratios: [],
    ...(CEILINGS[name] ? { target: { of: 'value', op: '<=', bound: CEILINGS[name]! } } : {}),
  })),
  notes,
});
exitWhenDone();
