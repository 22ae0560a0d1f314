// The simulated reviewers' settings (startup options, PUT /_sandbox/provisioning/reviewer) and the
// scheduling of their decisions. The decision is taken from the settings at submit / launch /
// create time, so changing the settings later affects only later submissions. Pending decisions are
// due jobs (plain JSON with the decision), so a persistent sandbox still makes them after a restart.
import type { ProvisioningReviewerOptions } from '../../core/options.js';
import { CHATA_ERROR_CODES, REJECTION_CODES } from '../../../common/wire/provisioning.js';
import type { DueJobs } from '../../core/due-jobs.js';
import { isObject, join, type Json } from '../../core/fields.js';
import { COUNTRY, fields } from './validation.js';

export interface ReviewerConfig {
  templates: { outcome: 'approve' | 'reject'; rejectionCode: string; delayMs: number; comment?: string };
  rcs: { outcome: 'launch' | 'reject'; delayMs: number; rejectCountries: string[]; comment?: string };
  chataSenders: { outcome: 'activate' | 'reject' | 'error'; errorCode: string; delayMs: number };
  chatbSenders: { outcome: 'activate' | 'reject'; delayMs: number; comment?: string };
}

const DEFAULT_DELAY_MS = 1000;
const MAX_DELAY_MS = 3_600_000;

const BUILTIN_REVIEWER: ReviewerConfig = {
  templates: { outcome: 'approve', rejectionCode: 'INVALID_FORMAT', delayMs: DEFAULT_DELAY_MS },
  rcs: { outcome: 'launch', delayMs: DEFAULT_DELAY_MS, rejectCountries: [] },
  chataSenders: { outcome: 'activate', errorCode: 'UNKNOWN_ERROR', delayMs: DEFAULT_DELAY_MS },
  chatbSenders: { outcome: 'activate', delayMs: DEFAULT_DELAY_MS },
};

/** Each section given replaces that section, its missing fields taken from `base`; throws invalid_input. */
function parseReviewer(input: unknown, base: ReviewerConfig): ReviewerConfig {
  const f = fields();
  const body = f.body(input ?? {}, ['templates', 'rcs', 'chataSenders', 'chatbSenders']);
  const out = structuredClone(base);
  const delay = (s: Json, p: string, fallback: number) => f.integer(s, 'delayMs', p, { min: 0, max: MAX_DELAY_MS }) ?? fallback;
  const comment = (s: Json, p: string) => f.string(s, 'comment', p, { min: 1, max: 1024 });

  const t = f.object(body, 'templates', '', ['outcome', 'rejectionCode', 'delayMs', 'comment']);
  if (t) {
    const b = base.templates;
    out.templates = {
      outcome: f.oneOf(t, 'outcome', 'templates', ['approve', 'reject']) ?? b.outcome,
      rejectionCode: f.oneOf(t, 'rejectionCode', 'templates', REJECTION_CODES) ?? b.rejectionCode,
      delayMs: delay(t, 'templates', b.delayMs),
      ...optional('comment', comment(t, 'templates') ?? b.comment),
    };
  }
  const r = f.object(body, 'rcs', '', ['outcome', 'delayMs', 'rejectCountries', 'comment']);
  if (r) {
    const b = base.rcs;
    const countries = f.array(r, 'rejectCountries', 'rcs');
    countries?.forEach((c, i) => {
      if (typeof c !== 'string' || !COUNTRY.test(c)) f.add(join('rcs.rejectCountries', i), 'must be an ISO 3166-1 alpha-2 code such as FR');
    });
    out.rcs = {
      outcome: f.oneOf(r, 'outcome', 'rcs', ['launch', 'reject']) ?? b.outcome,
      delayMs: delay(r, 'rcs', b.delayMs),
      rejectCountries: (countries as string[] | undefined) ?? b.rejectCountries,
      ...optional('comment', comment(r, 'rcs') ?? b.comment),
    };
  }
  const a = f.object(body, 'chataSenders', '', ['outcome', 'errorCode', 'delayMs']);
  if (a) {
    const b = base.chataSenders;
    out.chataSenders = {
      outcome: f.oneOf(a, 'outcome', 'chataSenders', ['activate', 'reject', 'error']) ?? b.outcome,
      errorCode: f.oneOf(a, 'errorCode', 'chataSenders', CHATA_ERROR_CODES) ?? b.errorCode,
      delayMs: delay(a, 'chataSenders', b.delayMs),
    };
  }
  const c = f.object(body, 'chatbSenders', '', ['outcome', 'delayMs', 'comment']);
  if (c) {
    const b = base.chatbSenders;
    out.chatbSenders = {
      outcome: f.oneOf(c, 'outcome', 'chatbSenders', ['activate', 'reject']) ?? b.outcome,
      delayMs: delay(c, 'chatbSenders', b.delayMs),
      ...optional('comment', comment(c, 'chatbSenders') ?? b.comment),
    };
  }
  f.check();
  return out;
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** Startup settings from SandboxOptions; a bad value stops createSandbox with the field named. */
export function startupReviewer(options: ProvisioningReviewerOptions): ReviewerConfig {
  try {
    return parseReviewer(isObject(options) ? options : {}, BUILTIN_REVIEWER);
  } catch (err) {
    throw new Error(`sandbox option provisioningReviewer: ${err instanceof Error ? err.message : String(err)}`);
  }
}

export class Reviewer {
  private current: ReviewerConfig;

  constructor(
    private readonly startup: ReviewerConfig,
    private readonly jobs: DueJobs,
  ) {
    this.current = structuredClone(startup);
  }

  get config(): ReviewerConfig {
    return structuredClone(this.current);
  }

  /** PUT semantics over the startup settings: sections not given keep their current value. */
  set(input: unknown): ReviewerConfig {
    const parsed = parseReviewer(input, this.startup);
    const given = isObject(input) ? input : {};
    for (const k of Object.keys(this.current) as (keyof ReviewerConfig)[]) {
      if (given[k] !== undefined) (this.current as unknown as Record<string, unknown>)[k] = parsed[k];
    }
    return this.config;
  }

  /**
   * Registers what a decision of `kind` does (once, at setup) and returns the function that submits a
   * resource: `act` runs with `data` and the decision taken at submit time, after its delayMs, unless
   * cancel(resourceId) drops it first. `data` must be plain JSON (it is saved with the pending review).
   */
  reviews<K extends keyof ReviewerConfig, D>(
    section: K,
    kind: string,
    act: (data: D, decision: ReviewerConfig[K]) => void,
  ): (resourceId: string, data: D) => void {
    this.jobs.handle<{ data: D; decision: ReviewerConfig[K] }>(kind, (job) => act(job.data, job.decision));
    return (resourceId, data) => {
      const decision = structuredClone(this.current[section]);
      this.jobs.after(kind, decision.delayMs, { data, decision }, resourceId);
    };
  }

  cancel(resourceId: string): void {
    this.jobs.cancel(resourceId);
  }

  reset(): void {
    this.current = structuredClone(this.startup);
  }
}
