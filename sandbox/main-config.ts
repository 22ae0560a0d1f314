// Environment of the standalone sandbox (npm run sandbox), read and validated once.
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, wholeNumber, type Env } from '../common/config.js';

export interface SandboxMainConfig {
  port: number;
  host: string;
  tokenLifetimeSeconds: number | undefined;
  subprojectReadyAfterMs: number | undefined;
  /** SANDBOX_DATA_DIR: keep the state under `<dir>/sandbox` across restarts; unset: in memory. */
  dataDir: string | undefined;
}

function directory(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  // A path: a URL (say `postgres://...`) set here by mistake is refused rather than made into a directory.
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) || /[\0\n]/.test(raw)) throw new ConfigError(name, `must be a directory path (got "${raw}")`);
  const path = resolve(raw);
  if (existsSync(path) && !statSync(path).isDirectory()) throw new ConfigError(name, `must be a directory, but ${path} is a file`);
  return path;
}

export function readSandboxMainConfig(env: Env): SandboxMainConfig {
  const host = env.SANDBOX_HOST?.trim() || '127.0.0.1';
  if (/\s|\//.test(host)) throw new ConfigError('SANDBOX_HOST', `must be a host name or IP address (got "${host}")`);
  return {
    port: wholeNumber(env, 'SANDBOX_PORT', 0, 65535) ?? 4010,
    host,
    tokenLifetimeSeconds: wholeNumber(env, 'SANDBOX_TOKEN_LIFETIME_SECONDS', 1, 86_400),
    subprojectReadyAfterMs: wholeNumber(env, 'SANDBOX_SUBPROJECT_READY_MS', 0, 600_000),
    dataDir: directory(env, 'SANDBOX_DATA_DIR'),
  };
}
