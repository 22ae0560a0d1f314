// CHATA sender approval (standard, or embedded sign-up with a business account and phoneNumberId) and
// CHATB sender approval (with its category): create the sender, follow it to ACTIVE. A rejection, or
// an errorCode no retry can fix, ends the attempt FAILED with that code; other errors are reported and
// waited out (the platform retries its own steps). A sender the platform keeps as a DRAFT (saveDraftOnFailure,
// or created as a draft) ends the process DRAFT_SAVED: the contract has no submit for sender drafts, so
// waiting would never end. A CHATA sender in ERROR for an unverified number waits for the caller's code
// (WAITING_FOR_CALLER: a code is requested, the caller submits it through the API, a wrong one is answered as such,
// the whole wait has a deadline); a CHATA sender's process also follows its business account's ban
// (account-state.ts). Both share one frame; only the reading differs.
//
// Once ACTIVE, a sender's process (started or upgraded after the change SENDER_WATCH_PATCH, for CHATB
// CHATB_SENDER_WATCH_PATCH) goes on following its sender until it is retired (sender-watch.ts): a CHATA sender's
// quality rating and messaging limit as its `health`, each change a history entry with its reason; a state change
// (ERROR, DELETED, a ban; CHATB's INACTIVE) as it means. `retire` deletes the sender on the platform and ends the
// process RETIRED.
import { allHandlersFinished, ApplicationFailure, condition, continueAsNew, isCancellation, patched, setHandler } from '@temporalio/workflow';
import {
  DEFAULT_PHONE_VERIFICATION,
  provisioningEventSignal,
  verifyPhoneUpdate,
  type OperationOutcome,
  type PhoneVerificationSettings,
  type ChataSenderInput,
  type ChatbSenderInput,
  type FollowSettings,
  type ProvisioningEvent,
  type SenderChangeNote,
  type SenderChanges,
} from '../contract.js';
import { chataSender } from '../chata-sender/kind.js';
import { initialFollowDetails, type FollowDetails, type Take } from './follow.js';
import { attachToResource, inProject, interactive, platform, quickRead, reads, refused, resumeProcess, type ProcessCarry } from './process.js';
import { operationsOn } from '../../shared/workflow/actions.js';
import { rootMessage } from '../../shared/workflow/failure-text.js';
import { ACCOUNT_BANNED, AccountWatch, type AccountNote } from './account-state.js';
import { CHATA_SENDER_ERRORS, isTerminalChataError, isUnverifiedNumberError } from './chat-sender-errors.js';
import { SenderChangeTracker, type PendingChange } from './sender-change.js';
import { CHATB_SENDER_WATCH_PATCH, healthOfEvent, healthOfSender, SENDER_WATCH_PATCH, SenderHealthWatch, type SenderHealth } from './sender-watch.js';
import { retireUpdate } from '../contract.js';

type SenderProcessState =
  'CREATING' | 'PENDING' | 'IN_REVIEW' | 'ERROR' | 'WAITING_FOR_CALLER' | typeof ACCOUNT_BANNED | 'ACTIVE' | 'DRAFT_SAVED' | 'STOPPED' | 'FAILED' | 'RETIRED';

/** One wait for the caller's code (a new wait starts if the platform asks for verification again). */
interface PhoneVerificationNote {
  method: string;
  waitingSince?: string;
  /** The end of the whole wait: past it the process ends FAILED. Absent between waits. */
  deadline?: string;
  /** When the platform last sent a code; absent until it did (and after the right code). */
  requestedAt?: string;
  codesRequested: number;
  wrongCodes: number;
  verifiedAt?: string;
}

interface SenderDetails extends FollowDetails {
  channel: 'CHATA' | 'CHATB';
  projectId: string;
  mode?: 'standard' | 'embedded';
  displayName?: string;
  phoneNumber?: string;
  phoneNumberId?: string;
  businessAccountId?: string;
  categoryCode?: string;
  subcategoryCode?: string;
  senderId?: string;
  /** The sender's state on the platform (the process state says what relayflow makes of it). */
  platformState?: string;
  errorCode?: string;
  errorReason?: string;
  /** True when the errorCode is one no retry can fix (processes/provisioning/workflow/chat-sender-errors.ts). */
  errorTerminal?: boolean;
  maxTps?: number;
  compatibleRegions?: string[];
  /** The newest CHATA_SENDER_QUALITY_RATING_CHANGED / _DAILY_LIMIT_CHANGED event's details. */
  qualityRating?: string;
  stopReason?: string;
  /** Set when the process ended without an active sender and the caller has to act (DRAFT_SAVED). */
  nextStep?: string;
  phoneVerification?: PhoneVerificationNote;
  account?: AccountNote;
  /** Changes made through the API (updateSender), by field name only. */
  changes?: SenderChangeNote[];
  /** While watched after ACTIVE: since when, and the sender's health as last told (sender-watch.ts). */
  watchedSince?: string;
  health?: SenderHealth;
  retiredAt?: string;
}

