// The platform clients pointed at a sandbox in this process, with the sandbox's development account: how the
// platform client unit tests talk to the emulator.
import { SANDBOX_CREDENTIALS } from '../../common/config.js';
import { OAuthTokenRegistry } from '../../platform/auth/oauth.js';
import { createPlatformClients, type PlatformClients } from '../../platform/index.js';
import type { Sandbox } from '../../sandbox/index.js';

export function sandboxClients(sb: Sandbox): PlatformClients {
  return createPlatformClients(
    { mode: 'sandbox', requestTimeoutMs: 5000, urls: sb.platformUrls(), credentials: SANDBOX_CREDENTIALS },
    { tokenRegistry: new OAuthTokenRegistry() },
  );
}
