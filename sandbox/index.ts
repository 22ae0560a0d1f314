// The platform sandbox: a local emulator of the platform's interfaces, one Fastify app with each
// area mounted under its own prefix (see common/config.ts sandboxPlatformUrls).
import Fastify, { type FastifyInstance } from 'fastify';
import { sandboxPlatformUrls, type PlatformUrls } from '../common/config.js';
import { SANDBOX_AREAS } from './areas/index.js';
import type { SandboxAccount } from './core/accounts.js';
import { CONTROL_PREFIX, registerArea } from './core/areas.js';
import { SandboxContext } from './core/context.js';
import { controlRoutes } from './core/control-routes.js';
import { resolveOptions, type SandboxOptions } from './core/options.js';
import { SandboxPersistence } from './core/persistence.js';
import { installPipeline } from './core/pipeline.js';

export { defaultSandboxAccount, type SandboxAccount } from './core/accounts.js';
export type { SandboxOptions } from './core/options.js';
export type { SandboxArea } from './areas/index.js';

export interface Sandbox {
  /** `http://host:port` once listening; '' before (platformUrls() then gives bare paths, for app.inject). */
  url: string;
  app: FastifyInstance;
  accounts: SandboxAccount[];
  /** Shared state (faults, request log, callbacks, accounts); for tests and for routes added to `app`. */
  context: SandboxContext;
  listen(opts?: { port?: number; host?: string }): Promise<string>;
  close(): Promise<void>;
  platformUrls(): PlatformUrls;
}

const BODY_LIMIT_BYTES = 10 * 1024 * 1024;

export async function createSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const options = resolveOptions(opts);
  const ctx = new SandboxContext(options);
  const app = (options.logger
    ? // Per-request lines would drown the logs of npm start; warnings and errors still show.
      Fastify({ loggerInstance: options.logger.child({}, { level: 'warn' }), bodyLimit: BODY_LIMIT_BYTES })
    : Fastify({ logger: false, bodyLimit: BODY_LIMIT_BYTES })) as unknown as FastifyInstance;

  installPipeline(app, ctx);
  app.addHook('onClose', async () => ctx.close());
  await app.register(controlRoutes(ctx), { prefix: CONTROL_PREFIX });
  for (const area of SANDBOX_AREAS) await registerArea(app, ctx, area);
  // With a dataDir: every area set up, its saved state loaded (pending reviews rescheduled) before anyone can call.
  let persistence: SandboxPersistence | undefined;
  if (options.stateDir) {
    try {
      persistence = await SandboxPersistence.open(options.stateDir, ctx.persistedAreas, options.logger);
    } catch (err) {
      await app.close();
      throw err;
    }
  }

  let url = '';
  let closed: Promise<void> | undefined;
  return {
    get url() {
      return url;
    },
    app,
    accounts: options.accounts,
    context: ctx,
    async listen(l = {}) {
      url = await app.listen({ port: l.port ?? 0, host: l.host ?? '127.0.0.1' });
      return url;
    },
    close() {
      // The final flush comes after app.close: no request can change the state any more.
      closed ??= app.close().then(
        () => persistence?.close(),
        async (err: unknown) => {
          await persistence?.close();
          throw err;
        },
      );
      return closed;
    },
    platformUrls: () => sandboxPlatformUrls(url),
  };
}

/** Sets the verification area's dashboard settings (callback URL, polling, languages) through its control route. */
export async function setSandboxVerificationConfig(sandboxUrl: string, config: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${sandboxUrl}/_sandbox/verification/config`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(config),
  });
  if (!res.ok) throw new Error(`sandbox verification config refused: ${res.status} ${await res.text()}`);
}
