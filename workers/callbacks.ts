// Callback wiring at worker start-up: the platform must know where to reach relayflow, in every deployment,
// not only under npm start. With RELAYFLOW_PUBLIC_URL set, each worker registers the provisioning webhook
// (idempotent: the target is unique per project, so replicas and restarts never add a second one; a webhook
// whose triggers differ is updated, and during a secret rotation it is given the current secret) and,
// against the sandbox, the verification callback URL. The real platform takes that URL in its dashboard:
// its API has no call for it, so the worker only logs what to enter there.
import type { Config } from '../common/config.js';
import type { Logger } from '../common/logger.js';
import { rotationUnderWay } from '../common/secret-rotation.js';
import { PROVISIONING_WEBHOOK_PATH, SENDERID_CALLBACK_PATH, VERIFICATION_CALLBACK_PATH, VOICE_CALLBACK_PATH } from '../contracts/callbacks.js';
import { PlatformError, type ProvisioningClient } from '../platform/index.js';
import type { SenderIdClient } from '../platform/senderid/client.js';
import type { VoiceClient } from '../platform/voice/client.js';

/**
 * The public URL to register, or undefined. config.api.publicUrl always has a value (by default the API's
 * own listen address, which the platform cannot reach), so only an explicit RELAYFLOW_PUBLIC_URL counts.
 */
export function explicitPublicUrl(config: Pick<Config, 'api'>): string | undefined {
  return config.api.publicUrlExplicit ? config.api.publicUrl : undefined;
}

/** Waits between attempts: quick at first, then the last value until it works or the worker stops. */
const WIRING_RETRY_DELAYS_MS = [1_000, 2_000, 5_000, 10_000, 30_000, 60_000];

type WiringOutcome =
  | { status: 'registered'; target: string; detail: string }
  | { status: 'failed'; target: string; detail: string }
  /** Not attempted (no secret configured, or the real platform's dashboard setting). */
  | { status: 'skipped'; target: string; detail: string };

export interface CallbackWiring {
  provisioningWebhook: WiringOutcome;
  verificationCallback: WiringOutcome;
  /** The sender ID callback secret set on the platform (only when the senderid area is enabled and a client given). */
  senderIdCallback?: WiringOutcome;
  /** The application's voice callback URL (only when the voice area is enabled and a client given). */
  voiceCallback?: WiringOutcome;
}

export interface CallbackWiringDeps {
  config: Pick<Config, 'api' | 'platform'>;
  /** The base URL the platform calls (explicitPublicUrl). */
  publicUrl: string;
  provisioning: ProvisioningClient;
  /** Sets the platform's sender ID callback secret to relayflow's current one (RELAYFLOW_SENDERID_CALLBACK_SECRETS). */
  senderid?: SenderIdClient;
  /** Sets the application's voice callback URL to relayflow's intake (the platform has an API for it). */
  voice?: VoiceClient;
  logger: Logger;
  retryDelaysMs?: readonly number[];
  /** Aborted when the worker stops: retries end there. */
  signal?: AbortSignal;
}

class Permanent extends Error {}

/** A refusal no retry changes (bad credentials, a refused target) stops the retries; anything else is retried. */
function permanentIfRefused(err: unknown): unknown {
  return err instanceof PlatformError && !err.retryable
    ? new Permanent(`${err.name} ${err.httpStatus ?? ''} ${err.code}: ${err.message}`, { cause: err })
    : err;
}

