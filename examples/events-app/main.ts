// A backend that takes relayflow's events and completes a phone verification with @relayflow/client: it listens
// for deliveries (each checked with verifyEvent), subscribes to verifications, starts one, reads the code from the
// sandbox's phone (as the README's try-it does), reports it, and stops once the SUCCESSFUL event has arrived.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRelayflowClient, verifyEvent } from '@relayflow/client';

const API = process.env.API ?? 'http://127.0.0.1:3000';
const SBX = process.env.SBX ?? 'http://127.0.0.1:4010';
const KEY = process.env.KEY ?? readFileSync('.relayflow/api-key', 'utf8').trim();
const IDENTITY = process.env.IDENTITY ?? `+46700${String(Date.now()).slice(-6)}`;
const DEADLINE = Date.now() + 60_000;

const client = createRelayflowClient({ baseUrl: API, apiKey: KEY });
let secret = '';
let processId = '';
let finished: () => void;
const done = new Promise<void>((resolve) => (finished = resolve));

// Events arrive signed (Standard Webhooks): verified over the raw body before anything is believed.
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    try {
      const { data } = verifyEvent(secret, Buffer.concat(chunks), req.headers);
      console.log(`event ${data.kind} ${data.previousState ?? '(start)'} -> ${data.state}${data.processId === processId ? '' : ' (another process)'}`);
      res.writeHead(204).end();
      if (data.processId === processId && data.state === 'SUCCESSFUL') finished();
    } catch (err) {
      res.writeHead(400).end(String(err));
    }
  });
});
await new Promise<void>((resolve) => server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/relayflow`;

/** The answer's data, or the process exits saying what the API answered. */
function ok<T>(what: string, r: { data?: T; error?: unknown; response: Response }): T {
  if (r.data === undefined) throw new Error(`${what}: ${r.response.status} ${JSON.stringify(r.error)}`);
  return r.data;
}

const sub = ok('subscribe', await client.POST('/v1/event-subscriptions', { body: { url: receiverUrl, kinds: ['verification'], description: 'events-app' } }));
secret = sub.secret;
console.log(`subscribed ${sub.id} -> ${receiverUrl}`);
try {
  const started = ok('start', await client.POST('/v1/verifications', { body: { identity: IDENTITY, method: 'sms' } }));
  processId = started.processId;
  console.log(`started ${processId} (${started.state})`);
  // The sandbox's phone shows the SMS; the newest message's code is this verification's.
  let code: string | undefined;
  while (!code && Date.now() < DEADLINE) {
    const phone = (await (await fetch(`${SBX}/_sandbox/verification/phones/${encodeURIComponent(IDENTITY)}`)).json()) as { messages: { code?: string }[] };
    code = phone.messages.at(-1)?.code;
    if (!code) await new Promise((r) => setTimeout(r, 250));
  }
  if (!code) throw new Error('no SMS reached the sandbox phone within 60 s');
  const report = await client.POST('/v1/verifications/{processId}/report', { params: { path: { processId } }, body: { code } });
  console.log(`reported the code: ${JSON.stringify(ok('report', report))}`);
  const timeout = setTimeout(() => finished(), Math.max(0, DEADLINE - Date.now()));
  await done;
  clearTimeout(timeout);
  const view = ok('read', await client.GET('/v1/processes/{processId}', { params: { path: { processId } } }));
  console.log(`${processId} is ${view.state}`);
  if (view.state !== 'SUCCESSFUL') process.exitCode = 1;
} finally {
  await client.DELETE('/v1/event-subscriptions/{subscriptionId}', { params: { path: { subscriptionId: sub.id } } });
  server.close();
}
