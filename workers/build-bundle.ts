// Prebuilds the workflow bundle so production workers start without webpack.
import { writeFile, mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { workflowBundleOptions } from './workflow-options.js';

export async function buildWorkflowBundle(outPath: string): Promise<string> {
  // The worker's interceptor modules and failure converter, as every replay bundles them.
  const { code } = await bundleWorkflowCode({ ...workflowBundleOptions(), logger: undefined });
  await mkdir(dirname(outPath), { recursive: true });
  await writeFile(outPath, code);
  return outPath;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const out = resolve(process.argv[2] ?? 'dist/workflow-bundle.js');
  await buildWorkflowBundle(out);
  console.log(`workflow bundle written to ${out}`);
}
