// Environment of the standalone sandbox (npm run sandbox), read and validated once.
import { ConfigError } from '../common/config.js';

export interface SandboxMainConfig {
  port: number;
  host: string;
  tokenLifetimeSeconds: number | undefined;
  subprojectReadyAfterMs: number | undefined;
}

type Env = Record<string, string | undefined>;

function wholeNumber(env: Env, name: string, min: number, max: number): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number (got "${raw}")`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max} (got ${n})`);
  return n;
}

export function readSandboxMainConfig(env: Env): SandboxMainConfig {
  const host = env.SANDBOX_HOST?.trim() || '127.0.0.1';
  if (/\s|\//.test(host)) throw new ConfigError('SANDBOX_HOST', `must be a host name or IP address (got "${host}")`);
  return {
    port: wholeNumber(env, 'SANDBOX_PORT', 0, 65535) ?? 4010,
    host,
    tokenLifetimeSeconds: wholeNumber(env, 'SANDBOX_TOKEN_LIFETIME_SECONDS', 1, 86_400),
    subprojectReadyAfterMs: wholeNumber(env, 'SANDBOX_SUBPROJECT_READY_MS', 0, 600_000),
  };
}
