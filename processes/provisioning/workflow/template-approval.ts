// CHATA / CHATB template approval: create (submitted, or a draft then submitted), follow the review to
// APPROVED or REJECTED, resubmit an INCORRECT_CATEGORY rejection by itself when the caller allowed a
// category change, accept edits through the API, then keep watching quality, pause and disable until
// the template is deleted or the caller stops watching. `retire` deletes the template on the platform (under review
// or live) and ends the process RETIRED. A CHATA template's process also follows its business account's ban
// (ACCOUNT_BANNED while banned, back when lifted; account-state.ts). Long-lived: continues as new, carrying state.
import { allHandlersFinished, condition, continueAsNew, setHandler } from '@temporalio/workflow';
import type { QualityScore, RejectionCode, Template, TemplateCategory, TemplateState } from '../contract.js';
import { failureType } from '../../shared/workflow/failure-text.js';
import {
  deleteTemplateChangeUpdate,
  provisioningEventSignal,
  retireUpdate,
  resubmitSignal,
  resubmitUpdate,
  type OperationOutcome,
  type ProvisioningEvent,
  type ResubmitRequest,
  type TemplateApprovalInput,
} from '../contract.js';
import { chataTemplate } from '../chata-template/kind.js';
import { initialFollowDetails, type FollowDetails, type Take } from './follow.js';
import { attachToResource, inProject, interactive, platform, quickRead, reads, refused, resumeProcess, type ProcessCarry } from './process.js';
import { handleAction, operationsOn } from '../../shared/workflow/actions.js';
import { ACCOUNT_BANNED, AccountWatch, type AccountNote } from './account-state.js';

type TemplateProcessState = 'CREATING' | TemplateState | typeof ACCOUNT_BANNED | 'STOPPED' | 'FAILED' | 'RETIRED';

interface TemplateDetails extends FollowDetails {
  channel: 'CHATA' | 'CHATB';
  projectId: string;
  name: string;
  language: string;
  templateId?: string;
  /** The category on the platform now, and the one relayflow last submitted. */
  category: TemplateCategory;
  submittedCategory: TemplateCategory;
  /** CHATA_TEMPLATE_CATEGORY_FUTURE_UPDATE: the category the platform is about to give it. */
  futureCategory?: TemplateCategory;
  rejectionCode?: RejectionCode;
  qualityScore?: QualityScore;
  version?: number;
  resubmits: number;
  autoResubmits: number;
  stopReason?: string;
  account?: AccountNote;
  /** The edit of the template in use, waiting apart (the platform's pendingChange): its version and state. */
  pendingChange?: { version: number; state: string; rejectionCode?: string };
  retiredAt?: string;
}

interface TemplateResult {
  state: TemplateProcessState;
  templateId?: string;
  category: TemplateCategory;
  qualityScore?: QualityScore;
  rejectionCode?: RejectionCode;
}

type Carry = ProcessCarry<TemplateProcessState, TemplateDetails> & { autoResubmittedVersion?: number; changeReadDue?: boolean };

/** The same for both channels' templates. */
const FINAL = chataTemplate.states.final;
/** The platform edits templates in these states only. */
const EDITABLE: readonly TemplateProcessState[] = ['REJECTED', 'APPROVED', 'PAUSED', 'DISABLED'];
/** A template in use: the platform keeps its edit apart as a pending change, and the version in use stays. */
const LIVE: readonly TemplateProcessState[] = ['APPROVED', 'PAUSED', 'DISABLED'];

