// The workflow side of a worker in one place: the code (a prebuilt bundle, or the workflows bundled at start),
// the workflow interceptor modules, the sinks and the data converter. The worker (workers/worker.ts), the
// bundle build (workers/build-bundle.ts) and every replay take them from here: an interceptor adds awaits
// (yield points) around workflow code, so a replay with other interceptors than the worker's checks other code.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BundleOptions, WorkerOptions } from '@temporalio/worker';
import type { CodecKey } from '../common/codec.js';
import { createDataConverter, FAILURE_CONVERTER_PATH } from '../common/data-converter.js';
import { workflowSpanSinks } from './tracing.js';

export const WORKFLOWS_PATH = fileURLToPath(new URL('../processes/workflows.ts', import.meta.url));
/** The same workflows with each kind's versioning behaviour, for a versioned worker (workers/versioning.ts). */
const VERSIONED_WORKFLOWS_PATH = fileURLToPath(new URL('../processes/versioned-workflows.ts', import.meta.url));
/** Counts process endings for the worker's /metrics (an interceptor module, so no process's code changes). */
export const PROCESS_ENDED_INTERCEPTOR_MODULE = fileURLToPath(new URL('../processes/shared/workflow/process-ended-metric.ts', import.meta.url));
/** OpenTelemetry's workflow interceptors, loaded only in a run started under a trace (workers/tracing.ts). */
export const TRACING_INTERCEPTOR_MODULE = fileURLToPath(new URL('../processes/shared/workflow/tracing-interceptors.ts', import.meta.url));
/** A process's customer (RelayflowTenant) passed to the children it starts. */
export const TENANT_INTERCEPTOR_MODULE = fileURLToPath(new URL('../processes/shared/workflow/tenant-interceptors.ts', import.meta.url));
/** A run ends only once its last events are in the outbox (the module that hands them over). */
const PROCESS_EVENTS_INTERCEPTOR_MODULE = fileURLToPath(new URL('../processes/shared/workflow/process-events.ts', import.meta.url));
/** Workflow interceptors, bundled with the workflows: traces (when a run's start carried one), counting process endings, events, tenants. */
const WORKFLOW_INTERCEPTOR_MODULES: readonly string[] = [
  TRACING_INTERCEPTOR_MODULE,
  PROCESS_ENDED_INTERCEPTOR_MODULE,
  PROCESS_EVENTS_INTERCEPTOR_MODULE,
  TENANT_INTERCEPTOR_MODULE,
];
/** Where `npm run build` writes the bundles (dist/workflow-bundle.js and its versioned twin, next to dist/workers/). */
const DEFAULT_BUNDLE_PATHS = {
  unversioned: fileURLToPath(new URL('../workflow-bundle.js', import.meta.url)),
  versioned: fileURLToPath(new URL('../workflow-bundle-versioned.js', import.meta.url)),
};

/**
 * The prebuilt bundle a worker runs: the one asked for, else RELAYFLOW_WORKFLOW_BUNDLE, else dist's for its mode;
 * none means bundling at start.
 */
export function workerBundlePath(asked?: string, versioned = false): string | undefined {
  const dist = DEFAULT_BUNDLE_PATHS[versioned ? 'versioned' : 'unversioned'];
  return asked ?? process.env.RELAYFLOW_WORKFLOW_BUNDLE ?? (existsSync(dist) ? dist : undefined);
}

/** Whether a bundle was built from the versioned entry: webpack names every module it bundles. */
export const isVersionedBundle = (code: string) => code.includes('processes/versioned-workflows.ts');

/** What webpack bundles: the workflows (versioned or not) with the interceptor modules and relayflow's failure converter. */
export function workflowBundleOptions(
  interceptorModules: readonly string[] = WORKFLOW_INTERCEPTOR_MODULES,
  versioned = false,
): Pick<BundleOptions, 'workflowsPath' | 'workflowInterceptorModules' | 'failureConverterPath'> {
  // Without the failure converter, workflow failures reach the history in plain text.
  return {
    workflowsPath: versioned ? VERSIONED_WORKFLOWS_PATH : WORKFLOWS_PATH,
    workflowInterceptorModules: [...interceptorModules],
    failureConverterPath: FAILURE_CONVERTER_PATH,
  };
}

export interface WorkflowCode {
  codecKeys: CodecKey[];
  /** A prebuilt bundle: it carries the interceptor modules it was built with (workflowBundleOptions). */
  bundle?: { codePath: string } | { code: string };
  /** Without a bundle, the interceptor modules to bundle at start; anything but the default is for replay checks. */
  interceptorModules?: readonly string[];
  /** Without a bundle, bundle the versioned entry (a versioned worker). */
  versioned?: boolean;
}

export type WorkflowWorkerOptions = Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath' | 'dataConverter'> & {
  interceptors: { workflowModules?: string[] };
  sinks: ReturnType<typeof workflowSpanSinks>;
};

export function workflowOptions({ codecKeys, bundle, interceptorModules, versioned = false }: WorkflowCode): WorkflowWorkerOptions {
  if (bundle && interceptorModules) throw new Error('a prebuilt workflow bundle carries its own interceptor modules');
  return {
    ...(bundle ? { workflowBundle: bundle } : { workflowsPath: versioned ? VERSIONED_WORKFLOWS_PATH : WORKFLOWS_PATH }),
    // Bundling at start takes the failure converter from dataConverter.failureConverterPath.
    interceptors: bundle ? {} : { workflowModules: [...(interceptorModules ?? WORKFLOW_INTERCEPTOR_MODULES)] },
    // Always registered: the OpenTelemetry workflow interceptors send their spans here (dropped while tracing is off).
    sinks: workflowSpanSinks(),
    dataConverter: createDataConverter(codecKeys),
  };
}
