// The accounts the sandbox knows, and the look-ups every authentication scheme needs.
import { SANDBOX_CREDENTIALS, type PlatformCredentials } from '../../common/config.js';

export interface SandboxAccount extends PlatformCredentials {
  /** The application's default SMS language for verifications; en-US when unset. */
  verificationDefaultLanguage?: string;
}

/** The well-known development account; taken from common/config.ts so relayflow's sandbox mode matches it. */
export function defaultSandboxAccount(): SandboxAccount {
  return { ...SANDBOX_CREDENTIALS };
}

/** Indexes accounts by each credential once, so per-request look-ups are O(1). */
export class AccountDirectory {
  readonly all: readonly SandboxAccount[];
  private readonly byKeyId = new Map<string, SandboxAccount>();
  private readonly byAppKey = new Map<string, SandboxAccount>();
  private readonly byMmsApiKey = new Map<string, SandboxAccount>();
  private readonly byProjectId = new Map<string, SandboxAccount>();

  constructor(accounts: readonly SandboxAccount[]) {
    if (accounts.length === 0) throw new Error('sandbox: at least one account is required');
    this.all = accounts;
    for (const a of accounts) {
      for (const [map, key, what] of [
        [this.byKeyId, a.keyId, 'keyId'],
        [this.byAppKey, a.appKey, 'appKey'],
        [this.byMmsApiKey, a.mmsApiKey, 'mmsApiKey'],
        [this.byProjectId, a.projectId, 'projectId'],
      ] as const) {
        if (map.has(key)) throw new Error(`sandbox: duplicate ${what} "${key}" among accounts`);
        map.set(key, a);
      }
    }
  }

  byKey(keyId: string): SandboxAccount | undefined {
    return this.byKeyId.get(keyId);
  }

  byApplicationKey(appKey: string): SandboxAccount | undefined {
    return this.byAppKey.get(appKey);
  }

  byMmsKey(apiKey: string): SandboxAccount | undefined {
    return this.byMmsApiKey.get(apiKey);
  }

  byProject(projectId: string): SandboxAccount | undefined {
    return this.byProjectId.get(projectId);
  }
}
