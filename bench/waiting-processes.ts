// Provisioning processes that wait: the start requests of each kind (CHATA and CHATB templates, RCS, CHATA and
// CHATB senders, sender ID registrations) and the sandbox settings under which none is decided during a benchmark
// (reviewers an hour away, polls an hour apart), for the webhook-intake and memory benchmarks.
import { ulid } from 'ulid';
import type { HarnessOptions } from '../test/helpers/harness.js';
import { uniqueName } from '../test/helpers/harness.js';
import { rcsBody } from '../test/helpers/provisioning.js';

const HOUR = 3_600_000;

/** Harness options: no reviewer decides and no process polls or goes overdue within the hour. */
export const waitingHarness: Pick<HarnessOptions, 'sandbox' | 'env'> = {
  sandbox: {
    provisioningReviewer: { templates: { delayMs: HOUR }, rcs: { delayMs: HOUR }, chataSenders: { delayMs: HOUR }, chatbSenders: { delayMs: HOUR } },
    rateLimits: { perProjectPerSecond: 100_000 },
  },
  env: {
    RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS: String(HOUR),
    RELAYFLOW_PROVISIONING_OVERDUE_AFTER_MS: String(24 * HOUR),
    RELAYFLOW_SENDERID_POLL_INTERVAL_MS: String(HOUR),
  },
};

/** The sender ID reviewer's settings (its own control route): a step an hour away. */
export async function holdSenderIdReviews(sandboxUrl: string): Promise<void> {
  const res = await fetch(`${sandboxUrl}/_sandbox/senderid/reviewer`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ stepMs: HOUR }),
  });
  if (!res.ok) throw new Error(`sandbox refused the sender ID reviewer setting: ${res.status} ${await res.text()}`);
}

export interface WaitingKind {
  name: string;
  route: string;
  body: () => Record<string, unknown>;
  /** For kinds that follow a provisioning resource through its inbox: where its webhooks go. */
  resource?: { channel: string; resourceType: 'TEMPLATE' | 'SENDER'; idField: 'templateId' | 'senderId'; commentTrigger: string };
}

let numbers = 0;
const freshNumber = () => `+3361${String(process.pid % 1000).padStart(3, '0')}${String(++numbers).padStart(4, '0')}`;
const components = [{ type: 'BODY', text: 'Hello {{1}}, your order is on its way' }];
const templateName = () => uniqueName('bench_tpl').replace(/-/g, '_');

export const PROVISIONING_KINDS: WaitingKind[] = [
  {
    name: 'CHATA template',
    route: '/v1/templates/chata',
    resource: { channel: 'CHATA', resourceType: 'TEMPLATE', idField: 'templateId', commentTrigger: 'CHATA_TEMPLATE_COMMENT_ADDED' },
    body: () => ({ name: templateName(), language: 'en_US', category: 'MARKETING', components }),
  },
  {
    name: 'CHATB template',
    route: '/v1/templates/chatb',
    resource: { channel: 'CHATB', resourceType: 'TEMPLATE', idField: 'templateId', commentTrigger: 'CHATB_TEMPLATE_COMMENT_ADDED' },
    body: () => ({ name: templateName(), language: 'en_US', category: 'UTILITY', components }),
  },
  {
    name: 'RCS sender',
    route: '/v1/senders/rcs',
    resource: { channel: 'RCS', resourceType: 'SENDER', idField: 'senderId', commentTrigger: 'RCS_SENDER_COMMENT_ADDED' },
    body: () => rcsBody(uniqueName('Bench sender'), { description: 'Order updates from a bench brand' }),
  },
  {
    name: 'CHATA sender',
    route: '/v1/senders/chata',
    resource: { channel: 'CHATA', resourceType: 'SENDER', idField: 'senderId', commentTrigger: 'CHATA_ACCOUNT_COMMENT_ADDED' },
    body: () => ({ phoneNumber: freshNumber(), displayName: uniqueName('Bench sender') }),
  },
  {
    name: 'CHATB sender',
    route: '/v1/senders/chatb',
    resource: { channel: 'CHATB', resourceType: 'SENDER', idField: 'senderId', commentTrigger: 'CHATB_SENDER_COMMENT_ADDED' },
    body: () => ({ displayName: uniqueName('Bench sender'), categoryCode: 'RETAIL' }),
  },
];

export const SENDER_ID_KIND: WaitingKind = {
  name: 'sender ID registration',
  route: '/v1/senderid/registrations',
  body: () => ({
    key: `bench-${ulid().toLowerCase()}`,
    policyId: 'pol-au-alpha-brand',
    marketCode: 'AU',
    registrationType: 'ALPHANUMERIC_SENDER_ID',
    requestDetails: [
      {
        senderIdDetails: [{ senderId: `B${ulid().slice(-9)}` }],
        additionalDetails: [{ companyName: 'Acme Pty', website: 'https://acme.example', email: 'ops@acme.example', useCase: 'TRANSACTIONAL' }],
      },
    ],
  }),
};
