// An onboarding plan body turned into the steps the workflow runs (StepPlan[]), each child's input built by its
// own route's builder, and every rule the plan breaks collected at once (a 422 naming each field). Pure: what the
// platform says (questionnaires, categories, policies) is read first (lookups.ts) and passed in.
import { createHash } from 'node:crypto';
import type { Static } from 'typebox';
import type { Config } from '../../../../common/config.js';
import type { SubjectHasher } from '../../../../common/subject-hash.js';
import { workflowTypeOf } from '../../../kinds.js';
import type { StepBinding, StepDependency, StepKind, StepPlan } from '../contract.js';
import type { ChatbCategory, RcsQuestionnaire } from '../../../../common/wire/provisioning.js';
import type { Policy } from '../../../../common/wire/senderid.js';
import type { ErrorDetail } from '../../../../api/errors.js';
import type { BuiltProcess } from '../../../../api/processes/start.js';
import { bundleInput, chataSenderInput, chatbSenderInput, rcsSenderInput, templateInput } from '../../../provisioning/routes/inputs.js';
import { registrationInput } from '../../../senderid/senderid-registration/routes/inputs.js';
import { subprojectInput } from '../../../subprojects/subproject/routes/inputs.js';
import type { AddSteps, StartOnboarding } from './schemas.js';

export type OnboardingBody = Static<typeof StartOnboarding>;
export type StepItems = Static<typeof AddSteps>;

/** The singletons' step names, which items cannot take. */
const RESERVED_STEP_NAMES = ['subproject', 'bundle', 'webhook'] as const;

/** What is made for the customer goes in its subproject (used with the parent project's key, spec part E). */
const IN_SUBPROJECT: StepBinding[] = [{ from: 'subproject', field: 'subprojectId', into: 'projectId' }];

export interface PlanLookups {
  /** The RCS questionnaire of a use case and countries; undefined when it could not be read (the platform checks later). */
  questionnaire(useCase: string, countries: readonly string[]): RcsQuestionnaire | undefined;
  /** The CHATB categories; undefined when they could not be read. */
  categories: ChatbCategory[] | undefined;
  /** A sender ID policy; undefined when the platform does not know it. */
  policy(policyId: string): Policy | undefined;
}

export interface PlanContext {
  projectId: string;
  config: Pick<Config, 'processes' | 'api'>;
  hashSubject: SubjectHasher;
  lookups: PlanLookups;
}

/** A step the onboarding has already (from its status: every process step names its process from the start), or one of this plan's singletons. */
export interface KnownStep {
  name: string;
  kind: StepKind;
  processId?: string;
}

export interface BuiltPlan {
  errors: ErrorDetail[];
  steps: StepPlan[];
}

const CHANNEL_OF: Partial<Record<StepKind, 'CHATA' | 'CHATB'>> = { 'chata-sender': 'CHATA', 'chatb-sender': 'CHATB' };

/** The field that keys each item's process: a second item with the same process is named by it. */
const KEY_FIELD = { rcsSenders: 'displayName', chataSenders: 'phoneNumber', chatbSenders: 'displayName', templates: 'name', senderIds: 'key' } as const;

/** A whole plan: the singletons, then the items after them. */
export function buildOnboardingPlan(body: OnboardingBody, ctx: PlanContext): BuiltPlan {
  const errors: ErrorDetail[] = [];
  const steps: StepPlan[] = [];
  const process = (b: BuiltProcess) => ({ workflowType: workflowTypeOf(b.kind), processId: b.processId, input: b.input });
  if (body.subproject) {
    const built = subprojectInput(body.subproject, 'body.subproject', ctx);
    errors.push(...built.errors);
    steps.push({ name: 'subproject', kind: built.kind, process: process(built), after: [] });
  }
  if (body.bundle) {
    const built = bundleInput(body.bundle, 'body.bundle', { ...ctx, key: body.key });
    errors.push(...built.errors);
    if (body.subproject && body.bundle.createSubproject) {
      errors.push({
        field: 'body.bundle.createSubproject',
        rule: 'exclusive',
        message: "cannot be true in a plan with a subproject: the bundle goes in the plan's subproject",
      });
    }
    steps.push({
      name: 'bundle',
      kind: built.kind,
      process: process(built),
      after: body.subproject ? [{ step: 'subproject' }] : [],
      ...(body.subproject ? { bind: [{ from: 'subproject', field: 'subprojectId', into: 'bundle.subprojectId' }] } : {}),
    });
  }
  if (body.webhook) {
    const { target, secret, triggers } = body.webhook;
    // In a plan with a subproject the webhook is the subproject's: that is where its senders' and templates' events happen.
    steps.push({
      name: 'webhook',
      kind: 'webhook',
      webhook: { target, secret, ...(triggers ? { triggers } : {}) },
      after: body.subproject ? [{ step: 'subproject' }] : [],
      ...(body.subproject ? { bind: IN_SUBPROJECT } : {}),
    });
  }
  const known: KnownStep[] = steps.map((s) => ({ name: s.name, kind: s.kind, ...(s.process ? { processId: s.process.processId } : {}) }));
  const items = buildItems(body, ctx, known, false);
  errors.push(...items.errors);
  steps.push(...items.steps);
  if (steps.length === 0)
    errors.push({
      field: 'body',
      rule: 'required',
      message: 'must hold at least one step: subproject, bundle, webhook, rcsSenders, chataSenders, chatbSenders, templates or senderIds',
    });
  return { errors, steps };
}

/**
 * Steps added to a running onboarding that has `existing` steps. `repeat` (the request carries an
 * Idempotency-Key): a step like an existing one (name, kind, and process where it reports one) may be the same
 * request again, not a clash; the process answers a repeated operation as it did the first time, and refuses
 * (409) a new one that reuses a name.
 */