/** Registers both callbacks (in parallel, each retried on its own); never throws, the outcome says how it went. */
export async function wireCallbacks(deps: CallbackWiringDeps): Promise<CallbackWiring> {
  const { config, publicUrl, provisioning, logger } = deps;
  const log = logger.child({ component: 'callback-wiring' });
  const webhookTarget = `${publicUrl}${PROVISIONING_WEBHOOK_PATH}`;
  const callbackUrl = `${publicUrl}${VERIFICATION_CALLBACK_PATH}`;
  const secret = config.api.provisioningWebhookSecret;

  const webhook = async (): Promise<WiringOutcome> => {
    if (!secret) {
      const detail = 'RELAYFLOW_PROVISIONING_WEBHOOK_SECRET is not set: no webhook registered (the intake would refuse every delivery)';
      log.error({ target: webhookTarget }, detail);
      return { status: 'skipped', target: webhookTarget, detail };
    }
    return withRetries(deps, log, 'provisioning webhook', webhookTarget, async () => {
      try {
        // The platform never shows a webhook's secret: while a previous one is still accepted, the webhook is given
        // the current one at every start (docs/provisioning-wire.md, "Rotating the secret").
        const previous = config.api.provisioningWebhookPreviousSecret;
        const rotating = rotationUnderWay({ current: secret, previous: previous ? [previous] : [] });
        const { id, created, updated } = await provisioning.webhooks.ensure(webhookTarget, secret, undefined, { rotating });
        if (created) return `webhook ${id} created`;
        return updated.length > 0 ? `webhook ${id} updated (${updated.join(', ')})` : `webhook ${id} already registered`;
      } catch (err) {
        // Bad credentials, 15 webhooks already, a refused target: repeating the call changes nothing.
        throw permanentIfRefused(err);
      }
    });
  };

  const verification = async (): Promise<WiringOutcome> => {
    const sandbox = config.platform.mode === 'sandbox' ? config.platform.sandboxUrl : undefined;
    if (!sandbox) {
      const detail = `the platform takes the verification callback URL in its dashboard (no API call for it): set it to ${callbackUrl}`;
      log.info({ target: callbackUrl }, detail);
      return { status: 'skipped', target: callbackUrl, detail };
    }
    // The sandbox plays the dashboard through its control route (sandbox/ is off limits to workers/).
    return withRetries(deps, log, 'verification callback URL', callbackUrl, async () => {
      const res = await fetch(`${sandbox}/_sandbox/verification/config`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ callbackUrl }),
        signal: AbortSignal.timeout(config.platform.requestTimeoutMs),
      });
      const text = await res.text();
      if (res.status >= 400 && res.status < 500) throw new Permanent(`sandbox refused the callback URL: ${res.status} ${text}`);
      if (!res.ok) throw new Error(`sandbox answered ${res.status} ${text}`);
      return 'set in the sandbox';
    });
  };

  // Sender ID callbacks go to each registration's callbackUrl (set at create); the platform signs them with
  // the project's hmacSecret, which must be relayflow's current secret. Idempotent: read first, PUT only on a change.
  const senderIdSecret = async (): Promise<WiringOutcome | undefined> => {
    const client = deps.senderid;
    const enabled = !config.platform.areas || config.platform.areas.includes('senderid');
    if (!client || !enabled) return undefined;
    const target = `${publicUrl}${SENDERID_CALLBACK_PATH}`;
    const secret = config.api.senderIdCallbackSecrets[0];
    if (!secret) {
      const detail = 'RELAYFLOW_SENDERID_CALLBACK_SECRETS is not set: the platform callback secret is left as it is (the intake refuses every callback)';
      log.error({ target }, detail);
      return { status: 'skipped', target, detail };
    }
    return withRetries(deps, log, 'sender ID callback secret', target, async () => {
      try {
        const current = await client.getCallbackConfiguration();
        if (current?.hmacSecret === secret) return 'secret already current';
        await client.setCallbackConfiguration(secret);
        return current ? 'secret rotated to the current one' : 'secret set';
      } catch (err) {
        throw permanentIfRefused(err);
      }
    });
  };

  // Voice callbacks go to the application's callback URL; read first and set only on a change (replicas agree).
  const voiceCallback = async (): Promise<WiringOutcome | undefined> => {
    const client = deps.voice;
    if (!client || (config.platform.areas && !config.platform.areas.includes('voice'))) return undefined;
    const target = `${publicUrl}${VOICE_CALLBACK_PATH}`;
    return withRetries(deps, log, 'voice callback URL', target, async () => {
      try {
        const current = await client.callbackUrls();
        if (current?.primary === target) return 'already set';
        await client.setCallbackUrls({ primary: target, ...(current?.fallback ? { fallback: current.fallback } : {}) });
        return current ? `replaced ${current.primary}` : 'set';
      } catch (err) {
        throw permanentIfRefused(err);
      }
    });
  };

  const [provisioningWebhook, verificationCallback, senderIdCallback, voice] = await Promise.all([
    webhook(),
    verification(),
    senderIdSecret(),
    voiceCallback(),
  ]);
  log.info({ provisioningWebhook, verificationCallback, senderIdCallback, voiceCallback: voice }, 'callback wiring done');
  return { provisioningWebhook, verificationCallback, ...(senderIdCallback ? { senderIdCallback } : {}), ...(voice ? { voiceCallback: voice } : {}) };
}

async function withRetries(deps: CallbackWiringDeps, log: Logger, what: string, target: string, attempt: () => Promise<string>): Promise<WiringOutcome> {
  const delays = deps.retryDelaysMs ?? WIRING_RETRY_DELAYS_MS;
  for (let n = 1; ; n++) {
    if (n > 1 && deps.signal?.aborted) return { status: 'failed', target, detail: `not registered before the worker stopped (${n - 1} attempts)` };
    try {
      const detail = await attempt();
      log.info({ target, attempts: n }, `${what} registered: ${detail}`);
      return { status: 'registered', target, detail };
    } catch (err) {
      const message = (err as Error).message;
      if (err instanceof Permanent) {
        log.error({ target, attempts: n, err: message }, `${what} not registered; fix the cause and restart the worker`);
        return { status: 'failed', target, detail: message };
      }
      const waitMs = delays[Math.min(n - 1, delays.length - 1)] ?? 60_000;
      log.warn({ target, attempt: n, retryInMs: waitMs, err: message }, `${what} not registered yet; retrying`);
      await sleep(waitMs, deps.signal);
    }
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