interface SenderResult {
  state: SenderProcessState;
  senderId?: string;
  platformState?: string;
  errorCode?: string;
  nextStep?: string;
  /** What the API reads to answer a repeated change, and to start a run for a new one (in the sender's project). */
  changes?: SenderChangeNote[];
  projectId: string;
}

interface SenderSnapshot {
  id: string;
  state: string;
  qualityRating?: string;
  messagingLimit?: string;
  errorCode?: string;
  errorReason?: string;
  maxTps?: number;
  compatibleRegions?: string[];
  comments?: { text: string; at: string; author?: string }[];
  updateTime?: string;
}

/** What a platform state means for the process; `failure` ends the attempt with that type. */
interface Verdict {
  state: SenderProcessState;
  reason: string;
  failure?: { type: string; message: string };
  nextStep?: string;
}

interface PlatformReading {
  state?: string;
  errorCode?: string;
  errorReason?: string;
}

interface SenderSpec {
  kind: 'chata-sender' | 'chatb-sender';
  details: Omit<SenderDetails, keyof FollowDetails>;
  create(): Promise<SenderSnapshot & { created: boolean }>;
  get(senderId: string): Promise<SenderSnapshot>;
  judge(r: PlatformReading, comment?: string): Verdict;
  /** The state an event reports, if it reports one; otherwise a note for the event list. */
  read(e: ProvisioningEvent, d: SenderDetails, take: Take): PlatformReading | string | undefined;
  continueAsNew(carried: Carry): Promise<never>;
  /** Deletes the sender on the platform (retire). */
  retire?(senderId: string): Promise<{ deleted: boolean }>;
  /** Sends a change of the sender (updateSender); the answer's state says whether the platform reviews it. */
  update?(senderId: string, changes: SenderChanges): Promise<SenderSnapshot>;
  /** CHATA only: the phone verification and the business account. */
  chata?: {
    phone: PhoneVerificationSettings;
    requestCode(senderId: string, method: PhoneVerificationSettings['method']): Promise<{ sentAt: string }>;
  };
}

/** `watch`: the run was watching its live sender (SENDER_WATCH_PATCH was taken by an earlier run). */
type Carry = ProcessCarry<SenderProcessState, SenderDetails> & { pendingChange?: PendingChange; watch?: true };

/** The same for both channels' senders. */
const FINAL = chataSender.states.final;

/** The platform kept the sender as a DRAFT: nothing relayflow can call submits it, so the process ends. */
function draftSaved(channel: 'CHATA' | 'CHATB', errorCode?: string, errorReason?: string): Verdict {
  const known = errorCode ? (CHATA_SENDER_ERRORS as Record<string, { why: string }>)[errorCode] : undefined;
  const error = errorCode ? `${errorCode}${errorReason ? ` (${errorReason})` : ''}` : undefined;
  const fix = errorCode ? `fix the cause (${errorCode}: ${known?.why ?? errorReason ?? 'see the platform'}), then ` : '';
  return {
    state: 'DRAFT_SAVED',
    reason: `${error ? `${error}: ` : ''}the platform saved the sender as a DRAFT; the provisioning API cannot submit a ${channel} sender draft, so the process ends here`,
    nextStep: `${fix}submit the draft in the platform's dashboard and send the same start request again: the new process finds the sender and follows it to ACTIVE`,
  };
}