export function buildAddedSteps(items: StepItems, ctx: PlanContext, existing: KnownStep[], repeat: boolean): BuiltPlan {
  const built = buildItems(items, ctx, existing, repeat);
  if (built.steps.length === 0)
    built.errors.push({
      field: 'body',
      rule: 'required',
      message: 'must hold at least one step: rcsSenders, chataSenders, chatbSenders, templates or senderIds',
    });
  return built;
}

function buildItems(items: StepItems, ctx: PlanContext, known: KnownStep[], repeat: boolean): BuiltPlan {
  const errors: ErrorDetail[] = [];
  const steps: StepPlan[] = [];
  const byName = new Map(known.map((s) => [s.name, s]));
  const byProcess = new Map(known.flatMap((s) => (s.processId ? [[s.processId, s.name] as const] : [])));
  const before = (names: readonly string[]): StepDependency[] => names.filter((n) => byName.has(n)).map((step) => ({ step }));
  // Senders wait for what the plan or the onboarding already has of the singletons (soft: a skipped one does not stop them).
  const senderAfter = before(RESERVED_STEP_NAMES);
  const registrationAfter = before(['subproject']);
  // Senders and templates are made in the customer's subproject when the onboarding has one (a skipped subproject
  // leaves them in the platform project). Sender ID registrations stay in the platform project: docs/onboarding.md.
  const bind = byName.get('subproject')?.kind === 'subproject' ? { bind: IN_SUBPROJECT } : {};

  const add = (prefix: string, keyField: string, name: string, built: BuiltProcess<unknown, Exclude<StepKind, 'webhook'>>, after: StepDependency[]) => {
    errors.push(...built.errors);
    const same = byName.get(name);
    const reserved = (RESERVED_STEP_NAMES as readonly string[]).includes(name);
    // A step without a process (the webhook) is compared by kind.
    const isRepeat = repeat && same?.kind === built.kind && (same.processId === undefined || same.processId === built.processId);
    if (reserved) errors.push({ field: `${prefix}.step`, rule: 'reserved', message: `${name} names the onboarding's ${name} step; pick another name` });
    else if (same && !isRepeat) errors.push({ field: `${prefix}.step`, rule: 'unique', message: `another step is already named ${name}` });
    const other = byProcess.get(built.processId);
    if (other !== undefined && !isRepeat) {
      errors.push({
        field: `${prefix}.${keyField}`,
        rule: 'duplicate_process',
        message: `makes the same ${built.kind} process as step ${other} (${built.processId})`,
      });
    }
    // The first holder of a name or a process is the one later items are compared with (and templates refer to).
    if (!same && !reserved) byName.set(name, { name, kind: built.kind, processId: built.processId });
    if (other === undefined) byProcess.set(built.processId, name);
    const inSubproject = built.kind === 'senderid-registration' ? {} : bind;
    steps.push({
      name,
      kind: built.kind,
      process: { workflowType: workflowTypeOf(built.kind), processId: built.processId, input: built.input },
      after,
      ...inSubproject,
    });
  };

  items.rcsSenders?.forEach(({ step, ...b }, i) => {
    const prefix = `body.rcsSenders.${i}`;
    add(
      prefix,
      KEY_FIELD.rcsSenders,
      step,
      rcsSenderInput(b, prefix, { ...ctx, questionnaire: ctx.lookups.questionnaire(b.useCase, b.countries) }),
      senderAfter,
    );
  });
  items.chataSenders?.forEach(({ step, ...b }, i) => {
    const prefix = `body.chataSenders.${i}`;
    add(prefix, KEY_FIELD.chataSenders, step, chataSenderInput(b, prefix, ctx), senderAfter);
  });
  items.chatbSenders?.forEach(({ step, ...b }, i) => {
    const prefix = `body.chatbSenders.${i}`;
    add(prefix, KEY_FIELD.chatbSenders, step, chatbSenderInput(b, prefix, { ...ctx, categories: ctx.lookups.categories }), senderAfter);
  });
  items.senderIds?.forEach(({ step, ...b }, i) => {
    const prefix = `body.senderIds.${i}`;
    add(prefix, KEY_FIELD.senderIds, step, registrationInput(b, prefix, { ...ctx, policy: ctx.lookups.policy(b.policyId) }), registrationAfter);
  });
  items.templates?.forEach(({ step, sender, ...b }, i) => {
    const prefix = `body.templates.${i}`;
    const target = byName.get(sender);
    const channel = target ? CHANNEL_OF[target.kind] : undefined;
    if (!channel) {
      const message = !target
        ? `names no step of the onboarding (${sender})`
        : target.kind === 'rcs-sender'
          ? `names the RCS sender ${sender}: templates are for CHATA or CHATB senders`
          : `names ${sender}, a ${target.kind} step: a template's sender is a CHATA or CHATB sender step`;
      errors.push({ field: `${prefix}.sender`, rule: 'sender_step', message });
      // The template's own rules still count; without a channel it has no process to compare or start.
      errors.push(...templateInput(b, prefix, { ...ctx, channel: 'CHATA' }).errors);
      return;
    }
    add(prefix, KEY_FIELD.templates, step, templateInput(b, prefix, { ...ctx, channel }), [{ step: sender, hard: true }]);
  });
  return { errors, steps };
}

/** JSON with every object's keys sorted: the same plan written in another key order is the same text. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The plan's hash as the caller sent it: the same key with another plan is refused. */
export const planHash = (body: OnboardingBody) => createHash('sha256').update(canonicalJson(body)).digest('hex');
