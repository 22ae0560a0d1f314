// npm test runs the heavy test files from a compiled copy of the tree (scripts/lib/test-compile.ts) in the run's
// directory, removed when the run ends; a test run alone through tsx runs from the checkout. What a test needs to
// know of the difference: the checkout's own file for a path of its tree, and how to start an entry point.
import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The root of the tree this file runs from: the checkout, or the run's compiled copy of it. */
const TREE_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Tests run from the checkout's root (the working directory), whichever tree their code comes from. */
const fromCompiledCopy = resolve(TREE_ROOT) !== resolve('.');

/** The checkout's own file for a path of this tree: a source for its compiled file, the path itself outside the tree. */
export function inCheckout(path: string): string {
  const rel = relative(TREE_ROOT, path);
  if (!fromCompiledCopy || rel.startsWith('..')) return path;
  const source = resolve(rel.replace(/\.js$/, '.ts'));
  return existsSync(source) ? source : resolve(rel);
}

/** The run's compiled copy: this tree, or the one npm test names to the files that run from the checkout (unit files). */
const compiledRoot = fromCompiledCopy ? TREE_ROOT : process.env.RELAYFLOW_TEST_COMPILED_DIR;

/**
 * Node's arguments to start an entry point (`workers/main.ts`, `api/main.ts`, a helper script; relative to the
 * checkout) as a process of its own: the run's compiled JavaScript when there is one (through tsx the child paid
 * about 1.5 s more CPU to start), else the TypeScript through tsx.
 */
export function entryArgs(entry: string): string[] {
  const compiled = compiledRoot && join(compiledRoot, entry.replace(/\.ts$/, '.js'));
  // Stack traces in TypeScript lines only on request, as for the test files (scripts/lib/test-pool.ts): mapping costs CPU.
  return compiled && existsSync(compiled)
    ? [...(process.env.RELAYFLOW_TEST_SOURCE_MAPS ? ['--enable-source-maps'] : []), compiled]
    : ['--import', 'tsx', entry];
}
