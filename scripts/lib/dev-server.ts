// Starts the Temporal CLI dev server through the SDK's ephemeral-server support (one code path for a
// local binary and for the SDK's own download), with relayflow's search attributes registered.
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { findTemporalCli, type TemporalCli } from './temporal-cli.js';
import { SEARCH_ATTRIBUTE_KEYS } from '../../common/search-attributes.js';

export interface DevServerOptions {
  /** SQLite file; omitted = in memory (tests). */
  dbFilename?: string;
  port?: number;
  uiPort?: number;
  ui?: boolean;
  /** Codec endpoint the web UI calls to decode payloads. */
  uiCodecEndpoint?: string;
  log?: (msg: string) => void;
}

export interface DevServer {
  address: string;
  cli: TemporalCli;
  stop(): Promise<void>;
}

export async function startDevServer(opts: DevServerOptions = {}): Promise<DevServer> {
  const cli = await findTemporalCli({ log: opts.log });
  const extraArgs = ['--log-level', 'error'];
  if (opts.uiCodecEndpoint) extraArgs.push('--ui-codec-endpoint', opts.uiCodecEndpoint);
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: cli.kind === 'path' ? { type: 'existing-path', path: cli.path } : { type: 'cached-download' },
      ip: '127.0.0.1',
      port: opts.port,
      ui: opts.ui ?? false,
      uiPort: opts.ui ? opts.uiPort : undefined,
      dbFilename: opts.dbFilename,
      searchAttributes: [...SEARCH_ATTRIBUTE_KEYS],
      extraArgs,
    },
  });
  return {
    address: env.address,
    cli,
    stop: () => env.teardown(),
  };
}
