// Prebuilds the workflow bundle so production workers start without webpack.
import { writeFile, mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { FAILURE_CONVERTER_PATH } from '../common/data-converter.js';
import { WORKFLOW_INTERCEPTOR_MODULES, WORKFLOWS_PATH } from './worker.js';

export async function buildWorkflowBundle(outPath: string): Promise<string> {
  // Workflow failures are converted inside the bundle: without the path they reach the history in plain text.
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH, workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES, failureConverterPath: FAILURE_CONVERTER_PATH, logger: undefined,
  });
  await mkdir(dirname(outPath), { recursive: true });
  await writeFile(outPath, code);
  return outPath;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const out = resolve(process.argv[2] ?? 'dist/workflow-bundle.js');
  await buildWorkflowBundle(out);
  console.log(`workflow bundle written to ${out}`);
}
