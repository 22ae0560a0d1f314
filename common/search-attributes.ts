// Search attributes relayflow sets on every process, so processes can be listed by kind and state.
// They are NOT encrypted by the payload codec: never put personal data in them.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const KIND = defineSearchAttributeKey('RelayflowKind', SearchAttributeType.KEYWORD);
export const STATE = defineSearchAttributeKey('RelayflowState', SearchAttributeType.KEYWORD);

/** The caller's own reference of a process (e.g. a verification's), for look-ups by reference. */
export const REFERENCE = defineSearchAttributeKey('RelayflowReference', SearchAttributeType.KEYWORD);

/** The customer the process belongs to: set at start from a tenant key, passed from a parent to its children. */
export const TENANT = defineSearchAttributeKey('RelayflowTenant', SearchAttributeType.KEYWORD);

export const SEARCH_ATTRIBUTE_KEYS = [KIND, STATE, REFERENCE, TENANT] as const;
