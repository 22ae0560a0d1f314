// The campaign store: opened once per process (the embedded database allows one process only), migrated at open.
import { join } from 'node:path';
import { CampaignStore } from './campaign-store.js';
import { migrate } from './schema.js';
import { openSql } from './sql.js';

export * from './campaign-store.js';
export * from './voice-rules.js';
export * from './voice-calls.js';
export { embeddedSnapshot } from './sql.js';

export interface OpenStoreOptions {
  /** RELAYFLOW_DATABASE_URL; unset: the embedded database under dataDir. */
  url?: string;
  dataDir: string;
  /** Keep the embedded database in memory (tests). */
  inMemory?: boolean;
  /** With inMemory: start from this copy of a fresh data directory (embeddedSnapshot(), store/sql.ts). */
  embeddedFrom?: Blob;
}

export async function openCampaignStore(opts: OpenStoreOptions): Promise<CampaignStore> {
  const sql = await openSql({ url: opts.url, embeddedDir: opts.inMemory ? 'memory' : join(opts.dataDir, 'campaign-db'), embeddedFrom: opts.embeddedFrom });
  await migrate(sql);
  return new CampaignStore(sql);
}
