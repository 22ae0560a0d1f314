// Shared by the sandbox-provisioning*.test.ts files: a webhook receiver that verifies signatures, a
// signed-in client for the provisioning area, and small waiting helpers.
import assert from 'node:assert/strict';
import { after, before, beforeEach } from 'node:test';
import { verifyConversationWebhook } from '../../common/signing.js';
import { createSandbox, defaultSandboxAccount, type Sandbox, type SandboxOptions } from '../../sandbox/index.js';
import { pollUntil } from './deadline.js';
import { rcsSenderFields } from './provisioning.js';
import { Receiver, type Received as StubReceived } from './stub-server.js';

export const account = defaultSandboxAccount();
export const SECRET = 'provisioning-webhook-secret';
export const P = `/provisioning/v1/projects/${account.projectId}`;

/** A valid RCS sender body (FR, multi-use); `over` replaces or adds fields. */
export const rcsSenderBody = (over: Record<string, unknown> = {}) => rcsSenderFields('Acme Parcels', { description: 'Parcel tracking', ...over });

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
interface Received {
  path: string;
  event: WebhookEvent;
  /** verifyConversationWebhook's verdict with the webhook's secret. */
  verified: boolean;
  at: number;
}
// Bodies are whatever the sandbox answered; each test narrows what it reads.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Body = any;

export { sleep } from './deadline.js';

/** Records every webhook delivery and checks its signature; answers with the scripted statuses, then 200. */
class ProvisioningReceiver extends Receiver<Received> {
  /** An event's `eventTime`; a minimal body has none, and its arrival time decides whether it came after the reset. */
  protected override madeAt(r: StubReceived): number {
    const at = Date.parse((JSON.parse(r.raw) as WebhookEvent).eventTime);
    return Number.isNaN(at) ? r.at : at;
  }

  protected override record(r: StubReceived): Received {
    const event = JSON.parse(r.raw) as WebhookEvent;
    return { path: r.path, event, verified: verifyConversationWebhook({ headers: r.headers, rawBody: r.raw, secret: SECRET }).ok, at: r.at };
  }

  triggers(): string[] {
    return this.received.map((r) => r.event.trigger);
  }
}

/** Polls until `cond` holds; fails the test instead of hanging when it never does. */
export const waitFor = (cond: () => boolean, what: string, ms = 5000): Promise<unknown> => pollUntil(cond, what, ms, 5);

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

/** A request to the in-process sandbox (no network): the status, the JSON body (undefined when empty), the headers. */
export function sandboxRequest(sb: Sandbox) {
  return async (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) => {
    const res = await sb.app.inject({
      method: method as 'GET',
      url,
      headers,
      ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}),
    });
    return { status: res.statusCode, body: (res.body ? res.json() : undefined) as Body, headers: res.headers };
  };
}

/** A request to the sandbox: `api` with the bearer token, `control` for /_sandbox routes. */
export function client(sb: Sandbox, token: string) {
  const send = sandboxRequest(sb);
  return {
    api: (method: string, path: string, payload?: unknown) => send(method, `${P}${path}`, payload, { authorization: `Bearer ${token}` }),
    control: (method: string, path: string, payload?: unknown) => send(method, `/_sandbox${path}`, payload),
    raw: send,
  };
}

/**
 * One sandbox, receiver and signed-in client (`signIn`'s) for a describe block: started before it, reset
 * before each test (the sandbox's POST /_sandbox/reset, then the receiver), closed after. `c` stays valid
 * across the block: it stands for the client signed in once the sandbox runs.
 */
export function sandboxSuite<C extends { control: (method: string, path: string, payload?: unknown) => Promise<{ status: number }> }>(
  receiver: { start(): Promise<unknown>; stop(): Promise<void>; reset(): Promise<void> },
  signIn: (sb: Sandbox, token: string) => C,
  opts: SandboxOptions = {},
) {
  let sb: Sandbox | undefined;
  let signedIn: C | undefined;
  const c = new Proxy({} as C, { get: (_target, key) => signedIn![key as keyof C] });
  before(async () => {
    sb = await createSandbox(opts);
    await receiver.start();
    signedIn = signIn(sb, await bearerToken(sb));
  });
  after(async () => {
    await sb?.close();
    await receiver.stop();
  });
  beforeEach(async () => {
    assert.equal((await c.control('POST', '/reset')).status, 200);
    await receiver.reset();
  });
  return { c, sandbox: () => sb! };
}

/** One sandbox (fast reviewer), webhook receiver and signed-in client for a describe block (sandboxSuite). */
export function provisioningSandboxSuite() {
  const receiver = new ProvisioningReceiver();
  return { receiver, ...sandboxSuite(receiver, client, { provisioningReviewer: FAST }) };
}

export async function subscribe(c: ReturnType<typeof client>, receiver: ProvisioningReceiver, triggers: string[], path = '/hook'): Promise<string> {
  const res = await c.api('POST', '/webhooks', { target: `${receiver.url}${path}`, secret: SECRET, triggers });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.id as string;
}
