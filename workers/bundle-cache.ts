// Reuses the workflow bundle while nothing webpack would read has changed: `npm start`, `npm test` and the
// benches skip webpack (about 4 s) when the workflows are as they were. An entry is the bundle and a manifest
// of its inputs: every file webpack read (the workflows' whole import graph, the SDK's workflow library, the
// package.json files it consulted) with its content hash, the paths it probed without finding, and a hash of
// the bundler's options and of the versions of the packages that bundle. The entry is reused only when all of
// them are as recorded and the bundle's own hash matches; anything else (a changed or new file, another SDK,
// a corrupt or half-written entry) builds again. Files are written under a temporary name and renamed.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BundleOptions } from '@temporalio/worker';
import { bundleWorkflows, type WorkflowBundleOptions } from './build-bundle.js';
import { workflowBundleOptions } from './workflow-options.js';

/** Bumped when the manifest's meaning changes: older entries are then never reused. */
const FORMAT = 1;
/** Entries kept, the most recently used first (about 4.5 MB each). */
const KEEP = 6;
/** What bundles: the SDK's bundler (its options and module overrides), webpack and the loaders it runs. */
const BUNDLER_PACKAGES: ReadonlyArray<readonly [name: string, resolvedFrom: string]> = [
  ['@temporalio/worker', ''],
  ['webpack', '@temporalio/worker'],
  ['swc-loader', '@temporalio/worker'],
  ['source-map-loader', '@temporalio/worker'],
  ['@swc/core', 'swc-loader'],
];

/** The checkout's cache (`npm test`, the benches; `npm start` keeps its own under its data directory, by default the same). */
export const CHECKOUT_BUNDLE_CACHE = fileURLToPath(new URL('../.relayflow/workflow-bundles', import.meta.url));

interface Manifest {
  format: number;
  setup: string;
  /** Path to sha256 of its content; 'dir' for a directory; null when not on disk (the SDK's generated entry point). */
  files: Record<string, string | null>;
  missing: string[];
  /** sha256 of the bundle. */
  code: string;
}

export interface CachedBundle {
  path: string;
  /** Names the inputs: the same key is the same workflows, options and bundler. */
  key: string;
  reused: boolean;
  seconds: number;
}

export interface BundleCacheOptions {
  /** What to bundle; the worker's workflows, interceptor modules and failure converter by default. */
  options?: WorkflowBundleOptions;
  /** Where webpack's output goes on a build (the SDK's own logger prints it at info by default). */
  logger?: BundleOptions['logger'];
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** The bundle for the options: the cached one when its inputs are unchanged, else a new build, then cached. */
export async function cachedWorkflowBundle(cacheDir: string, opts: BundleCacheOptions = {}): Promise<CachedBundle> {
  const t0 = performance.now();
  const seconds = () => (performance.now() - t0) / 1000;
  const options = opts.options ?? workflowBundleOptions();
  const setup = setupKey(options);
  await mkdir(cacheDir, { recursive: true });
  for (const manifestFile of await manifestsNewestFirst(cacheDir)) {
    const key = manifestFile.slice(0, -'.json'.length);
    const path = join(cacheDir, `${key}.js`);
    if (await stillValid(join(cacheDir, manifestFile), path, setup)) {
      const now = new Date();
      await utimes(join(cacheDir, manifestFile), now, now).catch(() => undefined);
      return { path, key, reused: true, seconds: seconds() };
    }
  }
  const built = await bundleWorkflows(options, opts.logger);
  const files: Manifest['files'] = {};
  for (const f of [...built.files].sort()) files[f] = await fileState(f);
  const key = sha256(JSON.stringify([setup, files, [...built.missing].sort()])).slice(0, 32);
  const manifest: Manifest = { format: FORMAT, setup, files, missing: [...built.missing].sort(), code: sha256(built.code) };
  const path = join(cacheDir, `${key}.js`);
  await writeAtomically(path, built.code);
  // The manifest last: an entry is complete once its manifest is there.
  await writeAtomically(join(cacheDir, `${key}.json`), JSON.stringify(manifest));
  await prune(cacheDir);
  return { path, key, reused: false, seconds: seconds() };
}

async function stillValid(manifestPath: string, bundlePath: string, setup: string): Promise<boolean> {
  let m: Manifest;
  try {
    m = JSON.parse(await readFile(manifestPath, 'utf8')) as Manifest;
  } catch {
    return false;
  }
  if (m?.format !== FORMAT || m.setup !== setup || typeof m.files !== 'object' || !Array.isArray(m.missing)) return false;
  // The project's own files first: they are the ones that change.
  const entries = Object.entries(m.files).sort(([a], [b]) => Number(a.includes('/node_modules/')) - Number(b.includes('/node_modules/')));
  for (const [file, was] of entries) if ((await fileState(file)) !== was) return false;
  if (m.missing.some((p) => existsSync(p))) return false;
  const code = await readFile(bundlePath).catch(() => undefined);
  return code !== undefined && sha256(code) === m.code;
}

async function fileState(path: string): Promise<string | null> {
  const s = await stat(path).catch(() => undefined);
  if (!s) return null;
  return s.isDirectory() ? 'dir' : sha256(await readFile(path));
}

/** The bundler's options and the versions of what bundles. */
function setupKey(options: WorkflowBundleOptions): string {
  const versions = BUNDLER_PACKAGES.map(([name, from]) => `${name}@${packageVersion(name, from)}`);
  return sha256(JSON.stringify({ format: FORMAT, options, versions }));
}

function packageVersion(name: string, resolvedFrom: string): string {
  const base = resolvedFrom ? createRequire(import.meta.url).resolve(resolvedFrom) : import.meta.url;
  let dir = dirname(createRequire(base).resolve(name));
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === name) return pkg.version ?? '?';
    }
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json of ${name} above ${dir}`);
    dir = up;
  }
}

async function manifestsNewestFirst(cacheDir: string): Promise<string[]> {
  const names = (await readdir(cacheDir)).filter((n) => /^[0-9a-f]{32}\.json$/.test(n));
  const dated = await Promise.all(names.map(async (n) => [n, (await stat(join(cacheDir, n)).catch(() => undefined))?.mtimeMs ?? 0] as const));
  return dated.sort((a, b) => b[1] - a[1]).map(([n]) => n);
}

async function writeAtomically(path: string, data: string): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, data);
  await rename(tmp, path);
}

async function prune(cacheDir: string): Promise<void> {
  for (const old of (await manifestsNewestFirst(cacheDir)).slice(KEEP)) {
    const key = old.slice(0, -'.json'.length);
    await Promise.all([rm(join(cacheDir, old), { force: true }), rm(join(cacheDir, `${key}.js`), { force: true })]);
  }
}
