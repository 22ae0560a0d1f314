// The platform clients pointed at a sandbox in this process, with the sandbox's development account: how the
// platform client unit tests talk to the emulator; and the sandbox's control routes, called by a test.
import assert from 'node:assert/strict';
import { SANDBOX_CREDENTIALS, type PlatformConfig } from '../../common/config.js';
import { OAuthTokenRegistry } from '../../platform/auth/oauth.js';
import { createPlatformClients, type PlatformClients } from '../../platform/index.js';
import type { Sandbox } from '../../sandbox/index.js';

/** `over` replaces parts of the config (other credentials, a shorter timeout). */
export function sandboxClients(sb: Sandbox, over: Partial<PlatformConfig> = {}): PlatformClients {
  return createPlatformClients(
    { mode: 'sandbox', requestTimeoutMs: 5000, urls: sb.platformUrls(), credentials: SANDBOX_CREDENTIALS, ...over },
    { tokenRegistry: new OAuthTokenRegistry() },
  );
}

/**
 * Calls the sandbox's control routes under `/_sandbox<prefix>` (e.g. `/senderid`; '' for the core's):
 * asserts a 200 and resolves with the JSON answer. `sb` may be a getter, for a sandbox started later.
 */
export function sandboxControl(sb: Sandbox | (() => Sandbox), prefix = '') {
  return async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const url = (typeof sb === 'function' ? sb() : sb).url;
    const res = await fetch(`${url}/_sandbox${prefix}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    assert.equal(res.status, 200, `${method} ${path}: ${await res.clone().text()}`);
    return res.json() as Promise<unknown>;
  };
}
