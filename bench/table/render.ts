// The table as text (the end of `npm run bench`'s output) and as markdown (docs/benchmarks.md): one line per
// figure, or per bench without a result; the baselines and the benches' notes under it. Pure.
import type { BenchOutcome, TableRun } from './outcome.js';
import { num, summarise, targetText } from './summary.js';

const HEADER = ['bench', 'figure', 'relayflow (median)', 'baseline (median)', 'ratio min / median / max', 'target', 'met'];

export function tableCells(benches: readonly BenchOutcome[]): string[][] {
  return benches.flatMap((b) => {
    if (b.status !== 'ok' || !b.result) return [[b.bench, `${b.status}${b.detail ? `: ${b.detail}` : ''}`, '', '', '', '', '–']];
    return b.result.rows.map((row) => {
      const s = summarise(row);
      const withUnit = (v: number) => (Number.isFinite(v) ? `${num(v)} ${row.unit}`.trimEnd() : '–');
      const ratio = row.ratios.length ? `${num(s.ratio.min)} / ${num(s.ratio.median)} / ${num(s.ratio.max)}` : '–';
      return [
        b.bench,
        row.figure,
        withUnit(s.relayflow),
        withUnit(s.baseline),
        ratio,
        targetText(row.target, row.unit),
        s.met === undefined ? '–' : s.met ? 'yes' : 'NO',
      ];
    });
  });
}

/** What goes under the table: each baseline once per bench, each bench's notes, what was left out. */
function footerLines(run: Pick<TableRun, 'benches' | 'leftOut'>): string[] {
  const lines: string[] = [];
  for (const b of run.benches) {
    const figuresBy = new Map<string, string[]>();
    for (const row of b.result?.rows ?? []) figuresBy.set(row.baseline, [...(figuresBy.get(row.baseline) ?? []), row.figure]);
    for (const [baseline, figures] of figuresBy) if (baseline && baseline !== 'none') lines.push(`baseline of ${b.bench} (${figures.join('; ')}): ${baseline}`);
  }
  for (const b of run.benches) {
    const rounds = b.result ? `, ${b.result.rounds} round${b.result.rounds === 1 ? '' : 's'}` : '';
    lines.push(`${b.bench}: ${b.status} in ${Math.round(b.seconds)} s${rounds}${b.status === 'ok' && b.detail ? ` (${b.detail})` : ''}`);
    for (const note of b.result?.notes ?? []) lines.push(`${b.bench}: ${note}`);
  }
  for (const l of run.leftOut) lines.push(`${l.bench}: left out of the short table (${l.why})`);
  return lines;
}

function textTable(cells: readonly string[][]): string {
  const all = [HEADER, ...cells];
  const widths = HEADER.map((_, i) => Math.max(...all.map((r) => [...(r[i] ?? '')].length)));
  const line = (r: readonly string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(HEADER), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)].join('\n');
}

export function markdownTable(cells: readonly string[][]): string {
  const esc = (c: string) => c.replaceAll('|', '\\|');
  const line = (r: readonly string[]) => `| ${r.map(esc).join(' | ')} |`;
  return [line(HEADER), `|${HEADER.map(() => '---').join('|')}|`, ...cells.map(line)].join('\n');
}

function machineLine(run: Pick<TableRun, 'machine' | 'profile' | 'target' | 'startedAt' | 'wallSeconds'>): string {
  const m = run.machine;
  // The dev target's line stays as it was (the recorded tables); the cluster's says where it ran.
  const target = run.target === 'cluster' ? ', target cluster (Temporal server on PostgreSQL, as npm run cluster runs it)' : '';
  const cli = m.temporalCli && run.target !== 'cluster' ? `, Temporal CLI ${m.temporalCli.version ?? '(version unknown)'} from ${m.temporalCli.source}` : '';
  const git = m.git ? `, commit ${m.git.commit.slice(0, 10)}${m.git.dirty ? ' (with uncommitted changes)' : ''}` : '';
  return (
    `${run.profile} profile${target}, ${run.startedAt}, ${Math.round(run.wallSeconds)} s wall; ${m.cpus.count} × ${m.cpus.model}, ` +
    `${m.totalMemoryGiB} GiB, Node ${m.node}, ${m.platform} ${m.release}${cli}${git}`
  );
}

/** One line for the end: how many targets were met in every round, how many benches gave no result. */
function verdictLine(benches: readonly BenchOutcome[]): string {
  const rows = benches.flatMap((b) => b.result?.rows ?? []).filter((r) => r.target);
  const met = rows.filter((r) => summarise(r).met).length;
  const missing = benches.filter((b) => b.status !== 'ok').length;
  return `targets met in every round: ${met} of ${rows.length}${missing ? `; ${missing} bench${missing === 1 ? '' : 'es'} without a result` : ''}`;
}

export function renderText(run: TableRun): string {
  return [textTable(tableCells(run.benches)), '', ...footerLines(run).map((l) => `- ${l}`), '', machineLine(run), verdictLine(run.benches)].join('\n');
}

export function renderMarkdown(run: TableRun): string {
  return [machineLine(run), '', markdownTable(tableCells(run.benches)), '', ...footerLines(run).map((l) => `- ${l}`)].join('\n');
}
