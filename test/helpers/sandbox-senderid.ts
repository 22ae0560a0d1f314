// Shared by the sender ID sandbox tests: a signed-in client for the area, a callback receiver that
// keeps raw bodies and headers, and valid registration bodies.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach } from 'node:test';
import { createSandbox, type Sandbox } from '../../sandbox/index.js';
import { account, bearerToken, sleep } from './sandbox-provisioning.js';

export { sleep, waitFor } from './sandbox-provisioning.js';
const S = `/senderid/v1/projects/${account.projectId}`;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Body = any;

interface Delivery {
  path: string;
  rawBody: string;
  body: Body;
  headers: IncomingHttpHeaders;
}

class Receiver {
  received: Delivery[] = [];
  script: number[] = [];
  url = '';
  private open = true;
  private readonly server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      if (this.open) this.received.push({ path: req.url ?? '', rawBody, body: JSON.parse(rawBody), headers: req.headers });
      res.writeHead(this.script.shift() ?? 200).end();
    });
  });

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/callbacks/senderid`;
  }

  async reset(): Promise<void> {
    this.open = false;
    await sleep(25);
    this.received = [];
    this.script = [];
    this.open = true;
  }

  states(): string[] {
    return this.received.filter((d) => d.body.eventType === 'REGISTRATION_STATE_CHANGED').map((d) => d.body.registrationState);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** What a receiver does: hex HMAC-SHA1 of the raw body, keyed with the secret. */
export const signatureOf = (secret: string, rawBody: string) => createHmac('sha1', secret).update(rawBody, 'utf8').digest('hex');

function client(sb: Sandbox, token: string) {
  const send = async (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) => {
    const res = await sb.app.inject({
      method: method as 'GET',
      url,
      headers,
      ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}),
    });
    const json = (res.headers['content-type'] ?? '').toString().includes('json');
    return { status: res.statusCode, body: (json && res.body ? res.json() : res.body) as Body, headers: res.headers, raw: res.rawPayload };
  };
  return {
    api: (method: string, path: string, payload?: unknown) => send(method, `${S}${path}`, payload, { authorization: `Bearer ${token}` }),
    control: (method: string, path: string, payload?: unknown) => send(method, `/_sandbox${path}`, payload),
  };
}
export type Client = ReturnType<typeof client>;

/** One sandbox, receiver and client per describe block; reset before each test, fast reviewer. */
export function senderIdSuite() {
  const receiver = new Receiver();
  let sb: Sandbox | undefined;
  let signedIn: Client | undefined;
  const c: Client = { api: (...a) => signedIn!.api(...a), control: (...a) => signedIn!.control(...a) };
  before(async () => {
    sb = await createSandbox();
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
    assert.equal((await c.control('PUT', '/senderid/reviewer', { stepMs: 20, uploadMs: 20 })).status, 200);
  });
  return { receiver, c };
}

export const company = { companyName: 'Acme Pty Ltd', website: 'https://acme.example', email: 'ops@acme.example' };

export const alphaBody = (callbackUrl?: string, senderId = 'ACME') => ({
  policyId: 'pol-au-alpha-aggregator',
  requestDetails: [{ senderIdDetails: [{ senderId }], additionalDetails: [company, { useCase: 'TRANSACTIONAL' }] }],
  ...(callbackUrl ? { callbackUrl } : {}),
});

export const pdf = (bytes = 64) => ({ fileName: 'loa.pdf', mimeType: 'application/pdf', content: Buffer.alloc(bytes, 37).toString('base64') });
