// All activities of a worker, built from its platform clients. Workflow code imports only the
// `Activities` type from here (lint enforces it), never the implementations.
import type { PlatformClients } from './platform/index.js';
import { createSubprojectActivities } from './subprojects.js';
import { createVerificationActivities } from './verification.js';

export interface ActivityDeps {
  clients: PlatformClients;
}

export function createActivities(deps: ActivityDeps) {
  return {
    ...createSubprojectActivities(deps.clients),
    ...createVerificationActivities(deps.clients),
  };
}

export type Activities = ReturnType<typeof createActivities>;
