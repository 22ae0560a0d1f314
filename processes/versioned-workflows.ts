// The workflows as a versioned worker (Worker Deployment Versioning) bundles them: each kind pinned to the version
// that started it, or moving to the new one, as its descriptor says (docs/upgrades.md). A separate entry because an
// unversioned worker refuses any workflow that names a behaviour; the helper workflows take the worker's default.
import type { VersioningBehavior } from '@temporalio/common';
import { setWorkflowOptions } from '@temporalio/workflow';
import { DESCRIPTORS } from './kinds.js';
import * as workflows from './workflows.js';

export * from './workflows.js';

const BEHAVIOUR: Record<'pinned' | 'auto-upgrade', VersioningBehavior> = { pinned: 'PINNED', 'auto-upgrade': 'AUTO_UPGRADE' };
const byType = workflows as unknown as Record<string, (...args: never[]) => Promise<unknown>>;
for (const d of DESCRIPTORS) setWorkflowOptions({ versioningBehavior: BEHAVIOUR[d.versioning] }, byType[d.workflowType]!);
