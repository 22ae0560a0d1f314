// Shared by the conversation sandbox tests: a signed-in client per region, a webhook receiver that
// verifies every delivery with verifyConversationWebhook, and bodies for the common requests.
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach } from 'node:test';
import { verifyConversationWebhook } from '../../common/signing.js';
import { createSandbox, type Sandbox, type SandboxOptions } from '../../sandbox/index.js';
import { account, bearerToken } from './sandbox-provisioning.js';

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

/** Records deliveries; answers with the scripted statuses first, then 200. */
class Receiver {
  received: Delivery[] = [];
  script: number[] = [];
  url = '';
  private open = true;
  private readonly nonces = new Set<string>();
  private readonly server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const check = verifyConversationWebhook({
        headers: req.headers,
        rawBody,
        secret: SECRET,
        seenNonce: (n) => this.nonces.has(n) || (this.nonces.add(n), false),
      });
      if (this.open) {
        this.received.push({
          rawBody,
          body: JSON.parse(rawBody),
          headers: req.headers,
          verified: check.ok,
          at: Date.now(),
          ...(check.ok ? {} : { reason: check.reason }),
        });
      }
      res.writeHead(this.script.shift() ?? 200).end();
    });
  });

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/webhooks/conversation`;
  }

  async reset(): Promise<void> {
    this.open = false;
    await new Promise((r) => setTimeout(r, 25));
    this.received = [];
    this.script = [];
    this.open = true;
  }

  /** `status` of each report received for `messageId`, in arrival order. */
  statuses(messageId: string): string[] {
    return this.received.filter((d) => d.body.message_delivery_report?.message_id === messageId).map((d) => d.body.message_delivery_report.status);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

interface Answer {
  status: number;
  body: Body;
  headers: Record<string, unknown>;
}

function client(sb: Sandbox, token: string) {
  const send = async (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
    const res = await sb.app.inject({
      method: method as 'GET',
      url,
      headers,
      ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}),
    });
    return { status: res.statusCode, body: res.body ? res.json() : undefined, headers: res.headers };
  };
  const base = (region: Region) => `/conversation/${region}/v1/projects/${account.projectId}`;
  return {
    /** A platform call on `region` (default us) with the bearer token. */
    api: (method: string, path: string, payload?: unknown, region: Region = 'us') =>
      send(method, `${base(region)}${path}`, payload, { authorization: `Bearer ${token}` }),
    raw: send,
    control: (method: string, path: string, payload?: unknown) => send(method, `/_sandbox${path}`, payload),
    base,
  };
}
export type Client = ReturnType<typeof client>;

/** One sandbox, receiver and client per describe block; reset before each test. */
export function conversationSuite(opts: SandboxOptions = {}) {
  const receiver = new Receiver();
  let sb: Sandbox | undefined;
  let signedIn: Client | undefined;
  const c: Client = {
    api: (...a) => signedIn!.api(...a),
    raw: (...a) => signedIn!.raw(...a),
    control: (...a) => signedIn!.control(...a),
    base: (r) => signedIn!.base(r),
  };
  before(async () => {
    sb = await createSandbox(opts);
    await receiver.start();
    signedIn = client(sb, await bearerToken(sb));
  });
  after(async () => {
    await sb?.close();
    await receiver.stop();
  });
  beforeEach(async () => {
    assert.equal((await c.control('POST', '/reset')).status, 200);
    await receiver.reset();
  });
  return { receiver, c, sandbox: () => sb! };
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