function judgeChata({ state, errorCode, errorReason }: PlatformReading): Verdict {
  const error = errorCode ? `${errorCode}${errorReason ? ` (${errorReason})` : ''}` : undefined;
  if (state === 'DRAFT') return draftSaved('CHATA', errorCode, errorReason);
  if (state === 'ERROR' && isUnverifiedNumberError(errorCode))
    return { state: 'WAITING_FOR_CALLER', reason: `phone verification: ${error}; a verification code is sent to the number, submit it through the API` };
  switch (state) {
    case 'ACTIVE':
      return { state: 'ACTIVE', reason: 'the sender is active' };
    case 'PENDING':
      return { state: 'PENDING', reason: 'under review' };
    case 'DELETED':
      return {
        state: 'FAILED',
        reason: 'the sender was deleted',
        failure: { type: 'SENDER_HAS_BEEN_DELETED', message: 'the sender was deleted on the platform' },
      };
    case 'REJECTED':
      return {
        state: 'FAILED',
        reason: `rejected: ${error ?? 'no errorCode'}`,
        failure: { type: errorCode ?? 'REJECTED', message: `rejected: ${error ?? 'no errorCode given'}` },
      };
    case 'ERROR': {
      if (!errorCode) return { state: 'ERROR', reason: 'error without errorCode; waiting for the platform' };
      const known = (CHATA_SENDER_ERRORS as Record<string, { why: string }>)[errorCode];
      if (isTerminalChataError(errorCode))
        return {
          state: 'FAILED',
          reason: `${error}: ${known?.why ?? ''}; no retry can fix it`,
          failure: { type: errorCode, message: `${error}: ${known?.why}` },
        };
      return { state: 'ERROR', reason: `${error}: ${known?.why ?? 'not a code the spec names'}; waiting for the platform to retry` };
    }
    default:
      return { state: 'PENDING', reason: `platform state ${state ?? 'unknown'}` };
  }
}

function judgeChatb({ state }: PlatformReading, comment?: string): Verdict {
  const why = comment ? `: ${comment}` : '';
  switch (state) {
    case 'ACTIVE':
      return { state: 'ACTIVE', reason: `the sender is active${why}` };
    case 'IN_REVIEW':
      return { state: 'IN_REVIEW', reason: 'under review' };
    case 'DRAFT':
      return draftSaved('CHATB');
    case 'REJECTED':
      return { state: 'FAILED', reason: `rejected${why}`, failure: { type: 'REJECTED', message: `rejected${why}` } };
    case 'INACTIVE':
      return { state: 'FAILED', reason: `inactive${why}`, failure: { type: 'INACTIVE', message: `the sender became inactive${why}` } };
    default:
      return { state: 'IN_REVIEW', reason: `platform state ${state ?? 'unknown'}` };
  }
}

