// A fresh embedded database for each harness, without initdb each time: initdb in PGlite takes seconds
// (most of a harness start), loading a copy of a fresh data directory a fraction of that. The copy is made
// once per PGlite version and kept on disk, so test files running side by side share it; each store still
// runs its migrations (store/schema.ts) as a deployment's does.
import { readFile, rename, writeFile, mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { embeddedSnapshot } from '../../store/index.js';

// From the working directory (tests run at the repo's root), so a compiled copy of this file
// (scripts/lib/test-compile.ts) finds the same package and the same copy.

async function pgliteVersion(): Promise<string> {
  const pkg = JSON.parse(await readFile(resolve('node_modules/@electric-sql/pglite/package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

let cached: Promise<Blob> | undefined;

/** The fresh data directory a test store starts from (made and written on first use). */
export function freshStoreSnapshot(): Promise<Blob> {
  cached ??= load().catch((err) => {
    cached = undefined; // a later harness tries again
    throw err;
  });
  return cached;
}

async function load(): Promise<Blob> {
  const file = join(resolve('.relayflow/test'), `pglite-${await pgliteVersion()}-datadir.tar`);
  try {
    return new Blob([await readFile(file)]);
  } catch {
    const snapshot = await embeddedSnapshot();
    await mkdir(dirname(file), { recursive: true });
    // Written aside, then renamed: a file starting at the same time never reads half a copy.
    const partial = `${file}.${process.pid}.partial`;
    await writeFile(partial, Buffer.from(await snapshot.arrayBuffer()));
    await rename(partial, file);
    return snapshot;
  }
}
