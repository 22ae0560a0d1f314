// Shared by the conversation sandbox tests: a signed-in client per region, a webhook receiver that
// verifies every delivery with verifyConversationWebhook, and bodies for the common requests.
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { verifyConversationWebhook } from '../../common/signing.js';
import type { Sandbox, SandboxOptions } from '../../sandbox/index.js';
import { account, sandboxRequest, sandboxSuite } from './sandbox-provisioning.js';
import { Receiver, type Received } from './stub-server.js';

export { account, sleep, waitFor } from './sandbox-provisioning.js';
export const SECRET = 'conversation-webhook-secret';
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Body = any;
export type Region = 'us' | 'eu' | 'br';

interface Delivery {
  rawBody: string;
  body: Body;
  headers: IncomingHttpHeaders;
  /** verifyConversationWebhook's verdict with SECRET (nonces remembered across deliveries). */
  verified: boolean;
  reason?: string;
  /** Arrival, ms since the epoch. */
  at: number;
}

/** Records deliveries, each checked with verifyConversationWebhook; answers with the scripted statuses first, then 200. */
class ConversationReceiver extends Receiver<Delivery> {
  private readonly nonces = new Set<string>();

  constructor() {
    super('/webhooks/conversation');
  }

  /** A report's `event_time`: when the sandbox made it. */
  protected override madeAt(r: Received): number | undefined {
    const made = Date.parse((JSON.parse(r.raw) as Body).event_time);
    return Number.isNaN(made) ? undefined : made;
  }

  protected override record(r: Received): Delivery {
    const body = JSON.parse(r.raw) as Body;
    const check = verifyConversationWebhook({
      headers: r.headers,
      rawBody: r.raw,
      secret: SECRET,
      seenNonce: (n) => this.nonces.has(n) || (this.nonces.add(n), false),
    });
    return { rawBody: r.raw, body, headers: r.headers, verified: check.ok, at: r.at, ...(check.ok ? {} : { reason: check.reason }) };
  }

  /** `status` of each report received for `messageId`, in arrival order. */
  statuses(messageId: string): string[] {
    return this.received.filter((d) => d.body.message_delivery_report?.message_id === messageId).map((d) => d.body.message_delivery_report.status);
  }
}

interface Answer {
  status: number;
  body: Body;
  headers: Record<string, unknown>;
}

function client(sb: Sandbox, token: string) {
  const send: (method: string, url: string, payload?: unknown, headers?: Record<string, string>) => Promise<Answer> = sandboxRequest(sb);
  const base = (region: Region) => `/conversation/${region}/v1/projects/${account.projectId}`;
  return {
    /** A platform call on `region` (default us) with the bearer token. */
    api: (method: string, path: string, payload?: unknown, region: Region = 'us') =>
      send(method, `${base(region)}${path}`, payload, { authorization: `Bearer ${token}` }),
    raw: send,
    control: (method: string, path: string, payload?: unknown) => send(method, `/_sandbox${path}`, payload),
    /** A provisioning call with the same token (the chat channels' templates are approved there). */
    provisioning: (method: string, path: string, payload?: unknown) =>
      send(method, `/provisioning/v1/projects/${account.projectId}${path}`, payload, { authorization: `Bearer ${token}` }),
    base,
  };
}
export type Client = ReturnType<typeof client>;

/** One sandbox, receiver and client per describe block; reset before each test. */
export function conversationSuite(opts: SandboxOptions = {}) {
  const receiver = new ConversationReceiver();
  return { receiver, ...sandboxSuite(receiver, client, opts) };
}

/** Makes an app through the control route; its id. */
export async function newApp(c: Client, region: Region = 'us', outboundRate?: number): Promise<string> {
  const res = await c.control('POST', '/conversation/apps', { region, ...(outboundRate !== undefined ? { outboundRate } : {}) });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.id as string;
}

export const smsTo = (identity: string) => ({ identified_by: { channel_identities: [{ channel: 'SMS', identity }] } });

export const sendBody = (appId: string, identity: string, extra: Record<string, unknown> = {}) => ({
  app_id: appId,
  recipient: smsTo(identity),
  message: { text_message: { text: 'Hello' } },
  ...extra,
});

/** The fields a 400 names. */
export const fieldsOf = (body: Body): string[] => body.error.details.map((d: Body) => d.field);
