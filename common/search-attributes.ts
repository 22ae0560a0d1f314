// Search attributes relayflow sets on every process, so processes can be listed by kind and state.
// They are NOT encrypted by the payload codec: never put personal data in them.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const KIND = defineSearchAttributeKey('RelayflowKind', SearchAttributeType.KEYWORD);
export const STATE = defineSearchAttributeKey('RelayflowState', SearchAttributeType.KEYWORD);

export const SEARCH_ATTRIBUTE_KEYS = [KIND, STATE] as const;