async function onboard(spec: SenderSpec, settings: FollowSettings, carried?: Carry): Promise<SenderResult> {
  const { tracker, follower, operations, edits, stop, state, carry, follow, followChanges, fail } = resumeProcess<SenderProcessState, SenderDetails>(
    spec.kind,
    'CREATING',
    { ...spec.details, ...initialFollowDetails() },
    settings,
    carried,
  );
  const d = tracker.status.details;
  let failure: Verdict['failure'];
  /** Watching the live sender: ACTIVE is no longer an end. */
  let watching = carried?.watch === true;
  const health = new SenderHealthWatch(d, tracker, spec.kind);

  const isFinal = () => FINAL.includes(state()) && !(watching && state() === 'ACTIVE');
  const changes = new SenderChangeTracker(d, carried?.pendingChange);
  /** The follow loop ends at a final state, but not at ACTIVE while a change is in hand or under review. */
  const done = () => isFinal() && !(state() === 'ACTIVE' && changes.busy());
  const account = new AccountWatch<SenderProcessState>(d, tracker, (s) => FINAL.includes(s));
  /** `held`: a read sender holds the pending change's fields (a read ACTIVE without them: the change was rejected). */
  const judge = (r: PlatformReading, reason: string, comment?: string, held?: boolean) => {
    if (changes.pending && (r.state === 'ACTIVE' || r.state === 'REJECTED')) {
      d.platformState = 'ACTIVE';
      tracker.moveTo('ACTIVE', changes.decide(r.state === 'ACTIVE' && held !== false ? 'APPROVED' : 'REJECTED', reason, comment));
      return;
    }
    const v = spec.judge(r, comment);
    Object.assign(d, {
      platformState: r.state,
      errorCode: r.errorCode,
      errorReason: r.errorReason,
      errorTerminal: r.errorCode ? isTerminalChataError(r.errorCode) && v.state !== 'WAITING_FOR_CALLER' : undefined,
    });
    if (v.failure) failure = v.failure;
    if (v.nextStep) d.nextStep = v.nextStep;
    if (v.state !== state() && !account.hold(v.state, `${v.reason} (${reason})`)) tracker.moveTo(v.state, `${v.reason} (${reason})`);
  };
  function applySender(s: SenderSnapshot, reason: string): void {
    const take = follower.snapshot(s.updateTime, s.comments);
    Object.assign(d, {
      senderId: s.id,
      ...(s.maxTps !== undefined ? { maxTps: s.maxTps } : {}),
      ...(s.compatibleRegions ? { compatibleRegions: s.compatibleRegions } : {}),
    });
    if (take('state')) judge({ state: s.state, errorCode: s.errorCode, errorReason: s.errorReason }, reason, undefined, changes.pending && changes.holds(s));
    if (watching) health.apply(healthOfSender(s), take, reason);
  }
  function applyEvent(e: ProvisioningEvent, take: Take): string | void {
    if (done()) return 'the process had ended';
    const accountNote = spec.chata ? account.noteEvent(e) : undefined;
    if (accountNote) return accountNote;
    const told = watching ? healthOfEvent(e) : undefined;
    if (told) return health.apply(told, take, e.trigger);
    const r = spec.read(e, d, take);
    if (r === undefined || typeof r === 'string') return r;
    if (take('state')) judge(r, e.trigger, e.comment);
  }

  /** WAITING_FOR_CALLER: a code requested once per wait, and the wait's deadline. */
  async function awaitCode(chata: NonNullable<SenderSpec['chata']>): Promise<void> {
    if (state() !== 'WAITING_FOR_CALLER') {
      // The sender moved on without our code (verified elsewhere, say): a later wait starts afresh. A ban keeps the wait.
      if (state() !== ACCOUNT_BANNED && d.phoneVerification?.deadline) {
        delete d.phoneVerification.requestedAt;
        delete d.phoneVerification.deadline;
      }
      return;
    }
    const now = Date.now();
    const pv = (d.phoneVerification ??= { method: chata.phone.method, codesRequested: 0, wrongCodes: 0 });
    if (!pv.deadline) Object.assign(pv, { waitingSince: new Date(now).toISOString(), deadline: new Date(now + chata.phone.timeoutMs).toISOString() });
    if (now >= Date.parse(pv.deadline!)) {
      const message = `phone verification not completed: no right code submitted by ${pv.deadline} (${Math.round(chata.phone.timeoutMs / 1000)} s after the wait began; ${pv.wrongCodes} wrong)`;
      failure = { type: 'PHONE_VERIFICATION_TIMEOUT', message };
      tracker.moveTo('FAILED', message);
      return;
    }
    if (pv.requestedAt) return;
    await edits.run(async () => {
      if (state() !== 'WAITING_FOR_CALLER' || pv.requestedAt) return;
      try {
        const sent = await chata.requestCode(d.senderId!, pv.method as PhoneVerificationSettings['method']);
        pv.requestedAt = sent.sentAt;
        pv.codesRequested += 1;
        tracker.moveTo(
          state(),
          `verification code sent to the number by ${pv.method}: submit it with POST /v1/senders/{processId}/verify-phone by ${pv.deadline}`,
        );
      } catch (err) {
        if (isCancellation(err)) throw err;
        // The platform refused (the sender moved on meanwhile, say): the next read says what it is now; asked again then.
        tracker.moveTo(state(), `the verification code could not be requested: ${rootMessage(err)}; asking again at the next read`);
      }
    });
  }

  setHandler(provisioningEventSignal, (e) => follower.receive(e));
  stop.handle(operations, { isFinal, state });
  if (spec.chata)
    operationsOn(operations)(
      verifyPhoneUpdate,
      ({ operationId, code }) =>
        edits.run(async (): Promise<OperationOutcome> => {
          const pv = d.phoneVerification;
          if (state() !== 'WAITING_FOR_CALLER' || !pv?.requestedAt)
            return { accepted: false, state: state(), reason: `not waiting for a verification code (${state()})` };
          try {
            const r = await interactive.verifyChataSender({ senderId: d.senderId!, code });
            if (!r.verified) {
              pv.wrongCodes += 1;
              const reason = r.wrongCode ? `wrong code (${r.errorCode})` : `code refused (${r.errorCode}: ${r.message})`;
              tracker.moveTo(state(), `${reason} submitted through the API (operation ${operationId}); still waiting for the right one`);
              return { accepted: false, state: state(), reason: `${reason}: submit the code the number received again`, errorType: r.errorCode };
            }
            pv.verifiedAt = new Date().toISOString();
            delete pv.requestedAt;
            delete pv.deadline;
            applySender(r.sender, `phone number verified with the code submitted through the API (operation ${operationId})`);
            return { accepted: true, state: state() };
          } catch (err) {
            return refused(state(), err);
          }
        }),
      () => {
        if (state() !== 'WAITING_FOR_CALLER' || !d.phoneVerification?.requestedAt)
          throw new Error(`the sender is not waiting for a phone verification code (state ${state()})`);
      },
    );

  if (spec.retire) {
    const retire = spec.retire;
    const refusal = () =>
      isFinal() ? `the process has already ended (${state()})` : !d.senderId ? 'the sender has not been created yet: stop the process instead' : undefined;
    operationsOn(operations)(
      retireUpdate,
      ({ operationId, reason }) =>
        edits.run(async (): Promise<OperationOutcome> => {
          const why = refusal();
          if (why) return { accepted: false, state: state(), reason: why };
          try {
            const r = await retire(d.senderId!);
            d.retiredAt = new Date().toISOString();
            const what = r.deleted ? 'the sender was deleted on the platform' : 'the platform no longer had the sender';
            tracker.moveTo('RETIRED', `retired through the API (operation ${operationId})${reason ? `: ${reason}` : ''}; ${what}`);
            return { accepted: true, state: state() };
          } catch (err) {
            return refused(state(), err);
          }
        }),
      () => {
        const why = refusal();
        if (why) throw new Error(why);
      },
    );
  }

  if (spec.update) {
    const update = spec.update;
    changes.install({
      operations,
      edits,
      state,
      live: 'ACTIVE',
      tracker,
      send: (c) => update(d.senderId!, c),
      apply: applySender,
    });
  }

  try {
    if (!carried) {
      const created = await spec.create();
      applySender(created, created.created ? 'created' : 'found an existing sender');
      // The create linked the process to its sender; a CHATA sender's account is adopted, and linked here.
      if (spec.chata) await account.start(() => quickRead.getChataAccount(), attachToResource);
    }
    const following: Parameters<typeof follow>[0] = {
      isFinal: done,
      wake: done,
      awaiting: () => ['PENDING', 'IN_REVIEW', 'ERROR'].includes(state()),
      applyEvent,
      react: async () => {
        stop.endIfAsked(isFinal);
        if (isFinal() || !spec.chata) return;
        if (await account.react(() => quickRead.getChataAccount()))
          applySender(await spec.get(d.senderId!), 'read from the platform after the account ban was lifted');
        await awaitCode(spec.chata);
      },
      poll: async (reason) => applySender(await spec.get(d.senderId!), reason),
      // The phone verification's deadline wakes the loop on time; react (awaitCode) then ends the process.
      wakeAt: () => (state() === 'WAITING_FOR_CALLER' && d.phoneVerification?.deadline ? Date.parse(d.phoneVerification.deadline) : undefined),
      continueAsNew: () =>
        spec.continueAsNew({ ...carry(), ...(changes.pending ? { pendingChange: changes.pending } : {}), ...(watching ? { watch: true as const } : {}) }),
    };
    await follow(following);
    // The activation event says only ACTIVE: one read records what came with it (maxTps, regions).
    if (state() === 'ACTIVE' && d.maxTps === undefined) {
      const active = await spec.get(d.senderId!);
      Object.assign(d, {
        ...(active.maxTps !== undefined ? { maxTps: active.maxTps } : {}),
        ...(active.compatibleRegions ? { compatibleRegions: active.compatibleRegions } : {}),
      });
    }
    // A change that came as the sender reached ACTIVE is followed to its end as well.
    await followChanges(following, done);
    // The live sender is watched until it is retired (processes from before the change end here, at ACTIVE).
    if (!watching && state() === 'ACTIVE' && patched(spec.chata ? SENDER_WATCH_PATCH : CHATB_SENDER_WATCH_PATCH)) {
      // No history entry of its own: ACTIVE once in the timeline (the details say since when it is watched).
      watching = true;
      d.watchedSince = new Date().toISOString();
      await followChanges(following, done);
    }
  } catch (err) {
    fail(err);
  }
  await condition(allHandlersFinished);
  if (state() === 'FAILED' && failure) throw ApplicationFailure.nonRetryable(failure.message, failure.type, { senderId: d.senderId, errorCode: d.errorCode });
  return {
    state: state(),
    ...(d.senderId ? { senderId: d.senderId } : {}),
    ...(d.platformState ? { platformState: d.platformState } : {}),
    ...(state() === 'DRAFT_SAVED' && d.errorCode ? { errorCode: d.errorCode } : {}),
    ...(state() === 'DRAFT_SAVED' && d.nextStep ? { nextStep: d.nextStep } : {}),
    ...(d.changes?.length ? { changes: d.changes } : {}),
    projectId: d.projectId,
  };
}

