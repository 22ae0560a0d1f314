// The kinds of process the fault suite runs, each with how to start it through the API (as a client would:
// the same request again until it is answered), the state it ends in, what a user does meanwhile, and how to
// count what it made on the platform, from the sandbox's own records.
import { ulid } from 'ulid';
import { BUNDLE_KEY_LABEL } from '../../processes/provisioning/contract.js';
import type { Rig } from './rig.js';

export interface Started {
  kind: string;
  processId: string;
  /** The name the platform's record carries (display name, template name, sender ID, phone number). */
  name: string;
}

export interface FaultScenarioKind {
  kind: string;
  final: string;
  start(rig: Rig): Promise<Started>;
  /** What the user does once the process is under way (a verification: the code from the SMS). */
  drive?(rig: Rig, s: Started): Promise<void>;
  /** How many of this process's resources (or SMS) the platform holds: 1 is right. */
  count(rig: Rig, s: Started): Promise<number>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const suffix = () => ulid().slice(-8).toLowerCase();

/** The process an `idempotency_key_spent` answer names (api: its detail's message), if it is one. */
function spentKeyProcess(res: { status: number; body: Record<string, unknown> }): string | undefined {
  const error = res.body.error as { code?: string; details?: { message?: string }[] } | undefined;
  return res.status === 409 && error?.code === 'idempotency_key_spent' ? error.details?.[0]?.message : undefined;
}

/**
 * Sends the request until relayflow answers `ok` statuses, as a client with retries would: the API may be
 * down, or answer 503/504 while its worker or Temporal is. Retrying must never make a second process.
 */
async function untilAnswered(
  rig: Rig,
  method: string,
  path: string,
  body: unknown,
  ok: number[],
  headers: Record<string, string> = {},
  timeoutMs = 90_000,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const res = await rig.api(method, path, body, headers);
      if (ok.includes(res.status)) return res.body;
      // The key's first request started a process that ended before this retry (its start outlived the deadline
      // on a loaded machine: the caller got a 504 and the process ended ABANDONED). A client reads that process;
      // the count then reports its end state, instead of the round failing without one.
      const spent = spentKeyProcess(res);
      if (spent) return { processId: spent };
      last = `${res.status} ${JSON.stringify(res.body)}`;
      if (res.status < 500 && res.status !== 429 && res.status !== 409) throw new Error(`${method} ${path}: ${last}`);
    } catch (err) {
      if (err instanceof Error && err.message.startsWith(method)) throw err;
      last = String(err);
    }
    await sleep(250);
  }
  throw new Error(`${method} ${path} not answered within ${timeoutMs} ms: ${last}`);
}

/** Starts a process through the API (until answered) and names what it will make on the platform. */
async function startVia(
  rig: Rig,
  kind: string,
  path: string,
  body: unknown,
  name: string,
  ok = [200, 202],
  headers: Record<string, string> = {},
): Promise<Started> {
  const res = await untilAnswered(rig, 'POST', path, body, ok, headers);
  return { kind, processId: res.processId as string, name };
}

async function countAll<T>(items: AsyncIterable<T>, match: (t: T) => boolean): Promise<number> {
  let n = 0;
  for await (const item of items) if (match(item)) n++;
  return n;
}

/** Matches over every page of a paged list. */
async function countPaged(page: (token: string | undefined) => Promise<{ matching: number; next: string }>): Promise<number> {
  let n = 0;
  let token: string | undefined;
  do {
    const p = await page(token);
    n += p.matching;
    token = p.next || undefined;
  } while (token);
  return n;
}

const subproject: FaultScenarioKind = {
  kind: 'subproject',
  final: 'READY',
  async start(rig) {
    const name = `fault-sub-${suffix()}`;
    return startVia(rig, this.kind, '/v1/subprojects', { displayName: name }, name);
  },
  count: async (rig, s) => (await subprojectsNamed(rig, s.name)).length,
};

/** The IDs of the platform project's subprojects named `name`, from every page. */
async function subprojectsNamed(rig: Rig, name: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const p of rig.platform.subprojects.listAll(rig.platform.provisioning.projectId, { pageSize: 100 }))
    if (p.displayName === name) ids.push(p.projectId);
  return ids;
}

const template: FaultScenarioKind = {
  kind: 'template',
  final: 'APPROVED',
  async start(rig) {
    const name = `fault_tpl_${suffix()}`;
    const body = { name, language: 'en_US', category: 'MARKETING', components: [{ type: 'BODY', text: 'Hello {{1}}, your order is on its way' }] };
    return startVia(rig, this.kind, '/v1/templates/chata', body, name);
  },
  count: (rig, s) => countAll(rig.platform.provisioning.chataTemplates.listAll(), (t) => t.name === s.name),
};

const sender: FaultScenarioKind = {
  kind: 'sender',
  final: 'ACTIVE',
  async start(rig) {
    const name = `Fault sender ${suffix()}`;
    return startVia(rig, this.kind, '/v1/senders/chatb', { displayName: name, categoryCode: 'RETAIL' }, name);
  },
  count: (rig, s) => countAll(rig.platform.provisioning.chatbSenders.listAll(), (x) => x.displayName === s.name),
};

const senderId: FaultScenarioKind = {
  kind: 'sender ID',
  final: 'APPROVED',
  async start(rig) {
    const name = `F${suffix().slice(0, 8).toUpperCase()}`.replace(/[^A-Z0-9]/g, 'X');
    const body = {
      key: `fault-${suffix()}`,
      policyId: 'pol-au-alpha-brand',
      marketCode: 'AU',
      registrationType: 'ALPHANUMERIC_SENDER_ID',
      requestDetails: [
        {
          senderIdDetails: [{ senderId: name }],
          additionalDetails: [{ companyName: 'Acme Pty', website: 'https://acme.example', email: 'ops@acme.example', useCase: 'TRANSACTIONAL' }],
        },
      ],
    };
    return startVia(rig, this.kind, '/v1/senderid/registrations', body, name);
  },
  count: (rig, s) =>
    countPaged(async (token) => {
      const page = await rig.platform.senderid.listRegistrations({ senderId: s.name, pageSize: 100, ...(token ? { pageToken: token } : {}) });
      return { matching: page.registrations.length, next: page.nextPageToken };
    }),
};

