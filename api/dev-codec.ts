// Development only (`npm start`): the payload codec's decode route on a listener of its own, bound to loopback
// and without an API key, so the Temporal web UI (which cannot send one) shows payloads decoded.
//
// What keeps the plaintext from leaking although no key is asked for:
// - it binds to a loopback address only (anything else is refused before listening), so only this machine
//   reaches it;
// - a browser page may read its answers only when it is the web UI (CORS for the UI's origins; any other
//   Origin is a 403, so a page of another site cannot use it even by DNS rebinding, where the request
//   would be same-origin);
// - the Host must name loopback (127.0.0.1, localhost, [::1]): a rebound host name is a 403 as well;
// - it decodes only. The web UI calls /encode solely for the input of its own Start workflow, Signal and
//   Update forms; relayflow's processes are driven through the API, which validates and records who acted,
//   so those forms answer "encode failed" here instead of writing into processes behind the API's back.
// Deployments never run it: there the UI calls the API's /codec through an authenticating proxy (docs/operations.md, "Security and privacy").
import { isIP } from 'node:net';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { PayloadCodec } from '@temporalio/common';
import { ulid } from 'ulid';
import type { Logger } from '../common/logger.js';
import { ApiError } from './errors.js';
import { clientErrorHandler, errorHandlerPlugin } from './plugins/error-handler.js';
import codecRoutes from './routes/codec.js';

export interface DevCodecListenerOptions {
  codec: PayloadCodec;
  /** The web UI's origins (`http://127.0.0.1:8233`, `http://localhost:8233`): the only pages that may call it. */
  uiOrigins: string[];
  /** A loopback address (default 127.0.0.1); anything else is refused. */
  host?: string;
  /** 0 (the default) takes any free port. */
  port?: number;
  logger: Logger;
}

export interface DevCodecListener {
  /** The codec endpoint to give the web UI (`--ui-codec-endpoint`) or `temporal --codec-endpoint`: `http://127.0.0.1:<port>/codec`. */
  endpoint: string;
  close(): Promise<void>;
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

/** A name or address that only reaches this machine: `localhost`, 127.0.0.0/8, `::1`. */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase();
  if (LOOPBACK_NAMES.has(h)) return true;
  return isIP(h) === 4 && h.split('.')[0] === '127';
}

/** The host name of a Host header (`127.0.0.1:8234`, `[::1]:8234`, `localhost`), without the port. */
function hostName(header: string | undefined): string {
  if (!header) return '';
  if (header.startsWith('[')) return header.slice(0, header.indexOf(']') + 1);
  return header.split(':')[0]!;
}

export async function buildDevCodecApp(opts: Pick<DevCodecListenerOptions, 'codec' | 'uiOrigins' | 'logger'>): Promise<FastifyInstance> {
  const app = Fastify({
    // The web UI asks on every page it shows: request lines (info) would drown npm start's output.
    loggerInstance: opts.logger.child({}, { level: 'warn' }) as FastifyBaseLogger,
    genReqId: () => ulid(),
    requestIdHeader: false,
    clientErrorHandler,
  });
  await app.register(errorHandlerPlugin);
  const origins = new Set(opts.uiOrigins);
  app.addHook('onRequest', async (request) => {
    const host = request.headers.host;
    if (!isLoopbackHost(hostName(host))) {
      throw new ApiError(
        403,
        'host_not_allowed',
        `the development codec listener answers only requests addressed to loopback (Host: 127.0.0.1, localhost or [::1]), not "${host ?? ''}"`,
      );
    }
    const origin = request.headers.origin;
    if (origin !== undefined && !origins.has(origin)) {
      throw new ApiError(
        403,
        'origin_not_allowed',
        `the development codec listener answers only the Temporal web UI (${[...origins].join(', ')}), not pages of ${origin}`,
      );
    }
  });
  await app.register(codecRoutes, { codec: opts.codec, allowedOrigins: opts.uiOrigins, operations: ['decode'] });
  return app;
}

export async function startDevCodecListener(opts: DevCodecListenerOptions): Promise<DevCodecListener> {
  const host = opts.host ?? '127.0.0.1';
  if (!isLoopbackHost(host)) {
    throw new Error(`the development codec listener decodes without an API key, so it binds to loopback only (127.0.0.1, ::1, localhost), not "${host}"`);
  }
  const app = await buildDevCodecApp(opts);
  try {
    await app.listen({ host, port: opts.port ?? 0 });
  } catch (err) {
    await app.close();
    throw err;
  }
  const { address, port } = app.server.address() as { address: string; port: number };
  const shown = address.includes(':') ? `[${address}]` : address;
  return { endpoint: `http://${shown}:${port}/codec`, close: () => app.close() };
}
