// Runs several test files in this one process, one after another (the runner's unit batches): node's own
// `--test` starts a process per file, and loading relayflow's modules through tsx cost each unit file more
// CPU than its tests. Only for files whose hooks sit inside a describe() (scripts/lib/test-pool.ts checks):
// node:test runs top-level before/after hooks of files imported together at the wrong time.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

for (const file of process.argv.slice(2)) await import(pathToFileURL(resolve(file)).href);
