// Shared by the sender ID sandbox tests: a signed-in client for the area, a callback receiver that
// keeps raw bodies and headers, and valid registration bodies.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { beforeEach } from 'node:test';
import type { Sandbox } from '../../sandbox/index.js';
import { account, sandboxSuite } from './sandbox-provisioning.js';
import { Receiver, type Received } from './stub-server.js';

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

class SenderIdReceiver extends Receiver<Delivery> {
  constructor() {
    super('/callbacks/senderid');
  }

  /** An event's `timestamp`: when the sandbox made it. */
  protected override madeAt(r: Received): number | undefined {
    const made = Date.parse((JSON.parse(r.raw) as Body).timestamp);
    return Number.isNaN(made) ? undefined : made;
  }

  protected override record(r: Received): Delivery {
    return { path: r.path, rawBody: r.raw, body: JSON.parse(r.raw), headers: r.headers };
  }

  states(): string[] {
    return this.received.filter((d) => d.body.eventType === 'REGISTRATION_STATE_CHANGED').map((d) => d.body.registrationState);
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
  const receiver = new SenderIdReceiver();
  const { c } = sandboxSuite(receiver, client);
  beforeEach(async () => {
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