export async function templateApproval(input: TemplateApprovalInput & { carried?: Carry }): Promise<TemplateResult> {
  inProject(input.projectId);
  const { channel } = input;
  const frame = resumeProcess<TemplateProcessState, TemplateDetails>(
    channel === 'CHATA' ? 'chata-template' : 'chatb-template',
    'CREATING',
    {
      channel,
      projectId: input.projectId,
      name: input.template.name,
      language: input.template.language,
      category: input.template.category,
      submittedCategory: input.template.category,
      resubmits: 0,
      autoResubmits: 0,
      ...initialFollowDetails(),
    },
    input,
    input.carried,
  );
  const { tracker, follower, operations, edits, stop, state, carry, follow, fail } = frame;
  const d = tracker.status.details;
  const account = new AccountWatch<TemplateProcessState>(d, tracker, (s) => FINAL.includes(s));
  /**
   * A retire asked for the delete: the platform's word that the template is DELETED is its own doing, not an end,
   * whether it is handled before the process is RETIRED or after (the webhook's timing must not change the history).
   */
  let retireAsked = false;
  /** The retire's delete is out: the loop waits for its answer, so what it does next never rests on the handler's timing. */
  let retireRunning = false;
  /** While the account is banned, a move the platform's news would make is held for the lift (account-state.ts). */
  const move = (s: TemplateProcessState, reason: string) => {
    if (retireAsked && s === 'DELETED') return;
    if (s !== state() && account.hold(s, reason)) return;
    frame.move(s, reason);
  };
  let autoResubmittedVersion = input.carried?.autoResubmittedVersion;
  /** A comment came while a pending change was under review: the template is read to learn the decision. */
  let changeReadDue = input.carried?.changeReadDue ?? false;

  const isFinal = () => FINAL.includes(state());
  const ref = () => ({ channel, templateId: d.templateId! });
  const changeUnderReview = () =>
    d.pendingChange?.state === 'IN_PROGRESS'
      ? `its change (version ${d.pendingChange.version}) is under review: edit it again once decided, or delete it`
      : undefined;

  /** A template read from the platform (create, submit, edit, poll). */
  function applyTemplate(t: Template, reason: string): void {
    const take = follower.snapshot(t.updateTime, t.comments);
    d.templateId = t.id;
    d.version = Math.max(d.version ?? 0, t.version);
    notePendingChange(t, reason);
    if (take('quality')) d.qualityScore = t.qualityScore;
    if (take('category')) d.category = t.category;
    if (!take('state')) return;
    d.rejectionCode = t.rejectionCode;
    move(t.state, t.state === 'REJECTED' ? `${reason}: rejected (${t.rejectionCode ?? 'no rejectionCode'})` : reason);
  }

  /** The template's pending change as read, with a history note when it moved (under review, rejected, taken, gone). */
  function notePendingChange(t: Template, reason: string): void {
    const before = d.pendingChange;
    const pc = t.pendingChange;
    const now = pc ? { version: pc.version, state: pc.state, ...(pc.rejectionCode ? { rejectionCode: pc.rejectionCode } : {}) } : undefined;
    if (JSON.stringify(before) === JSON.stringify(now)) return;
    if (now) d.pendingChange = now;
    else delete d.pendingChange;
    const words = now
      ? now.state === 'REJECTED'
        ? `its change (version ${now.version}) was rejected (${now.rejectionCode ?? 'no rejectionCode'}); the version in use stays`
        : `its change (version ${now.version}) ${now.state === 'IN_PROGRESS' ? 'is under review' : 'is saved as a draft'}; the version in use stays`
      : t.version >= before!.version
        ? `its change (version ${before!.version}) was approved: the template in use now holds it`
        : `its pending change (version ${before!.version}) is gone; the version in use stays`;
    tracker.moveTo(state(), `${words} (${reason})`);
  }

  function applyEvent(e: ProvisioningEvent, take: Take): string | void {
    if (isFinal()) return 'the process had ended';
    if (d.pendingChange?.state === 'IN_PROGRESS' && e.trigger.endsWith('_TEMPLATE_COMMENT_ADDED')) {
      changeReadDue = true;
      return 'a comment while the change is under review: the template is read for the decision';
    }
    const accountNote = channel === 'CHATA' ? account.noteEvent(e) : undefined;
    if (accountNote) return accountNote;
    const x = e.details;
    switch (e.trigger.replace(/^CHAT[AB]_TEMPLATE_/, '')) {
      case 'APPROVED':
        if (!take('state')) return;
        d.rejectionCode = undefined;
        return move('APPROVED', `approved (${e.trigger})`);
      case 'REJECTED':
        if (!take('state')) return;
        d.rejectionCode = x.rejectionCode ?? 'UNRECOGNIZED';
        return move('REJECTED', `rejected: ${d.rejectionCode}${e.comment ? ` (${e.comment})` : ''}`);
      case 'STATUS_UPDATED':
        if (!x.newState) return 'no newState';
        if (!take('state')) return;
        if (x.newState === 'PAUSED' || x.newState === 'DISABLED') return move(x.newState, `${x.newState.toLowerCase()} by the platform`);
        return move('APPROVED', `${x.newState.toLowerCase()} by the platform`);
      case 'QUALITY_SCORE_UPDATED':
        if (!take('quality')) return;
        d.qualityScore = x.qualityScore;
        return tracker.moveTo(state(), `quality score ${x.qualityScore}`);
      case 'CATEGORY_UPDATED':
        if (!take('category')) return;
        if (x.category) d.category = x.category;
        if (d.futureCategory === x.category) d.futureCategory = undefined;
        return tracker.moveTo(state(), `category changed by the platform to ${x.category}`);
      case 'CATEGORY_FUTURE_UPDATE':
        if (!take('futureCategory')) return;
        d.futureCategory = x.category;
        return tracker.moveTo(state(), `the platform will change the category to ${x.category}`);
      case 'DELETED':
        if (!take('state')) return;
        return move('DELETED', 'deleted on the platform');
      default:
        return undefined; // comments are kept by the follower
    }
  }

  /** Edits the template and sends it back to review; the caller holds the edit lock. */
  async function resubmit(changes: Omit<ResubmitRequest, 'operationId'>, reason: string, calls = platform): Promise<void> {
    const edited = await calls.editTemplate({ ...ref(), changes: { ...changes, status: 'SUBMIT' }, baseVersion: d.version });
    if (changes.category) d.submittedCategory = changes.category;
    // The edit itself sends no webhook: the answer is the new state (IN_PROGRESS, version + 1).
    applyTemplate(edited, reason);
  }

  /** The category to resubmit an INCORRECT_CATEGORY rejection with: the platform's, else the caller's. */
  async function categoryForResubmission(): Promise<TemplateCategory | undefined> {
    applyTemplate(await reads.getTemplate(ref()), 'read from the platform');
    const candidates = [d.futureCategory, d.category, input.alternativeCategory];
    return candidates.find((c): c is TemplateCategory => c !== undefined && c !== d.submittedCategory);
  }

  async function react(): Promise<void> {
    if (retireRunning) await condition(() => !retireRunning);
    stop.endIfAsked(isFinal);
    if (changeReadDue && !isFinal()) {
      changeReadDue = false;
      applyTemplate(await reads.getTemplate(ref()), 'read from the platform after a comment on its change');
    }
    if (!isFinal() && channel === 'CHATA' && (await account.react(() => quickRead.getChataAccount())))
      applyTemplate(await reads.getTemplate(ref()), 'read from the platform after the account ban was lifted');
    if (isFinal() || state() !== 'REJECTED' || d.rejectionCode !== 'INCORRECT_CATEGORY') return;
    if (!input.template.allowCategoryChange || autoResubmittedVersion === d.version) return;
    autoResubmittedVersion = d.version; // once per rejected version: a second rejection waits for the caller
    await edits.run(async () => {
      if (state() !== 'REJECTED') return;
      const category = await categoryForResubmission();
      if (!category)
        return void tracker.moveTo(
          'REJECTED',
          'INCORRECT_CATEGORY: no other category known (none from the platform, no alternativeCategory); resubmit through the API',
        );
      d.autoResubmits += 1;
      await resubmit({ category }, `resubmitted automatically with category ${category} after INCORRECT_CATEGORY`);
    });
  }

  setHandler(provisioningEventSignal, (e) => follower.receive(e));

  /** A resubmission asked through the API (an update) or by a parent process (a signal). */
  handleAction({
    signal: resubmitSignal,
    update: resubmitUpdate,
    operations,
    run: (req, via) =>
      edits.run(async (): Promise<OperationOutcome> => {
        if (!EDITABLE.includes(state())) return { accepted: false, state: state(), reason: `a ${state()} template cannot be edited` };
        if (changeUnderReview()) return { accepted: false, state: state(), reason: changeUnderReview()! };
        try {
          const { operationId, ...changes } = req;
          await resubmit(changes, `resubmitted ${via} (operation ${operationId})`, interactive);
          d.resubmits += 1;
          return { accepted: true, state: state() };
        } catch (err) {
          return refused(state(), err);
        }
      }),
    check: () => {
      if (!d.templateId || !EDITABLE.includes(state())) throw new Error(`a ${state()} template cannot be edited; editable states: ${EDITABLE.join(', ')}`);
      const busy = changeUnderReview();
      if (busy) throw new Error(busy);
    },
    askedByParent: () => tracker.parentAsked(),
    refusedBySignal: (reason) => tracker.moveTo(state(), `resubmission refused: ${reason}`),
  });

  stop.handle(operations, { isFinal, state });

  const retireRefusal = () =>
    isFinal() ? `the process has already ended (${state()})` : !d.templateId ? 'the template has not been created yet: stop the process instead' : undefined;
  operationsOn(operations)(
    retireUpdate,
    ({ operationId, reason }) =>
      edits.run(async (): Promise<OperationOutcome> => {
        const why = retireRefusal();
        if (why) return { accepted: false, state: state(), reason: why };
        retireAsked = true;
        retireRunning = true;
        try {
          const r = await interactive.deleteTemplate(ref());
          d.retiredAt = new Date().toISOString();
          const what = r.deleted ? 'the template was deleted on the platform' : 'the platform no longer had the template';
          tracker.moveTo('RETIRED', `retired through the API (operation ${operationId})${reason ? `: ${reason}` : ''}; ${what}`);
          return { accepted: true, state: state() };
        } catch (err) {
          retireAsked = false;
          return refused(state(), err);
        } finally {
          retireRunning = false;
        }
      }),
    () => {
      const why = retireRefusal();
      if (why) throw new Error(why);
    },
  );

  const noChangeHere = () =>
    !d.templateId || !LIVE.includes(state())
      ? `a ${state()} template has no pending change: only an edit of an APPROVED, PAUSED or DISABLED template waits as one`
      : undefined;
  operationsOn(operations)(
    deleteTemplateChangeUpdate,
    ({ operationId }) =>
      edits.run(async (): Promise<OperationOutcome> => {
        const why = noChangeHere();
        if (why) return { accepted: false, state: state(), reason: why };
        // One we knew of and the platform no longer has: an earlier attempt deleted it and its answer was lost.
        const known = d.pendingChange !== undefined;
        try {
          const r = await interactive.deleteTemplateChange(ref());
          if (!r.deleted && !known) {
            applyTemplate(r.template, 'read from the platform');
            return { accepted: false, state: state(), reason: r.message, errorType: 'no_pending_changes' };
          }
          applyTemplate(r.template, `pending change deleted through the API (operation ${operationId})`);
          return { accepted: true, state: state() };
        } catch (err) {
          return refused(state(), err);
        }
      }),
    () => {
      const why = noChangeHere();
      if (why) throw new Error(why);
    },
  );

  try {
    if (!input.carried) {
      const created = await platform.createTemplate({ channel, template: { ...input.template, status: input.createAsDraft ? 'DRAFT' : 'SUBMIT' } });
      applyTemplate(
        created,
        created.created ? (input.createAsDraft ? 'created as a draft' : 'created and submitted for review') : `found an existing template (${created.state})`,
      );
      d.submittedCategory = created.category;
      // The create linked the process to its template; the account it adopts is linked here.
      if (channel === 'CHATA') await account.start(() => quickRead.getChataAccount(), attachToResource);
      if (state() === 'DRAFT') applyTemplate(await platform.submitTemplate(ref()), 'draft submitted for review');
    }
    await follow({
      isFinal,
      awaiting: () => state() === 'IN_PROGRESS',
      applyEvent,
      react,
      poll: async (reason) => {
        try {
          applyTemplate(await reads.getTemplate(ref()), reason);
        } catch (err) {
          if (failureType(err) !== 'PlatformNotFoundError') throw err;
          move('DELETED', 'the template no longer exists on the platform');
        }
      },
      continueAsNew: () =>
        continueAsNew<typeof templateApproval>({ ...input, carried: { ...carry(), autoResubmittedVersion, ...(changeReadDue ? { changeReadDue } : {}) } }),
    });
  } catch (err) {
    fail(err);
  }
  await condition(allHandlersFinished);
  return {
    state: state(),
    category: d.category,
    ...(d.templateId ? { templateId: d.templateId } : {}),
    ...(d.qualityScore ? { qualityScore: d.qualityScore } : {}),
    ...(d.rejectionCode ? { rejectionCode: d.rejectionCode } : {}),
  };
}
