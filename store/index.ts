// The campaign store: opened once per process (the embedded database allows one process only), migrated at open.
import { join } from 'node:path';
import type { Logger } from '../common/logger.js';
import { CampaignStore } from './campaign-store.js';
import { migrate } from './schema.js';
import { openSql } from './sql.js';

export * from './campaign-store.js';
export * from './campaign-windows.js';
export * from './voice-rules.js';
export * from './voice-calls.js';
export * from './resource-links.js';
export * from './verification-admissions.js';
export * from './verification-pumping.js';
export * from './verification-geo-rules.js';
export * from './verification-receipts.js';
export * from './seen-callbacks.js';
export * from './process-events.js';
export * from './event-subscriptions.js';
export * from './audit-archive.js';
export * from './suppressions.js';
export { embeddedSnapshot } from './sql.js';

export interface OpenStoreOptions {
  /** RELAYFLOW_DATABASE_URL; unset: the embedded database under dataDir. */
  url?: string;
  dataDir: string;
  /** Keep the embedded database in memory (tests). */
  inMemory?: boolean;
  /** With inMemory: start from this copy of a fresh data directory (embeddedSnapshot(), store/sql.ts). */
  embeddedFrom?: Blob;
  /** Hears a connection the database server dropped while idle (a restart, a failover); the pool opens a new one. */
  logger?: Pick<Logger, 'warn'>;
}

export async function openCampaignStore(opts: OpenStoreOptions): Promise<CampaignStore> {
  const sql = await openSql({
    url: opts.url,
    embeddedDir: opts.inMemory ? 'memory' : join(opts.dataDir, 'campaign-db'),
    embeddedFrom: opts.embeddedFrom,
    onIdleError: (err) => opts.logger?.warn({ err }, 'campaign store: the database dropped an idle connection; the next query opens another'),
  });
  await migrate(sql);
  return new CampaignStore(sql);
}
