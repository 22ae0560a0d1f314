// An HTTP receiver of relayflow's events for tests: keeps each delivery's raw body and headers, and answers what
// the test tells it to (200 by default; a status, or a redirect) so outages and refusals can be played.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pollUntil } from './deadline.js';

export interface ReceivedEvent {
  body: string;
  headers: IncomingHttpHeaders;
  at: number;
}

export interface EventReceiver {
  url: string;
  /** Deliveries answered 2xx, in the order they came. */
  accepted: ReceivedEvent[];
  /** Every request, whatever it was answered. */
  all: ReceivedEvent[];
  /** The answer to the next requests: a status, or a redirect's Location. */
  answer(next: { status: number; location?: string }): void;
  close(): Promise<void>;
}

export async function startEventReceiver(): Promise<EventReceiver> {
  const accepted: ReceivedEvent[] = [];
  const all: ReceivedEvent[] = [];
  let next: { status: number; location?: string } = { status: 204 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const got = { body: Buffer.concat(chunks).toString('utf8'), headers: req.headers, at: Date.now() };
      all.push(got);
      if (next.status >= 200 && next.status < 300) accepted.push(got);
      res.writeHead(next.status, next.location ? { location: next.location } : {});
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/events`,
    accepted,
    all,
    answer(a) {
      next = a;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** pollUntil (test/helpers/deadline.ts) in the order these tests read it: what, then how; every 50 ms. */
export const eventually = <T>(what: string, get: () => T | undefined, timeoutMs = 15_000): Promise<T> => pollUntil(get, what, timeoutMs, 50);
