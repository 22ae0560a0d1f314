// Workflow bundles other than the worker's, for tests that need one (replays with other interceptors, a bundle
// without the failure converter), from the bundle cache (workers/bundle-cache.ts): webpack runs (about 5 s of CPU
// each) only when the workflows or what is bundled with them changed since the last run.
import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DefaultLogger } from '@temporalio/worker';
import { cachedWorkflowBundle } from '../../workers/bundle-cache.js';
import type { WorkflowBundleOptions } from '../../workers/build-bundle.js';
import { workflowBundleOptions } from '../../workers/workflow-options.js';
import { inCheckout } from './compiled-tree.js';

/** Kept apart from the worker's bundles, so these never push the suite's own out of the cache. */
const CACHE_DIR = resolve('.relayflow/workflow-bundles/tests');

/**
 * The code of the workflows bundled with `options` (paths of this tree), built or taken from the cache; the entry
 * names the checkout's sources (inCheckout), since a compiled copy is removed with its run.
 */
export async function cachedBundleCode(options: WorkflowBundleOptions): Promise<string> {
  const inputs: WorkflowBundleOptions = {
    ...options,
    ...(options.workflowsPath ? { workflowsPath: inCheckout(options.workflowsPath) } : {}),
    ...(options.workflowInterceptorModules ? { workflowInterceptorModules: options.workflowInterceptorModules.map(inCheckout) } : {}),
    ...(options.failureConverterPath ? { failureConverterPath: inCheckout(options.failureConverterPath) } : {}),
  };
  const { path } = await cachedWorkflowBundle(CACHE_DIR, { options: inputs, logger: new DefaultLogger('ERROR') });
  // Read at once: another run's pruning of the cache may remove the file later.
  return readFileSync(path, 'utf8');
}

/** A file with the versioned workflows (processes/versioned-workflows.ts), for a versioned worker in a test. */
export async function versionedBundleFile(): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'relayflow-versioned-')), 'workflow-bundle-versioned.js');
  await writeFile(file, await cachedBundleCode(workflowBundleOptions(undefined, true)));
  return file;
}
