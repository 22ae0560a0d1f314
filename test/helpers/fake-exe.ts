// Temp dirs and fake executables (shell scripts) for the tests of the tool finders in scripts/lib/.
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';

interface Scratch {
  /** A fresh directory. */
  dir(): Promise<string>;
  remove(): Promise<void>;
}

/** A temp dir other users can traverse (as root, PostgreSQL's checks run as the `postgres` user). */
async function scratch(prefix: string): Promise<Scratch> {
  const root = await mkdtemp(join(tmpdir(), prefix));
  await chmod(root, 0o755);
  let n = 0;
  return {
    async dir() {
      const d = join(root, `d${n++}`);
      await mkdir(d, { recursive: true });
      return d;
    },
    remove: () => rm(root, { recursive: true, force: true }),
  };
}

/** A shell script; its own PATH is the system's (the finder's PATH holds only fakes). */
export async function exe(path: string, script = 'exit 0'): Promise<string> {
  await writeFile(path, `#!/bin/sh\nPATH=/usr/bin:/bin\n${script}\n`, { mode: 0o755 });
  return path;
}

/** Fresh directories for the test file that calls this: their temp root is made before its tests and removed after. */
export function tempDirs(prefix: string): () => Promise<string> {
  let dirs: Scratch | undefined;
  before(async () => (dirs = await scratch(prefix)));
  after(() => dirs?.remove());
  return () => dirs!.dir();
}
