// Every variable relayflow's API and workers read, in one schema, by section: what each is, its default and its
// rule. docs/configuration.md is generated from it (scripts/config-doc.ts).
import Type from 'typebox';
import { API_VARIABLES } from './api.js';
import { AUDIT_VARIABLES } from './audit.js';
import { CALLBACK_VARIABLES } from './callbacks.js';
import { CONSENT_VARIABLES } from './consent.js';
import { EVENT_VARIABLES } from './events.js';
import { PLATFORM_VARIABLES } from './platform.js';
import { PROCESS_VARIABLES } from './processes.js';
import { RUNTIME_VARIABLES } from './runtime.js';
import { VERIFICATION_VARIABLES } from './verification.js';

/** The sections of the docs page, in its order. */
export const CONFIG_SECTIONS = [
  { title: 'The API', schema: API_VARIABLES },
  { title: 'Running: logs, store, workers, traces', schema: RUNTIME_VARIABLES },
  { title: 'The platform', schema: PLATFORM_VARIABLES },
  { title: "The platform's callbacks", schema: CALLBACK_VARIABLES },
  { title: 'Verification', schema: VERIFICATION_VARIABLES },
  { title: 'Subprojects, provisioning, sender IDs, campaigns and calls', schema: PROCESS_VARIABLES },
  { title: 'Replies and consent', schema: CONSENT_VARIABLES },
  { title: 'Event subscriptions', schema: EVENT_VARIABLES },
  { title: 'The audit archive', schema: AUDIT_VARIABLES },
] as const;

export const CONFIG_SCHEMA = Type.Object({
  ...API_VARIABLES.properties,
  ...RUNTIME_VARIABLES.properties,
  ...PLATFORM_VARIABLES.properties,
  ...CALLBACK_VARIABLES.properties,
  ...VERIFICATION_VARIABLES.properties,
  ...PROCESS_VARIABLES.properties,
  ...CONSENT_VARIABLES.properties,
  ...EVENT_VARIABLES.properties,
  ...AUDIT_VARIABLES.properties,
});
