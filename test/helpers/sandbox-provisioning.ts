// Shared by the sandbox-provisioning*.test.ts files: a webhook receiver that verifies signatures, a
// signed-in client for the provisioning area, and small waiting helpers.
import assert from 'node:assert/strict';
import { after, before, beforeEach } from 'node:test';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyConversationWebhook } from '../../common/signing.js';
import { createSandbox, defaultSandboxAccount, type Sandbox } from '../../sandbox/index.js';

export const account = defaultSandboxAccount();
export const SECRET = 'provisioning-webhook-secret';
export const P = `/provisioning/v1/projects/${account.projectId}`;
/** Short reviewer delays so decisions come within the test. */
const FAST = { templates: { delayMs: 20 }, rcs: { delayMs: 20 }, chataSenders: { delayMs: 20 }, chatbSenders: { delayMs: 20 } };

interface WebhookEvent {
  eventId: string;
  projectId: string;
  trigger: string;
  channel: string;
  resourceType: string;
  resourceId: string;
  sequence: number;
  eventTime: string;
  comment?: string;
  details: Record<string, string>;
}
export interface Received {
  path: string;
  event: WebhookEvent;
  /** verifyConversationWebhook's verdict with the webhook's secret. */
  verified: boolean;
  at: number;
}
// Bodies are whatever the sandbox answered; each test narrows what it reads.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Body = any;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Records every webhook delivery and checks its signature; answers with the scripted statuses, then 200. */
export class Receiver {
  received: Received[] = [];
  script: number[] = [];
  url = '';
  private since = 0;
  private readonly server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const verified = verifyConversationWebhook({ headers: req.headers, rawBody, secret: SECRET }).ok;
      const event = JSON.parse(rawBody) as WebhookEvent;
      // A minimal body has no eventTime: its arrival time decides whether it came after the reset.
      const at = Date.parse(event.eventTime);
      if ((Number.isNaN(at) ? Date.now() : at) >= this.since) this.received.push({ path: req.url ?? '', event, verified, at: Date.now() });
      res.writeHead(this.script.shift() ?? 200).end();
    });
  });

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Forgets what came so far; a delivery already on the wire before a sandbox reset is ignored. */
  async reset(): Promise<void> {
    await sleep(25);
    this.since = Date.now();
    this.received = [];
    this.script = [];
  }

  triggers(): string[] {
    return this.received.map((r) => r.event.trigger);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Polls until `cond` holds; fails the test instead of hanging when it never does. */
export async function waitFor(cond: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

export async function bearerToken(sb: Sandbox): Promise<string> {
  const res = await sb.app.inject({
    method: 'POST',
    url: '/auth/oauth2/token',
    headers: {
      authorization: `Basic ${Buffer.from(`${account.keyId}:${account.keySecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    payload: 'grant_type=client_credentials',
  });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as { access_token: string }).access_token;
}

/** A request to the sandbox: `api` with the bearer token, `control` for /_sandbox routes. */
export function client(sb: Sandbox, token: string) {
  const send = async (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) => {
    const res = await sb.app.inject({
      method: method as 'GET',
      url,
      headers,
      ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}),
    });
    return { status: res.statusCode, body: (res.body ? res.json() : undefined) as Body, headers: res.headers };
  };
  return {
    api: (method: string, path: string, payload?: unknown) => send(method, `${P}${path}`, payload, { authorization: `Bearer ${token}` }),
    control: (method: string, path: string, payload?: unknown) => send(method, `/_sandbox${path}`, payload),
    raw: send,
  };
}

/**
 * One sandbox (fast reviewer), webhook receiver and signed-in client for a describe block: started
 * before it, reset before each test, closed after. `c` stays valid across the block.
 */
export function provisioningSandboxSuite() {
  const receiver = new Receiver();
  let sb: Sandbox | undefined;
  let signedIn: ReturnType<typeof client> | undefined;
  const c: ReturnType<typeof client> = {
    api: (...args) => signedIn!.api(...args),
    control: (...args) => signedIn!.control(...args),
    raw: (...args) => signedIn!.raw(...args),
  };
  before(async () => {
    sb = await createSandbox({ provisioningReviewer: FAST });
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

export async function subscribe(c: ReturnType<typeof client>, receiver: Receiver, triggers: string[], path = '/hook'): Promise<string> {
  const res = await c.api('POST', '/webhooks', { target: `${receiver.url}${path}`, secret: SECRET, triggers });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.id as string;
}
