// The cluster's front, the part a load balancer plays in production: requests spread round-robin over the live
// API instances. An instance that refuses the connection is skipped (for a few seconds) and the request goes to
// the next one, so the platform's callbacks and the sandbox's calls reach relayflow while one instance is down.
// Bodies are buffered (callbacks and API calls are small) so a refused request can be sent again whole.
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { pathToFileURL } from 'node:url';

export interface Front {
  url: string;
  close(): Promise<void>;
}

export interface FrontOptions {
  /** The API instances, e.g. http://127.0.0.1:3101. */
  targets: string[];
  host?: string;
  port: number;
  /** How long an instance that refused a connection is left out. */
  skipMs?: number;
  log?: (msg: string) => void;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Sends the request to one target; resolves false when the target could not be reached (nothing was answered yet). */
function forward(target: URL, req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<boolean> {
  return new Promise((resolve) => {
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !HOP_BY_HOP.has(k)));
    const out = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...headers, 'content-length': String(body.length) } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, Object.fromEntries(Object.entries(answer.headers).filter(([k]) => !HOP_BY_HOP.has(k))));
        answer.pipe(res);
        answer.on('end', () => resolve(true));
        answer.on('error', () => resolve(true));
      },
    );
    out.on('error', () => {
      if (res.headersSent) res.destroy();
      resolve(res.headersSent);
    });
    out.end(body);
  });
}

export async function startFront(opts: FrontOptions): Promise<Front> {
  const targets = opts.targets.map((t) => new URL(t));
  const skipUntil = new Map<number, number>();
  const skipMs = opts.skipMs ?? 3_000;
  let next = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req);
    // Live instances first, in turn; the skipped ones last, in case all were marked down at once.
    const start = next++ % targets.length;
    const order = targets.map((_, i) => (start + i) % targets.length);
    const now = Date.now();
    order.sort((a, b) => Number((skipUntil.get(a) ?? 0) > now) - Number((skipUntil.get(b) ?? 0) > now));
    for (const i of order) {
      if (await forward(targets[i]!, req, body, res)) return;
      if ((skipUntil.get(i) ?? 0) <= now) opts.log?.(`front: ${targets[i]!.origin} refused a connection; skipping it for ${skipMs / 1000} s`);
      skipUntil.set(i, Date.now() + skipMs);
    }
    res.writeHead(502, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: 'no API instance answered' }));
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, host, resolve);
  });
  return {
    url: `http://${host}:${opts.port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// Run directly, as docker-compose.yml's front service does (node dist/scripts/lib/cluster/front.js):
// FRONT_TARGETS (comma-separated API instances), FRONT_HOST, FRONT_PORT.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const targets = (process.env.FRONT_TARGETS ?? '').split(',').filter(Boolean);
  if (!targets.length) throw new Error('FRONT_TARGETS must name the API instances, e.g. http://api:3000,http://api-2:3000');
  const front = await startFront({
    targets,
    host: process.env.FRONT_HOST || '0.0.0.0',
    port: Number(process.env.FRONT_PORT || 3000),
    log: (m) => console.log(m),
  });
  console.log(`front listening on ${front.url}, over ${targets.join(', ')}`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void front.close().then(() => process.exit(0)));
}
