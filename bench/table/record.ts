// Where a table goes after it is printed: every run to bench/results/<profile>-<UTC time>.json (kept out of
// git, for comparing runs locally); with --record also to bench/results/latest-<profile>.json (committed: what
// the CI alarm compares with) and, as markdown, into docs/benchmarks.md between its markers for the profile.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Profile } from '../suite.js';
import type { TableRun } from './outcome.js';
import { renderMarkdown } from './render.js';

const RESULTS_DIR = 'bench/results';
const DOCS_FILE = 'docs/benchmarks.md';
export const latestFile = (profile: Profile) => join(RESULTS_DIR, `latest-${profile}.json`);

export async function writeRun(run: TableRun, opts: { record: boolean; root?: string }): Promise<string[]> {
  const root = opts.root ?? '.';
  await mkdir(join(root, RESULTS_DIR), { recursive: true });
  const json = `${JSON.stringify(run, null, 2)}\n`;
  const stamp = run.startedAt.replace(/[:.]/g, '-');
  const files = [join(RESULTS_DIR, `${run.profile}-${stamp}.json`)];
  if (opts.record) files.push(latestFile(run.profile));
  for (const f of files) await writeFile(join(root, f), json);
  if (opts.record) {
    const doc = join(root, DOCS_FILE);
    await writeFile(doc, replaceSection(await readFile(doc, 'utf8'), run.profile, renderMarkdown(run)));
    files.push(DOCS_FILE);
  }
  return files;
}

const markers = (profile: Profile) => [`<!-- bench-table:${profile}:start -->`, `<!-- bench-table:${profile}:end -->`] as const;

/** The doc with the text between the profile's markers replaced; the markers must be there. */
export function replaceSection(doc: string, profile: Profile, body: string): string {
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