export async function chataSenderApproval(input: ChataSenderInput & { carried?: Carry }): Promise<SenderResult> {
  inProject(input.projectId);
  const s = input.sender;
  const earlier = input.earlierChanges?.length ? { changes: [...input.earlierChanges] } : {};
  return onboard(
    {
      kind: 'chata-sender',
      details:
        input.mode === 'embedded'
          ? {
              channel: 'CHATA',
              projectId: input.projectId,
              mode: 'embedded',
              businessAccountId: input.sender.businessAccountId,
              phoneNumberId: input.sender.phoneNumberId,
              ...earlier,
            }
          : {
              channel: 'CHATA',
              projectId: input.projectId,
              mode: 'standard',
              phoneNumber: input.sender.phoneNumber,
              displayName: input.sender.displayName,
              ...earlier,
            },
      create: () => platform.createChataSender(s),
      get: (senderId) => reads.getChataSender({ senderId }),
      retire: (senderId) => interactive.deleteChataSender({ senderId }),
      update: (senderId, changes) => interactive.updateChataSender({ senderId, changes }),
      judge: judgeChata,
      read: (e, d, take) => {
        if (e.trigger === 'CHATA_WABA_ACCOUNT_CHANGED')
          return e.details.state ? { state: e.details.state, errorCode: e.details.errorCode, errorReason: e.details.errorReason } : 'no sender state';
        if (e.trigger === 'CHATA_SENDER_QUALITY_RATING_CHANGED' || e.trigger === 'CHATA_SENDER_DAILY_LIMIT_CHANGED') {
          if (!take(e.trigger)) return undefined;
          d.qualityRating = JSON.stringify(e.details);
          return `${e.trigger}: ${d.qualityRating}`;
        }
        return undefined;
      },
      continueAsNew: (carried) => continueAsNew<typeof chataSenderApproval>({ ...input, carried }),
      chata: {
        phone: input.phoneVerification ?? DEFAULT_PHONE_VERIFICATION,
        requestCode: (senderId, method) => platform.requestChataSenderCode({ senderId, method }),
      },
    },
    input,
    input.carried,
  );
}

