// What each process may write to Temporal: its budget of actions (what Temporal Cloud bills) and history events
// (each a durable write the server makes before it answers), counted over every workflow the process touches.
// Counts are deterministic, so the CI alarm (bench/table/compare.ts, checkBudgets) fails on any count over its
// budget, with no slack. The one place the budgets are held: bench/actions.ts and bench/campaign.ts put them on
// their rows, and docs/benchmarks.md shows budgetTableMarkdown() (test/bench/budgets.test.ts checks they agree).
//   npx tsx bench/budgets.ts [--write]    prints the docs table; --write puts it into docs/benchmarks.md
import { readFile, writeFile } from 'node:fs/promises';
import { replaceSection } from './table/record.js';

export type BudgetBench = 'actions' | 'campaign';
export type Counted = 'actions' | 'events';

export interface Budget {
  /** The process as the figures name it: "Temporal actions per <process>", "history events per <process>". */
  process: string;
  /** What is counted, for the docs table. */
  scope: string;
  /** The bench that measures it. */
  bench: BudgetBench;
  actions?: number;
  events?: number;
  /**
   * The switch for a budget not met yet: the count the alarm enforces meanwhile, said openly (the alarm's line,
   * the docs table). Remove it once the budget holds.
   */
  notMetYet?: Partial<Record<Counted, number>>;
  /**
   * The part of the budget the process's events out take (already in `actions` and `events`): a local activity per
   * state change told, the start included, and the marker of the patch that turned them on, once per run.
   */
  forEvents?: Partial<Record<Counted, number>>;
}

/** Events out: one marker (action and event) for the run's patch, plus one for its start and each state change. */
const eventsOut = (runs: number, changes: number) => ({ actions: runs * 2 + changes, events: runs * 2 + changes });

export const BUDGETS: readonly Budget[] = [
  {
    process: 'verification',
    scope: 'the process and every workflow it touches (guards, if any)',
    bench: 'actions',
    actions: 8 + 4,
    events: 20 + 4,
    forEvents: eventsOut(1, 2),
  },
  { process: 'incoming call', scope: 'ICE to a connect rule, ACE, hang-up', bench: 'actions', actions: 4 + 4, events: 12 + 4, forEvents: eventsOut(1, 2) },
  { process: 'callout', scope: 'text-to-speech, answered', bench: 'actions', actions: 6 + 4, events: 20 + 4, forEvents: eventsOut(1, 2) },
  {
    process: 'provisioning webhook',
    scope: 'one comment webhook for a resource its process has claimed: every workflow it touches, per webhook',
    bench: 'actions',
    events: 4,
  },
  {
    process: 'onboarding',
    scope: 'the onboarding and all its children (and whatever they touch)',
    bench: 'actions',
    actions: 90 + 38,
    events: 320 + 38,
    forEvents: eventsOut(7, 24),
  },
  {
    process: '1,000 campaign messages',
    scope:
      "the campaign's process, per 1,000 messages of the profile's campaign (2,000 short, 8,000 full): its fixed actions shared by fewer messages in the short one; with a bound on the send chunks' heartbeats (the only activities that heartbeat)",
    bench: 'campaign',
    // Events out: the patch, the start and three changes of one campaign, shared by the short profile's 2,000 messages.
    actions: 5 + 2.5,
    forEvents: { actions: 2.5 },
  },
];

/** The figure a budget's count is reported under, in its bench's rows. */
export const budgetFigure = (process: string, counted: Counted) => `${counted === 'actions' ? 'Temporal actions' : 'history events'} per ${process}`;

export const budgetOf = (process: string): Budget => {
  const b = BUDGETS.find((x) => x.process === process);
  if (!b) throw new Error(`no budget for "${process}" in bench/budgets.ts`);
  return b;
};

/** One check the alarm makes: a figure of a bench against its budget, or against the count enforced meanwhile. */
export interface BudgetLimit {
  process: string;
  bench: BudgetBench;
  figure: string;
  counted: Counted;
  budget: number;
  /** What the alarm enforces: the budget, or the notMetYet count. */
  enforced: number;
}

export function budgetLimits(budgets: readonly Budget[] = BUDGETS): BudgetLimit[] {
  return budgets.flatMap((b) =>
    (['actions', 'events'] as const).flatMap((counted) => {
      const budget = b[counted];
      if (budget === undefined) return [];
      const enforced = b.notMetYet?.[counted] ?? budget;
      return [{ process: b.process, bench: b.bench, figure: budgetFigure(b.process, counted), counted, budget, enforced }];
    }),
  );
}

/** The budget of a figure, for its row's target (`≤ budget`); undefined for a figure without one. */
export function budgetTarget(process: string, counted: Counted): { of: 'value'; op: '<='; bound: number } | undefined {
  const bound = budgetOf(process)[counted];
  return bound === undefined ? undefined : { of: 'value', op: '<=', bound };
}

const cell = (b: Budget, counted: Counted) => {
  const budget = b[counted];
  if (budget === undefined) return '–';
  const meanwhile = b.notMetYet?.[counted];
  const events = b.forEvents?.[counted];
  const bound = events === undefined ? `≤ ${budget}` : `≤ ${budget} (${events} for events out)`;
  return meanwhile === undefined ? bound : `${bound} (not met yet: enforced at ${meanwhile})`;
};

/** The budget table of docs/benchmarks.md. */
export function budgetTableMarkdown(budgets: readonly Budget[] = BUDGETS): string {
  return [
    '| process | what is counted | bench | actions | history events |',
    '|---|---|---|---|---|',
    ...budgets.map((b) => `| ${b.process} | ${b.scope} | ${b.bench} | ${cell(b, 'actions')} | ${cell(b, 'events')} |`),
  ].join('\n');
}

/** Its markers in docs/benchmarks.md: `<!-- bench-table:budgets:start -->` and `:end`. */
const DOCS_SECTION = 'budgets';

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv.includes('--write')) {
    const doc = 'docs/benchmarks.md';
    await writeFile(doc, replaceSection(await readFile(doc, 'utf8'), DOCS_SECTION, budgetTableMarkdown()));
    process.stdout.write(`budget table written to ${doc}\n`);
  } else process.stdout.write(`${budgetTableMarkdown()}\n`);
}
