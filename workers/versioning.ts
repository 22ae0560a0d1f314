// A worker's place in a Temporal Worker Deployment: its version, and making that version the current one once it
// polls. New processes then start on it; a pinned process (a kind that ends within hours) finishes on the version
// that started it, an auto-upgrade one (a kind that lives for months) moves to it (docs/upgrades.md).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Client } from '@temporalio/client';
import type { WorkerDeploymentVersion } from '@temporalio/common';
import type { WorkerOptions } from '@temporalio/worker';
import { ConfigError } from '../common/config.js';
import type { WorkerVersioningConfig } from '../common/config.js';
import type { Logger } from '../common/logger.js';

/** The build ID a bundle gets by default: its content, so any change to workflow code is a new version. */
function bundleBuildId(bundlePath: string): string {
  return `bundle-${createHash('sha256').update(readFileSync(bundlePath)).digest('hex').slice(0, 16)}`;
}

/** The version this worker polls as: the configured build ID, else the prebuilt bundle's hash. */
export function workerVersion(v: WorkerVersioningConfig, bundlePath: string | undefined): WorkerDeploymentVersion {
  const buildId = v.buildId ?? (bundlePath ? bundleBuildId(bundlePath) : undefined);
  if (!buildId) {
    throw new ConfigError(
      'RELAYFLOW_WORKER_BUILD_ID',
      'is required when RELAYFLOW_WORKER_VERSIONING=on and the worker bundles its workflows at start (no prebuilt bundle to take the version from)',
    );
  }
  return { deploymentName: v.deployment, buildId };
}

/** Worker options for a versioned worker: kinds say pinned or auto-upgrade (processes/workflows.ts); helpers auto-upgrade. */
export function deploymentOptions(version: WorkerDeploymentVersion): Pick<WorkerOptions, 'workerDeploymentOptions'> {
  return { workerDeploymentOptions: { useWorkerVersioning: true, version, defaultVersioningBehavior: 'AUTO_UPGRADE' } };
}

const PROMOTE_DEADLINE_MS = 60_000;

/** Whether the deployment already routes new processes to `version` (another worker of it promoted it first). */
async function isCurrent(client: Client, version: WorkerDeploymentVersion): Promise<boolean> {
  const { workerDeploymentInfo } = await client.workflowService.describeWorkerDeployment({
    namespace: client.options.namespace,
    deploymentName: version.deploymentName,
  });
  const current = workerDeploymentInfo?.routingConfig?.currentDeploymentVersion;
  return current?.buildId === version.buildId && current.deploymentName === version.deploymentName;
}

/**
 * Makes `version` the deployment's current version. The server knows a version only once one of its workers has
 * polled, so this retries until then, for at most a minute.
 */
export async function promote(client: Client, version: WorkerDeploymentVersion, logger: Logger, deadlineMs = PROMOTE_DEADLINE_MS): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    try {
      if (await isCurrent(client, version)) return;
      await client.workflowService.setWorkerDeploymentCurrentVersion({
        namespace: client.options.namespace,
        deploymentName: version.deploymentName,
        buildId: version.buildId,
        identity: 'relayflow worker',
      });
      logger.info({ deployment: version.deploymentName, buildId: version.buildId }, 'worker version is current');
      return;
    } catch (err) {
      if (Date.now() > deadline) {
        throw new Error(`could not make ${version.deploymentName}.${version.buildId} the current version within ${deadlineMs} ms: ${(err as Error).message}`);
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}
