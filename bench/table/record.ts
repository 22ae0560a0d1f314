// Where a table goes after it is printed: every run to bench/results/<profile>-<UTC time>.json (kept out of
// git, for comparing runs locally); with --record also to bench/results/latest-<profile>.json (committed: what
// the CI alarm compares with) and, as markdown, into docs/benchmarks.md between its markers for the profile.
// A run on the cluster target goes to <profile>-cluster-* files and markers of its own: the recorded dev tables,
// which the alarm compares with, are never overwritten by figures from another server.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Profile } from '../suite.js';
import type { BenchTarget } from '../target.js';
import type { TableRun } from './outcome.js';
import { renderMarkdown } from './render.js';

const RESULTS_DIR = 'bench/results';
const DOCS_FILE = 'docs/benchmarks.md';
/** `full` for the dev target (the names from before there was a choice), `full-cluster` for the cluster. */
const recordKey = (profile: Profile, target: BenchTarget = 'dev') => (target === 'dev' ? profile : `${profile}-${target}`);
export const latestFile = (profile: Profile, target?: BenchTarget) => join(RESULTS_DIR, `latest-${recordKey(profile, target)}.json`);

export async function writeRun(run: TableRun, opts: { record: boolean; root?: string }): Promise<string[]> {
  const root = opts.root ?? '.';
  await mkdir(join(root, RESULTS_DIR), { recursive: true });
  const json = `${JSON.stringify(run, null, 2)}\n`;
  const stamp = run.startedAt.replace(/[:.]/g, '-');
  const key = recordKey(run.profile, run.target);
  const files = [join(RESULTS_DIR, `${key}-${stamp}.json`)];
  if (opts.record) files.push(latestFile(run.profile, run.target));
  for (const f of files) await writeFile(join(root, f), json);
  if (opts.record) {
    const doc = join(root, DOCS_FILE);
    await writeFile(doc, replaceSection(await readFile(doc, 'utf8'), key, renderMarkdown(run)));
    files.push(DOCS_FILE);
  }
  return files;
}

const markers = (profile: string) => [`<!-- bench-table:${profile}:start -->`, `<!-- bench-table:${profile}:end -->`] as const;

/** The doc with the text between the profile's markers replaced; the markers must be there. */
export function replaceSection(doc: string, profile: string, body: string): string {
  const [start, end] = markers(profile);
  const i = doc.indexOf(start);
  const j = doc.indexOf(end);
  if (i < 0 || j < i) throw new Error(`${DOCS_FILE}: the markers ${start} and ${end} are missing`);
  return `${doc.slice(0, i + start.length)}\n${body}\n${doc.slice(j)}`;
}

export async function readRun(file: string): Promise<TableRun | undefined> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  return text === undefined ? undefined : (JSON.parse(text) as TableRun);
}
