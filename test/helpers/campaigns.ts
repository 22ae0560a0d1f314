// Campaign tests: recipients stored and the workflow started directly (the API has its own tests), the
// sandbox's apps and counts, and waiting for a campaign's state.
import { ulid } from 'ulid';
import { KIND, STATE } from '../../common/search-attributes.js';
import type {
  CampaignInput,
  CampaignKind,
  CampaignSettings,
  CampaignState,
  ConversationContent,
  MmsContent,
  QuietHours,
} from '../../processes/campaigns/contract.js';
import { workflowIds } from '../../processes/kinds.js';
import { processStatusQuery, type ProcessStatus } from '../../contracts/process-status.js';
import type { CampaignCounts } from '../../store/index.js';
import { pollGaps } from './deadline.js';
import type { Harness } from './harness.js';

/** Distinct valid numbers: +4670<7 digits> (Swedish mobiles). */
export const numbers = (n: number, offset = 0) => Array.from({ length: n }, (_, i) => `+4670${String(offset + i).padStart(7, '0')}`);

export async function sandboxJson<T = Record<string, unknown>>(h: Harness, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${h.sandbox.url}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`sandbox ${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

export async function createApp(h: Harness, outboundRate: number, region: 'us' | 'eu' | 'br' = 'eu'): Promise<string> {
  const app = await sandboxJson<{ id: string }>(h, 'POST', '/_sandbox/conversation/apps', { region, outboundRate });
  return app.id;
}

export interface SandboxStats {
  accepted: number;
  distinctRecipients: number;
  duplicateRecipients: number;
  requests: number;
}

/** Message ID by metadata (token) of every message the platform took for the app, read as a caller would (Basic key). */
export async function platformMessageIds(h: Harness, appId: string, region: 'us' | 'eu' | 'br' = 'eu'): Promise<Map<string, string>> {
  const { projectId, keyId, keySecret } = h.config.platform.credentials;
  const base = `${h.config.platform.urls.conversation[region].replace(/\/+$/, '')}/v1/projects/${encodeURIComponent(projectId)}/messages`;
  const ids = new Map<string, string>();
  for (let token = ''; ;) {
    const res = await fetch(`${base}?app_id=${appId}&page_size=1000${token ? `&page_token=${token}` : ''}`, {
      headers: { authorization: `Basic ${Buffer.from(`${keyId}:${keySecret}`).toString('base64')}` },
    });
    if (!res.ok) throw new Error(`sandbox messages: ${res.status} ${await res.text()}`);
    const page = (await res.json()) as { messages: { id: string; metadata: string }[]; next_page_token: string };
    for (const m of page.messages) ids.set(m.metadata, m.id);
    token = page.next_page_token;
    if (!token) return ids;
  }
}

export const conversationStats = (h: Harness, appId: string) =>
  sandboxJson<SandboxStats & { refused429: number }>(h, 'GET', `/_sandbox/conversation/stats?appId=${appId}`);
export const mmsStats = (h: Harness) => sandboxJson<SandboxStats & { refusedE113: number; saved: number }>(h, 'GET', '/_sandbox/mms/stats');

export interface StartCampaign {
  kind: CampaignKind;
  recipients: string[];
  /** Each recipient's values for the message's placeholders, by index (stored with its row). */
  params?: Record<string, string>[];
  conversation?: ConversationContent;
  mms?: MmsContent;
  rate?: number;
  startAt?: string;
  quietHours?: QuietHours;
  settings?: Partial<CampaignSettings>;
}

export async function startCampaign(h: Harness, c: StartCampaign): Promise<{ processId: string; campaignId: string }> {
  const campaignId = ulid();
  const processId = workflowIds[c.kind](h.config.platform.credentials.projectId, ulid());
  await h.store.createCampaign({
    id: campaignId,
    processId,
    kind: c.kind,
    requestHash: 'test',
    total: c.recipients.length,
    duplicates: 0,
    recipients: c.recipients.map((recipient, seq) => ({ seq, recipient, status: 'pending', ...(c.params?.[seq] ? { params: c.params[seq] } : {}) })),
  });
  const s = h.config.processes.campaigns;
  const input: CampaignInput = {
    campaignId,
    kind: c.kind,
    ...(c.conversation ? { conversation: c.conversation } : {}),
    ...(c.mms ? { mms: c.mms } : {}),
    ...(c.rate ? { rate: c.rate } : {}),
    ...(c.startAt ? { startAt: c.startAt } : {}),
    ...(c.quietHours ? { quietHours: c.quietHours } : {}),
    settings: {
      chunkSize: s.chunkSize,
      sendTaskQueue: s.sendTaskQueue,
      controlTaskQueue: s.controlTaskQueue,
      heartbeatTimeoutMs: s.heartbeatTimeoutMs,
      inDoubtWaitMs: s.inDoubtWaitMs,
      ...c.settings,
    },
  };
  await h.client.workflow.start('campaign', {
    taskQueue: h.config.taskQueue,
    workflowId: processId,
    args: [input],
    typedSearchAttributes: [
      { key: KIND, value: c.kind },
      { key: STATE, value: c.startAt ? 'SCHEDULED' : 'PREPARING' },
    ],
  });
  return { processId, campaignId };
}

const campaignStatus = (h: Harness, processId: string) =>
  h.client.workflow.getHandle(processId).query(processStatusQuery) as Promise<ProcessStatus<CampaignState>>;

/** Waits for one of `states`, failing with the last status seen. */
export async function waitForCampaign(h: Harness, processId: string, states: CampaignState[], timeoutMs = 60_000): Promise<ProcessStatus<CampaignState>> {
  const deadline = Date.now() + timeoutMs;
  const pause = pollGaps();
  let last: ProcessStatus<CampaignState> | undefined;
  while (Date.now() < deadline) {
    last = await campaignStatus(h, processId).catch(() => last);
    if (last && states.includes(last.state)) return last;
    await pause();
  }
  throw new Error(`campaign ${processId} did not reach ${states.join('|')} in ${timeoutMs} ms; last: ${JSON.stringify(last)}`);
}

export async function waitForCounts(h: Harness, campaignId: string, ok: (c: CampaignCounts) => boolean, timeoutMs = 30_000): Promise<CampaignCounts> {
  const deadline = Date.now() + timeoutMs;
  const pause = pollGaps();
  let last: CampaignCounts | undefined;
  while (Date.now() < deadline) {
    last = await h.store.counts(campaignId);
    if (last && ok(last)) return last;
    await pause();
  }
  throw new Error(`campaign ${campaignId} counts not as expected in ${timeoutMs} ms; last: ${JSON.stringify(last)}`);
}

/** Reads the campaign through the API (`GET /v1/campaigns/{id}`) until `ok`, failing with the last view seen. */
export async function waitForCampaignView<V>(h: Harness, processId: string, ok: (v: V) => boolean, timeoutMs = 60_000): Promise<V> {
  const deadline = Date.now() + timeoutMs;
  const pause = pollGaps();
  let last = {} as V;
  while (Date.now() < deadline) {
    const res = await h.api({ method: 'GET', url: `/v1/campaigns/${encodeURIComponent(processId)}` });
    if (res.statusCode === 200) {
      last = res.json();
      if (ok(last)) return last;
    }
    await pause();
  }
  throw new Error(`campaign ${processId}: not as expected; last ${JSON.stringify(last)}`);
}
