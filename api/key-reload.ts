// Key rotation without a restart: SIGHUP re-reads RELAYFLOW_API_KEYS_FILE into the running API's key ring.
// A file that does not parse changes nothing: the API keeps the keys it had and logs the file and line.
import { countByScope, loadApiKeys, type ApiKeySource } from '../common/api-keys.js';
import type { Logger } from '../common/logger.js';
import type { KeyRing } from './plugins/key-ring.js';

/** Reads the keys again and swaps them in; true when it did. Logs counts per scope and key IDs, never keys. */
export function reloadApiKeys(keys: KeyRing, source: ApiKeySource, logger: Logger): boolean {
  if (!source.file) {
    logger.warn('API keys not reloaded: RELAYFLOW_API_KEYS_FILE is not set (RELAYFLOW_API_KEYS changes only with a restart)');
    return false;
  }
  let entries;
  try {
    entries = loadApiKeys(source);
  } catch (err) {
    logger.error({ file: source.file, reason: (err as Error).message }, 'API keys not reloaded: keeping the previous keys');
    return false;
  }
  const { added, removed } = keys.replace(entries);
  logger.info({ file: source.file, keysByScope: countByScope(entries), addedKeyIds: added, removedKeyIds: removed }, 'API keys reloaded');
  return true;
}

/** Reloads on every SIGHUP (which also stops SIGHUP from ending the process); answers the function that stops it. */
export function reloadApiKeysOnSighup(keys: KeyRing, source: ApiKeySource, logger: Logger): () => void {
  const onSighup = () => void reloadApiKeys(keys, source, logger);
  process.on('SIGHUP', onSighup);
  return () => process.off('SIGHUP', onSighup);
}