const bundle: FaultScenarioKind = {
  kind: 'bundle',
  final: 'ACTIVE',
  async start(rig) {
    const name = `fault-bundle-${suffix()}`;
    return startVia(rig, this.kind, '/v1/bundles', { key: name, displayName: 'Acme', region: 'EU' }, name);
  },
  count: (rig, s) => countAll(rig.platform.provisioning.bundles.listAll(), (b) => b.labels[BUNDLE_KEY_LABEL] === s.name),
};

/** An onboarding of a subproject, a CHATB sender and its template: each a child process of its own. */
const onboarding: FaultScenarioKind = {
  kind: 'onboarding',
  final: 'COMPLETED',
  async start(rig) {
    const name = `fault-onb-${suffix()}`;
    const body = {
      key: name,
      subproject: { displayName: name },
      chatbSenders: [{ step: 'chatb', displayName: name, categoryCode: 'RETAIL' }],
      templates: [
        {
          step: 'welcome',
          sender: 'chatb',
          name: name.replace(/-/g, '_'),
          language: 'en_US',
          category: 'MARKETING',
          components: [{ type: 'BODY', text: 'Welcome {{1}}' }],
        },
      ],
    };
    return startVia(rig, this.kind, '/v1/onboardings', body, name);
  },
  // Each step's resource once: none missing (0), none twice (the largest count). The sender and its template are made
  // in the customer's subproject; one in the platform project would be a second (a step run in the wrong place).
  async count(rig, s) {
    const subprojects = await subprojectsNamed(rig, s.name);
    const projects = [rig.platform.provisioning, ...subprojects.map((id) => rig.platform.provisioning.forProject(id))];
    const inEach = async (count: (p: (typeof projects)[number]) => Promise<number>) => (await Promise.all(projects.map(count))).reduce((a, b) => a + b, 0);
    const counts = [
      subprojects.length,
      await inEach((p) => countAll(p.chatbSenders.listAll(), (x) => x.displayName === s.name)),
      await inEach((p) => countAll(p.chatbTemplates.listAll(), (t) => t.name === s.name.replace(/-/g, '_'))),
    ];
    return Math.min(...counts) === 0 ? 0 : Math.max(...counts);
  },
};

const CAMPAIGN_RECIPIENTS = 60;

/** A conversation campaign of 60 recipients on an app of its own at 20 a second: a few seconds of sending. */
const campaign: FaultScenarioKind = {
  kind: 'campaign',
  final: 'COMPLETED',
  async start(rig) {
    const app = await rig.sandboxControl('POST', '/conversation/apps', { region: 'eu', outboundRate: 20 });
    const name = app.id as string;
    const recipients = Array.from({ length: CAMPAIGN_RECIPIENTS }, (_, i) => `+4670${String(i).padStart(7, '0')}`);
    const body = { key: `fault-${suffix()}`, appId: name, region: 'eu', message: { text: 'Hi' }, recipients };
    return startVia(rig, this.kind, '/v1/campaigns/conversation', body, name);
  },
  // Messages the platform accepted on the campaign's app: every recipient once is 1; one missing is 0.
  async count(rig, s) {
    const stats = (await rig.sandboxControl('GET', `/conversation/stats?appId=${s.name}`)) as { distinctRecipients: number; duplicateRecipients: number };
    if (stats.distinctRecipients < CAMPAIGN_RECIPIENTS) return 0;
    return 1 + stats.duplicateRecipients;
  },
};

let phoneCounter = 0;
const verification: FaultScenarioKind = {
  kind: 'verification',
  final: 'SUCCESSFUL',
  async start(rig) {
    phoneCounter += 1;
    const name = `+4670${String(process.pid % 1000).padStart(3, '0')}${String(9000 + phoneCounter).padStart(4, '0')}`;
    // A client that retries a start sends its Idempotency-Key again: the retry reaches the same process.
    const key = `fault-${suffix()}`;
    return startVia(rig, this.kind, '/v1/verifications', { identity: name, method: 'sms', reference: key }, name, [201], { 'idempotency-key': key });
  },
  async drive(rig, s) {
    const deadline = Date.now() + 60_000;
    let code: string | undefined;
    while (!code && Date.now() < deadline) {
      code = (await sms(rig, s.name)).at(-1)?.code;
      if (!code) await sleep(200);
    }
    // No SMS: the platform denied it (its request event, asked once, met relayflow down) or never sent it. The
    // count reports the process's end state and the missing SMS; the rest of the row is still counted.
    if (!code) return;
    await untilAnswered(rig, 'POST', `/v1/verifications/${encodeURIComponent(s.processId)}/report`, { code }, [200], {
      'idempotency-key': `report-${s.processId}`,
    });
  },
  count: async (rig, s) => (await sms(rig, s.name)).length,
};

async function sms(rig: Rig, phone: string): Promise<{ code?: string; kind: string }[]> {
  const messages = (await rig.sandboxControl('GET', `/verification/phones/${encodeURIComponent(phone)}`)).messages as {
    code?: string;
    kind: string;
    method: string;
  }[];
  return messages.filter((m) => m.method === 'sms');
}

export const KINDS: readonly FaultScenarioKind[] = [subproject, template, sender, senderId, verification, bundle, onboarding, campaign];
