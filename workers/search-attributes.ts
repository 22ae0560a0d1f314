// Registers relayflow's search attributes on clusters that lack them (the dev server gets them at start).
import type { Client } from '@temporalio/client';
import { SEARCH_ATTRIBUTE_KEYS } from '../common/search-attributes.js';
import type { Logger } from '../common/logger.js';

const KEYWORD = 2; // temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD

export async function ensureSearchAttributes(client: Client, logger: Logger): Promise<void> {
  const namespace = client.options.namespace;
  try {
    const existing = await client.connection.operatorService.listSearchAttributes({ namespace });
    const missing = SEARCH_ATTRIBUTE_KEYS.filter((k) => !(k.name in (existing.customAttributes ?? {})));
    if (missing.length === 0) return;
    await client.connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((k) => [k.name, KEYWORD])),
    });
    logger.info({ added: missing.map((k) => k.name) }, 'registered search attributes');
  } catch (err) {
    // Temporal Cloud does not allow this through the operator service: register them there once by hand.
    logger.warn(
      { err: (err as Error).message, needed: SEARCH_ATTRIBUTE_KEYS.map((k) => k.name) },
      'could not check or register search attributes; listing processes needs them',
    );
  }
}
