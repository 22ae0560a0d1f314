// A tiny local HTTP server standing in for an application's voice callback URL: it checks each callback's
// application signature (common/signing.ts), records it, and answers with what the test chooses (SVAML, a
// status, a delay), so tests can drive the sandbox's voice switch and see everything it sent.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { verifyApplicationRequest, type ApplicationVerifyFailure } from '../../common/signing.js';
import { startStub, type Stub, type StubRequest } from './stub-server.js';

export type VoiceEvent = 'ice' | 'ace' | 'pie' | 'dice' | 'notify';

export interface ReceivedCallback {
  event: VoiceEvent;
  callid: string;
  body: Record<string, unknown>;
  headers: IncomingMessage['headers'];
  path: string;
  signatureOk: boolean;
  signatureFailure?: ApplicationVerifyFailure;
  receivedAt: number;
}

/** What to answer: JSON (SVAML), raw text, a status, after a delay. Nothing: 200 with an empty body. */
interface Reply {
  status?: number;
  json?: unknown;
  text?: string;
  delayMs?: number;
}

export type Answerer = (cb: ReceivedCallback) => Reply | undefined;

/** ICE hangs up, ACE and PIE continue, DiCE and Notify get an empty 200. */
const defaultAnswerer: Answerer = (cb) => {
  if (cb.event === 'ice') return { json: { action: { name: 'hangup' } } };
  if (cb.event === 'ace' || cb.event === 'pie') return { json: { action: { name: 'continue' } } };
  return undefined;
};

export class VoiceCallbackReceiver {
  readonly received: ReceivedCallback[] = [];
  answer: Answerer = defaultAnswerer;
  private readonly waiters = new Set<() => void>();
  private readonly delays = new Set<NodeJS.Timeout>();

  private stub?: Stub;
  private address = '';

  private constructor(private readonly secretForKey: (key: string) => string | undefined) {}

  /** Listens on 127.0.0.1; `url` is where callbacks should go (path /callbacks/voice). */
  static async start(secretForKey: (key: string) => string | undefined): Promise<VoiceCallbackReceiver> {
    const receiver = new VoiceCallbackReceiver(secretForKey);
    receiver.stub = await startStub((req, res) => receiver.handle(req, res));
    receiver.address = `${receiver.stub.url}/callbacks/voice`;
    return receiver;
  }

  get url(): string {
    return this.address;
  }

  /** Forgets what was received and goes back to the default answers. */
  clear(): void {
    this.received.length = 0;
    this.answer = defaultAnswerer;
  }

  of(callId: string, event?: VoiceEvent): ReceivedCallback[] {
    return this.received.filter((c) => c.callid === callId && (event === undefined || c.event === event));
  }

  /**
   * The first callback (already received or still to come) that matches; rejects after `timeoutMs`. 15 s: a call's
   * DiCE comes after its callbacks' answers and timers, which a loaded CI machine stretched past 5 s.
   */
  waitFor(match: (cb: ReceivedCallback) => boolean, timeoutMs = 15_000): Promise<ReceivedCallback> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.received.find(match);
        if (!found) return false;
        clearTimeout(timer);
        this.waiters.delete(waiter);
        resolve(found);
        return true;
      };
      const waiter = () => void check();
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(
          new Error(
            `no matching voice callback within ${timeoutMs} ms; received: ${this.received.map((c) => `${c.event}:${c.callid.slice(0, 8)}`).join(', ') || 'none'}`,
          ),
        );
      }, timeoutMs);
      if (!check()) this.waiters.add(waiter);
    });
  }

  /** The callback `event` of call `callId`. */
  next(callId: string, event: VoiceEvent, timeoutMs?: number): Promise<ReceivedCallback> {
    return this.waitFor((c) => c.callid === callId && c.event === event, timeoutMs);
  }

  async close(): Promise<void> {
    for (const t of this.delays) clearTimeout(t);
    this.delays.clear();
    await this.stub?.close();
  }

  private handle(req: StubRequest, res: ServerResponse): void {
    const raw = req.body;
    const path = (req.url ?? '/').split('?')[0]!;
    const verified = verifyApplicationRequest({ headers: req.headers, method: req.method ?? 'POST', path, rawBody: raw, secretForKey: this.secretForKey });
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    } catch {
      // recorded with an empty body; the test sees event undefined
    }
    const cb: ReceivedCallback = {
      event: body.event as VoiceEvent,
      callid: String(body.callid ?? ''),
      body,
      headers: req.headers,
      path,
      signatureOk: verified.ok,
      ...(verified.ok ? {} : { signatureFailure: verified.reason }),
      receivedAt: Date.now(),
    };
    this.received.push(cb);
    for (const w of [...this.waiters]) w();
    const reply = (verified.ok ? this.answer(cb) : { status: 401, json: { error: 'bad signature' } }) ?? {};
    const send = () => {
      const text = reply.json !== undefined ? JSON.stringify(reply.json) : (reply.text ?? '');
      res.writeHead(reply.status ?? 200, reply.json !== undefined ? { 'content-type': 'application/json' } : {});
      res.end(text);
    };
    if (!reply.delayMs) return send();
    const t = setTimeout(() => {
      this.delays.delete(t);
      send();
    }, reply.delayMs);
    this.delays.add(t);
  }
}
