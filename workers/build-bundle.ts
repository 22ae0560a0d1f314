// Builds the workflow bundle with webpack: `npm run build` writes one so production workers start without
// webpack, and the bundle cache (workers/bundle-cache.ts) keeps one per set of inputs, which is why a build also
// says every file webpack read and every path it probed without finding.
import { writeFile, mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { bundleWorkflowCode, type BundleOptions } from '@temporalio/worker';
import { workflowBundleOptions } from './workflow-options.js';

export type WorkflowBundleOptions = ReturnType<typeof workflowBundleOptions>;

export interface BuiltBundle {
  code: string;
  /** Every file webpack read: the workflows' whole import graph, the SDK's workflow library, package.json files. */
  files: string[];
  /** Paths webpack looked for while resolving an import and did not find: a file appearing there may change the bundle. */
  missing: string[];
}

/** Bundles the workflows (by default the worker's: workflowBundleOptions) and says what webpack read. */
export async function bundleWorkflows(options: WorkflowBundleOptions = workflowBundleOptions(), logger?: BundleOptions['logger']): Promise<BuiltBundle> {
  let inputs: Omit<BuiltBundle, 'code'> | undefined;
  const { code } = await bundleWorkflowCode({
    ...options,
    logger,
    webpackConfigHook: (config) => ({
      ...config,
      plugins: [
        ...(config.plugins ?? []),
        {
          apply(compiler) {
            compiler.hooks.done.tap('relayflow-bundle-inputs', (stats) => {
              inputs = { files: [...stats.compilation.fileDependencies], missing: [...stats.compilation.missingDependencies] };
            });
          },
        },
      ],
    }),
  });
  if (!inputs) throw new Error('webpack finished without reporting the files it read');
  return { code, ...inputs };
}

/** Writes a freshly built bundle (the worker's interceptor modules and failure converter, as every replay bundles them). */
export async function buildWorkflowBundle(outPath: string, versioned = false): Promise<string> {
  const { code } = await bundleWorkflows(workflowBundleOptions(undefined, versioned));
  await mkdir(dirname(outPath), { recursive: true });
  await writeFile(outPath, code);
  return outPath;
}

// Both: a worker takes the one for its RELAYFLOW_WORKER_VERSIONING.
if (import.meta.url === `file://${process.argv[1]}`) {
  const out = resolve(process.argv[2] ?? 'dist/workflow-bundle.js');
  const versionedOut = out.replace(/\.js$/, '-versioned.js');
  await buildWorkflowBundle(out);
  await buildWorkflowBundle(versionedOut, true);
  console.log(`workflow bundles written to ${out} and ${versionedOut}`);
}
