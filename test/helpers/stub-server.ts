// Throwaway HTTP servers for tests, the one way a test opens its own: a stub platform or a receiver of
// callbacks, on loopback at a port of its own, each request's body read whole before the handler sees it,
// closed with its connections.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';

/** A request whose body has been read: `body` the bytes, `text` the same as UTF-8. */
export type StubRequest = IncomingMessage & { body: Buffer; text: string };
/**
 * Answers one request. A handler that throws fails the test as before (an uncaught error); one whose promise
 * rejects answers 599 with the error's text, which the client under test sees as an unexpected answer.
 */
type StubHandler = (req: StubRequest, res: ServerResponse) => unknown;

export interface Stub {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  port: number;
  server: Server;
  /** Closes the server and every connection still open (a request left hanging included). */
  close(): Promise<void>;
}

/** Serves `handler` until `close()`. */
export async function startStub(handler: StubHandler): Promise<Stub> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const answered = handler(Object.assign(req, { body, text: body.toString('utf8') }), res);
      if (answered instanceof Promise) {
        answered.catch((err: unknown) => {
          res.statusCode = 599;
          res.end(String(err));
        });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { url: `http://127.0.0.1:${port}`, port, server, close };
}

/** A stub served until the test ends; resolves with its base URL. */
export async function listenStub(t: TestContext, handler: StubHandler): Promise<string> {
  const stub = await startStub(handler);
  t.after(() => stub.close());
  return stub.url;
}

/** A loopback port nothing listens on (bound, then closed): a connection to it is refused. */
export async function closedPort(): Promise<number> {
  const stub = await startStub(() => undefined);
  await stub.close();
  return stub.port;
}

/** Answers `status` with `body` as JSON (no body when it is undefined). */
export function sendJson(res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body === undefined ? '' : JSON.stringify(body));
}

/** One request a Receiver took. */
export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The body as sent. */
  raw: string;
  /** Arrival, ms since the epoch. */
  at: number;
}

/**
 * A receiver of callbacks: keeps what `record` makes of each request in `received` and answers each with
 * the next status of `script`, then `fallback` (200); `'hang'` never answers. `url` is its base URL plus
 * `path`. A subclass checks or parses a request in `record` and may answer otherwise in `reply`.
 */
export class Receiver<R = Received> {
  received: R[] = [];
  script: Array<number | 'hang'> = [];
  url = '';
  /** Closed while reset() runs: what arrives then is not kept. */
  protected open = true;
  /** When the last reset ended: a request `madeAt` dates before it is not kept, however late it lands. */
  private since = 0;
  private stub?: Stub;

  constructor(
    private readonly path = '',
    private readonly fallback = 200,
  ) {}

  /** What `received` keeps of a request; undefined keeps nothing. Called for every request not made before the last reset. */
  protected record(r: Received, _req: StubRequest): R | undefined {
    return r as R;
  }

  /**
   * When the sender made the request, if its body says (a platform event's own time); undefined keeps it whenever it
   * came. A loaded machine can deliver a request made before a reset after the reset's closed window.
   */
  protected madeAt(_r: Received): number | undefined {
    return undefined;
  }

  /** Answers a request (`kept` is what record made of it). */
  protected reply(res: ServerResponse, _kept: R | undefined): void {
    const status = this.script.shift() ?? this.fallback;
    if (status !== 'hang') res.writeHead(status).end();
  }

  async start(): Promise<this> {
    this.stub = await startStub((req, res) => {
      const r: Received = { method: req.method!, path: req.url!, headers: req.headers, raw: req.text, at: Date.now() };
      const kept = (this.madeAt(r) ?? Infinity) < this.since ? undefined : this.record(r, req);
      if (this.open && kept !== undefined) this.received.push(kept);
      this.reply(res, kept);
    });
    this.url = `${this.stub.url}${this.path}`;
    return this;
  }

  /**
   * Forgets what came so far and the script; what arrives in the next 25 ms (already on its way) is not kept, nor
   * anything `madeAt` dates before the end of that window.
   */
  async reset(): Promise<void> {
    this.open = false;
    await new Promise((r) => setTimeout(r, 25));
    this.received = [];
    this.script = [];
    this.since = Date.now();
    this.open = true;
  }

  async stop(): Promise<void> {
    await this.stub?.close();
  }
}

/** listenStub that also keeps every request it took, in order. */
export async function recordingStub(t: TestContext, handler: StubHandler): Promise<{ url: string; requests: StubRequest[] }> {
  const requests: StubRequest[] = [];
  const url = await listenStub(t, (req, res) => {
    requests.push(req);
    return handler(req, res);
  });
  return { url, requests };
}
