// relayflow's store on both drivers for one suite of store tests: PostgreSQL (the run's shared server, or one of the
// suite's own) and embedded PGlite. Call it inside describe(): what it opened is closed after the suite.
import { after } from 'node:test';
import { openCampaignStore, type CampaignStore } from '../../store/index.js';
import { startPostgres, type TestPostgres } from './postgres.js';
import { sharedDatabaseUrl } from './shared-postgres.js';
import { freshStoreSnapshot } from './store-snapshot.js';

export function storeDrivers() {
  const opened: CampaignStore[] = [];
  let own: TestPostgres | undefined;
  after(async () => {
    await Promise.all(opened.map((s) => s.sql.close()));
    await own?.stop();
  });
  const postgresUrl = async (): Promise<string> => (await sharedDatabaseUrl()) ?? (own ??= await startPostgres()).url;
  /** A store on PostgreSQL at `url`, else a fresh in-memory PGlite one. */
  const open = async (url?: string): Promise<CampaignStore> => {
    const s = url
      ? await openCampaignStore({ url, dataDir: '' })
      : await openCampaignStore({ dataDir: '', inMemory: true, embeddedFrom: await freshStoreSnapshot() });
    opened.push(s);
    return s;
  };
  const drivers: [string, () => Promise<CampaignStore>][] = [
    ['PGlite', () => open()],
    ['PostgreSQL', async () => open(await postgresUrl())],
  ];
  return { open, postgresUrl, drivers };
}
