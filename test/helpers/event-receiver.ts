// An HTTP receiver of relayflow's events for tests: keeps each delivery's raw body and headers, and answers what
// the test tells it to (200 by default; a status, or a redirect) so outages and refusals can be played. It can hold
// its answers a while, so attempts are on their way when a test kills the process that sends them.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pollUntil } from './deadline.js';

export interface ReceivedEvent {
  body: string;
  headers: IncomingHttpHeaders;
  at: number;
  /** The sender's port: which process holds the connection (the fault suite kills a worker with attempts on their way). */
  remotePort?: number;
}

export interface EventReceiver {
  url: string;
  /** Deliveries answered 2xx, in the order they came. */
  accepted: ReceivedEvent[];
  /** Every request, whatever it was answered. */
  all: ReceivedEvent[];
  /** The answer to the next requests: a status, or a redirect's Location. */
  answer(next: { status: number; location?: string }): void;
  /** Each next request is answered `ms` after it arrived (0: at once, the default). */
  hold(ms: number): void;
  /** Requests received whose answer is being held. */
  held(): ReceivedEvent[];
  close(): Promise<void>;
}

export interface EventReceiverOptions {
  /** Sees each request as it arrives, before it is answered (a signature check while its timestamp is fresh). */
  onReceived?(e: ReceivedEvent): void;
}

export async function startEventReceiver(opts: EventReceiverOptions = {}): Promise<EventReceiver> {
  const accepted: ReceivedEvent[] = [];
  const all: ReceivedEvent[] = [];
  const holding = new Map<ReceivedEvent, NodeJS.Timeout>();
  let next: { status: number; location?: string } = { status: 204 };
  let holdMs = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const got: ReceivedEvent = { body: Buffer.concat(chunks).toString('utf8'), headers: req.headers, at: Date.now(), remotePort: req.socket.remotePort };
      all.push(got);
      opts.onReceived?.(got);
      const answer = next;
      if (answer.status >= 200 && answer.status < 300) accepted.push(got);
      const send = () => {
        holding.delete(got);
        res.writeHead(answer.status, answer.location ? { location: answer.location } : {});
        res.end();
      };
      if (holdMs > 0) holding.set(got, setTimeout(send, holdMs));
      else send();
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
    hold(ms) {
      holdMs = ms;
    },
    held: () => [...holding.keys()],
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of holding.values()) clearTimeout(timer);
        holding.clear();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** pollUntil (test/helpers/deadline.ts) in the order these tests read it: what, then how; every 50 ms. */
export const eventually = <T>(what: string, get: () => T | undefined, timeoutMs = 15_000): Promise<T> => pollUntil(get, what, timeoutMs, 50);
