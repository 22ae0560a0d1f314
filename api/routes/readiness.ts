// What /readyz shows about the callback wiring the workers do at start-up (workers/callbacks.ts): read
// from the platform, so it reflects what the platform holds, whoever registered it. Informational: the API
// serves requests without it and processes fall back to polling, so it never makes /readyz answer 503.
import type { Config } from '../../common/config.js';
import { PROVISIONING_WEBHOOK_PATH, VERIFICATION_CALLBACK_PATH } from '../../contracts/callbacks.js';
import type { ProvisioningClient } from '../../platform/provisioning/client.js';

/** Check name → 'ok', or why not ('missing: ...', 'unknown: ...', 'not checkable: ...'). */
export type CallbackChecks = Record<'provisioningWebhook' | 'verificationCallback', string>;

export interface CallbackReadinessOptions {
  config: Pick<Config, 'api' | 'platform'>;
  provisioning: ProvisioningClient;
  /** A readiness probe must answer quickly. */
  timeoutMs?: number;
  /** Probes come every few seconds: an 'ok' is reused this long, anything else for a fifth of it. */
  cacheMs?: number;
}

/** Builds the check /readyz runs (`checks: { temporal: 'ok', ...(await callbacks()) }`). */
export function callbackReadiness(opts: CallbackReadinessOptions): () => Promise<CallbackChecks> {
  const { config, provisioning } = opts;
  const timeoutMs = opts.timeoutMs ?? 2_000;
  const cacheMs = opts.cacheMs ?? 30_000;
  const target = `${config.api.publicUrl}${PROVISIONING_WEBHOOK_PATH}`;
  const callbackUrl = `${config.api.publicUrl}${VERIFICATION_CALLBACK_PATH}`;
  const sandbox = config.platform.mode === 'sandbox' ? config.platform.sandboxUrl : undefined;

  const webhook = async (): Promise<string> => {
    const hooks = await provisioning.webhooks.list();
    return hooks.some((w) => w.target === target)
      ? 'ok'
      : `missing: no provisioning webhook targets ${target} (workers register it at start-up when RELAYFLOW_PUBLIC_URL is set)`;
  };
  const verification = async (): Promise<string> => {
    if (!sandbox) return `not checkable: the platform's dashboard holds the verification callback URL; it must be ${callbackUrl}`;
    const res = await fetch(`${sandbox}/_sandbox/verification/config`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) throw new Error(`sandbox answered ${res.status}`);
    const current = ((await res.json()) as { callbackUrl?: string | null }).callbackUrl;
    return current === callbackUrl ? 'ok' : `missing: the sandbox calls back ${current ?? 'nowhere'}, not ${callbackUrl}`;
  };

  const cached = new Map<keyof CallbackChecks, { value: string; until: number }>();
  const check = async (name: keyof CallbackChecks, run: () => Promise<string>): Promise<string> => {
    const hit = cached.get(name);
    if (hit && hit.until > Date.now()) return hit.value;
    let value: string;
    try {
      value = await withTimeout(run(), timeoutMs);
    } catch (err) {
      value = `unknown: the platform did not answer (${(err as Error).message})`;
    }
    cached.set(name, { value, until: Date.now() + (value === 'ok' ? cacheMs : cacheMs / 5) });
    return value;
  };

  return async () => {
    const [provisioningWebhook, verificationCallback] = await Promise.all([check('provisioningWebhook', webhook), check('verificationCallback', verification)]);
    return { provisioningWebhook, verificationCallback };
  };
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
