// All activities of a worker, built from its platform clients. Workflow code imports only the
// `Activities` type from here (lint enforces it), never the implementations.
import type { Client } from '@temporalio/client';
import type { PlatformClients } from '../platform/index.js';
import { createInboxActivities } from './provisioning/resource-inbox.js';
import { createSubprojectActivities } from './subprojects/index.js';
import { createProvisioningActivities } from './provisioning/index.js';
import { createVerificationActivities } from './verification/index.js';

export interface ActivityDeps {
  clients: PlatformClients;
  /** For the activities that signal other workflows (provisioning inboxes); the worker passes one. */
  temporal?: Client;
}

export function createActivities(deps: ActivityDeps) {
  return {
    ...createSubprojectActivities(deps.clients),
    ...createProvisioningActivities(deps.clients),
    ...createVerificationActivities(deps.clients),
    ...createInboxActivities({ temporal: deps.temporal }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
