// The runner's compiled copy of the code for the files that start a whole relayflow (API, worker, sandbox):
// loaded through tsx, relayflow's module graph cost each such file about 5 s of CPU before its first test,
// half of it the loader's hooks; loaded as JavaScript, about half that. Compiled with esbuild (what tsx itself
// transforms with), file by file, the tree kept as it is under `outDir`, so every relative path still holds.
import { cpSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

/** The folders of TypeScript a test can import: the ones the type check covers (a new folder joins there first). */
const SOURCE_DIRS = (JSON.parse(readFileSync('tsconfig.json', 'utf8')) as { include: string[] }).include;

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => join(dir, f));
}

/** Compiles the sources into `outDir` (same layout, `.js` beside copied assets); returns how many files. */
export async function compileForTests(outDir: string): Promise<number> {
  const entryPoints = SOURCE_DIRS.flatMap(tsFiles);
  await build({ entryPoints, outdir: outDir, outbase: '.', format: 'esm', platform: 'node', target: 'node20', sourcemap: 'linked', logLevel: 'error' });
  // What code reads next to itself at run time: the audit page's files, and the workflows' sources (tests that
  // bundle the workflows anew bundle them from processes/workflows.ts).
  cpSync('api/routes/ui/static', join(outDir, 'api/routes/ui/static'), { recursive: true });
  for (const f of tsFiles('processes')) cpSync(f, join(outDir, f));
  return entryPoints.length;
}