export async function chatbSenderApproval(input: ChatbSenderInput & { carried?: Carry }): Promise<SenderResult> {
  inProject(input.projectId);
  const { sender } = input;
  return onboard(
    {
      kind: 'chatb-sender',
      details: {
        channel: 'CHATB',
        projectId: input.projectId,
        displayName: sender.displayName,
        categoryCode: sender.categoryCode,
        ...(sender.subcategoryCode ? { subcategoryCode: sender.subcategoryCode } : {}),
        ...(input.earlierChanges?.length ? { changes: [...input.earlierChanges] } : {}),
      },
      create: () => platform.createChatbSender(sender),
      get: (senderId) => reads.getChatbSender({ senderId }),
      retire: (senderId) => interactive.deleteChatbSender({ senderId }),
      update: (senderId, changes) => interactive.updateChatbSender({ senderId, changes }),
      judge: judgeChatb,
      read: (e) => {
        // Activation has no trigger of its own: a comment carries details.state ACTIVE.
        if (e.trigger === 'CHATB_SENDER_REJECTED') return { state: 'REJECTED' };
        if (e.trigger === 'CHATB_SENDER_INACTIVE') return { state: 'INACTIVE' };
        return e.details.state ? { state: e.details.state } : undefined;
      },
      continueAsNew: (carried) => continueAsNew<typeof chatbSenderApproval>({ ...input, carried }),
    },
    input,
    input.carried,
  );
}
