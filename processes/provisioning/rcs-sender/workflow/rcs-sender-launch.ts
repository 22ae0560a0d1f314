// RCS sender launch: create the sender, answer the questionnaire, launch it (contact by e-mail or phone),
// follow the sender and each country's operators to LAUNCHED, relaunch through the API after a rejection
// was fixed, and add the caller's test numbers once the platform allows it (before the launch it does not:
// that is waited out, not a failure). Ends when every country is launched and the test numbers are in.
import { allHandlersFinished, condition, continueAsNew, setHandler } from '@temporalio/workflow';
import type { RcsCountryStatus, RcsSender, RcsSenderState } from '../../contract.js';
import {
  provisioningEventSignal,
  relaunchSignal,
  relaunchUpdate,
  type OperationOutcome,
  type ProvisioningEvent,
  type RcsSenderLaunchInput,
  type SenderChangeNote,
} from '../../contract.js';
import { rcsSender } from '../kind.js';
import { initialFollowDetails, type FollowDetails, type Take } from '../../workflow/follow.js';
import { inProject, interactive, platform, reads, refused, resumeProcess, type ProcessCarry } from '../../workflow/process.js';
import { handleAction } from '../../../shared/workflow/actions.js';
import { SenderChangeTracker, type PendingChange } from '../../workflow/sender-change.js';
import { rootMessage } from '../../../shared/workflow/failure-text.js';

type RcsProcessState = 'CREATING' | RcsSenderState | 'STOPPED' | 'FAILED';

interface RcsTestNumberStatus {
  phoneNumber: string;
  features?: string[];
  status: 'WAITING_FOR_LAUNCH' | 'ADDED' | 'FAILED';
  note?: string;
}

interface RcsDetails extends FollowDetails {
  projectId: string;
  displayName: string;
  useCase: string;
  countries: string[];
  senderId?: string;
  agentId?: string;
  countryStatus: Record<string, RcsCountryStatus>;
  questionnaireAnswered: boolean;
  testNumbers: RcsTestNumberStatus[];
  relaunches: number;
  stopReason?: string;
  /** Changes made through the API (updateSender), by field name only. */
  changes?: SenderChangeNote[];
}

interface RcsResult {
  state: RcsProcessState;
  senderId?: string;
  agentId?: string;
  countryStatus: Record<string, RcsCountryStatus>;
  testNumbers: RcsTestNumberStatus[];
  /** What the API reads to answer a repeated change, and to start a run for a new one (in the sender's project). */
  changes?: SenderChangeNote[];
  projectId: string;
}

type Carry = ProcessCarry<RcsProcessState, RcsDetails> & {
  testNumbersTriedAt?: string;
  decisionReadAt?: string;
  pendingChange?: PendingChange;
  /** A change's decision was announced by an event: the sender is read to tell which. */
  changeReadDue?: boolean;
};

const FINAL = rcsSender.states.final;
const RELAUNCHABLE: readonly RcsProcessState[] = ['REJECTED', 'PARTIALLY_LAUNCHED'];
const DECIDED: readonly RcsProcessState[] = ['LAUNCHED', 'PARTIALLY_LAUNCHED', 'REJECTED'];
const contactWords = (c: { email?: string; phoneNumber?: string }) => (c.email ? 'contact by e-mail' : 'contact by phone');

export async function rcsSenderLaunch(input: RcsSenderLaunchInput & { carried?: Carry }): Promise<RcsResult> {
  inProject(input.projectId);
  const { tracker, follower, operations, edits, stop, state, move, carry, follow, followChanges, fail } = resumeProcess<RcsProcessState, RcsDetails>(
    'rcs-sender',
    'CREATING',
    {
      projectId: input.projectId,
      displayName: input.sender.displayName,
      useCase: input.sender.useCase,
      countries: input.sender.countries,
      countryStatus: {},
      questionnaireAnswered: false,
      testNumbers: (input.testNumbers ?? []).map((t) => ({ ...t, status: 'WAITING_FOR_LAUNCH' as const })),
      relaunches: 0,
      ...(input.earlierChanges?.length ? { changes: [...input.earlierChanges] } : {}),
      ...initialFollowDetails(),
    },
    input,
    input.carried,
  );
  const d = tracker.status.details;
  /** The state and poll count at the last test-number attempt: retried when either moved on. */
  let testNumbersTriedAt = input.carried?.testNumbersTriedAt;
  /** The decision (state and relaunch count) the sender was last read after. */
  let decisionReadAt = input.carried?.decisionReadAt;

  const pendingNumbers = () => d.testNumbers.filter((t) => t.status === 'WAITING_FOR_LAUNCH');
  const launchedEverywhere = () => state() === 'LAUNCHED';
  const changes = new SenderChangeTracker(d, input.carried?.pendingChange);
  let changeReadDue = input.carried?.changeReadDue ?? false;
  const isFinal = () => FINAL.includes(state()) || (launchedEverywhere() && pendingNumbers().length === 0 && !changes.busy());

  function applySender(s: RcsSender, reason: string): void {
    const take = follower.snapshot(s.updateTime, s.comments);
    Object.assign(d, { senderId: s.id, agentId: s.agentId });
    for (const [c, cs] of Object.entries(s.countryStatus ?? {})) {
      const mine = country(c);
      if (take(`country:${c}`)) mine.status = cs.status;
      for (const [op, status] of Object.entries(cs.operators)) if (take(`operator:${c}:${op}`)) mine.operators[op] = status;
    }
    if (!take('state')) return;
    // A change under review is decided once the sender is LAUNCHED again: with the change's fields, or without them.
    if (changes.pending && s.state === 'LAUNCHED') {
      changeReadDue = false;
      const comment = s.comments?.at(-1)?.text;
      const approved = changes.holds(s);
      return tracker.moveTo('LAUNCHED', changes.decide(approved ? 'APPROVED' : 'REJECTED', reason, approved ? undefined : comment));
    }
    move(s.state, reason);
  }

  function country(c: string): RcsCountryStatus {
    return (d.countryStatus[c] ??= { status: 'PENDING', operators: {} });
  }

  function rejectCountry(c: string, take: Take): boolean {
    const cs = country(c);
    const changed = take(`country:${c}`);
    if (changed) cs.status = 'REJECTED';
    for (const op of Object.keys(cs.operators)) if (take(`operator:${c}:${op}`)) cs.operators[op] = 'REJECTED';
    return changed;
  }

  function applyEvent(e: ProvisioningEvent, take: Take): string | void {
    if (FINAL.includes(state())) return 'the process had ended';
    const x = e.details;
    if (changes.pending) {
      if (e.trigger === 'RCS_SENDER_REJECTED' && !x.country) {
        if (!take('state')) return;
        return tracker.moveTo('LAUNCHED', changes.decide('REJECTED', e.trigger, e.comment));
      }
      // LAUNCHED again says only that the review ended: the sender's fields say how.
      if (e.trigger === 'RCS_SENDER_STATUS_UPDATED' && x.state === 'LAUNCHED') {
        changeReadDue = true;
        return 'the change was decided: the sender is read to tell how';
      }
    }
    switch (e.trigger) {
      case 'RCS_SENDER_CREATED':
      case 'RCS_SENDER_STATUS_UPDATED':
        if (!x.state) return 'no state';
        if (x.state === 'LAUNCHED') {
          for (const [c, cs] of Object.entries(d.countryStatus)) if (cs.status === 'PENDING' && take(`country:${c}`)) cs.status = 'LAUNCHED';
        }
        if (!take('state')) return;
        return move(x.state as RcsSenderState, `sender ${x.state.toLowerCase().replace(/_/g, ' ')} (${e.trigger})`);
      case 'RCS_SENDER_OPERATOR_STATUS_UPDATED': {
        if (!x.country || !x.operator || !x.operatorStatus) return 'incomplete operator status';
        if (!take(`operator:${x.country}:${x.operator}`)) return;
        const cs = country(x.country);
        cs.operators[x.operator] = x.operatorStatus;
        if (Object.values(cs.operators).every((o) => o === 'LAUNCHED') && take(`country:${x.country}`)) cs.status = 'LAUNCHED';
        return `${x.operator} (${x.country}): ${x.operatorStatus}`;
      }
      case 'RCS_SENDER_REJECTED': {
        const why = e.comment ? `: ${e.comment}` : '';
        if (x.country) return rejectCountry(x.country, take) ? tracker.moveTo(state(), `rejected in ${x.country}${why}`) : undefined;
        for (const c of Object.keys(d.countryStatus)) rejectCountry(c, take);
        if (!take('state')) return;
        return move('REJECTED', `rejected${why}`);
      }
      default:
        return undefined; // comments are kept by the follower
    }
  }

  /** Adds the waiting test numbers; before the launch the platform refuses, and they keep waiting. */
  async function addTestNumbers(): Promise<void> {
    for (const t of pendingNumbers()) {
      try {
        const res = await platform.addRcsTestNumber({ senderId: d.senderId!, phoneNumber: t.phoneNumber, ...(t.features ? { features: t.features } : {}) });
        if (res.added) Object.assign(t, { status: 'ADDED', note: `added while the sender was ${state()}` });
        else if (!t.note) {
          t.note = 'the platform adds test numbers only after the launch: waiting for it';
          tracker.moveTo(state(), `test number not allowed before the launch; it will be added once the launch progresses`);
        }
      } catch (err) {
        // A number the platform refuses (invalid) cannot be fixed by waiting; the launch goes on.
        Object.assign(t, { status: 'FAILED', note: rootMessage(err) });
      }
    }
  }

  async function react(): Promise<void> {
    stop.endIfAsked(() => FINAL.includes(state()));
    if (FINAL.includes(state()) || !d.senderId) return;
    if (changes.pending && changeReadDue) applySender(await reads.getRcsSender({ senderId: d.senderId }), "read from the platform after the change's review");
    // Country and operator events may still be on their way when the sender's decision arrives: one read
    // after each decision makes the per-country view whole (late events then find it newer and change nothing).
    const decision = `${state()}|${d.relaunches}`;
    if (DECIDED.includes(state()) && decision !== decisionReadAt) {
      decisionReadAt = decision;
      applySender(await reads.getRcsSender({ senderId: d.senderId }), 'read from the platform after the decision');
    }
    if (pendingNumbers().length === 0) return;
    const at = `${state()}|${d.polls}`;
    if (at === testNumbersTriedAt || state() === 'DRAFT' || state() === 'CREATING') return;
    testNumbersTriedAt = at;
    await addTestNumbers();
  }

  setHandler(provisioningEventSignal, (e) => follower.receive(e));

  /** A relaunch asked through the API (an update) or by a parent process (a signal). */
  handleAction({
    signal: relaunchSignal,
    update: relaunchUpdate,
    operations,
    run: (req, via) =>
      edits.run(async (): Promise<OperationOutcome> => {
        if (!RELAUNCHABLE.includes(state())) return { accepted: false, state: state(), reason: `a ${state()} sender has no rejection to relaunch` };
        try {
          if (req.answers) await interactive.answerRcsQuestionnaire({ senderId: d.senderId!, answers: req.answers });
          const contact = req.contact ?? input.contact;
          if (!contact) return { accepted: false, state: state(), reason: 'this run has no launch contact: give one in the relaunch request' };
          const res = await interactive.relaunchRcsSender({ senderId: d.senderId!, contact });
          if (!res.relaunched) {
            applySender(res, 'read from the platform');
            return { accepted: false, state: state(), reason: `nothing to relaunch: the sender is ${res.state}` };
          }
          d.relaunches += 1;
          applySender(res, `relaunched ${via} (operation ${req.operationId}, ${contactWords(contact)}${req.answers ? ', answers replaced' : ''})`);
          return { accepted: true, state: state() };
        } catch (err) {
          return refused(state(), err);
        }
      }),
    check: () => {
      if (!RELAUNCHABLE.includes(state())) throw new Error(`a ${state()} sender cannot be relaunched; relaunch needs one of ${RELAUNCHABLE.join(', ')}`);
    },
    askedByParent: () => tracker.parentAsked(),
    refusedBySignal: (reason) => tracker.moveTo(state(), `relaunch refused: ${reason}`),
  });

  stop.handle(operations, { isFinal, state });

  changes.install({
    operations,
    edits,
    state,
    live: 'LAUNCHED',
    tracker,
    send: (c) => interactive.updateRcsSender({ senderId: d.senderId!, changes: c }),
    apply: applySender,
  });

  try {
    if (!input.carried) {
      const created = await platform.createRcsSender(input.sender);
      applySender(created, created.created ? 'created' : `found an existing sender (${created.state})`);
      if (state() === 'DRAFT') {
        await platform.answerRcsQuestionnaire({ senderId: created.id, answers: input.answers });
        d.questionnaireAnswered = true;
        tracker.moveTo('DRAFT', `questionnaire answered for ${input.sender.useCase} in ${input.sender.countries.join(', ')}`);
        if (pendingNumbers().length) await addTestNumbers();
        const contact = input.contact!; // every start request has one; only a run for a change lacks it, and its sender is launched
        const launched = await platform.launchRcsSender({ senderId: created.id, contact });
        applySender(launched, launched.launched ? `launched (${contactWords(contact)})` : `already launched (${launched.state})`);
      }
    }
    const following: Parameters<typeof follow>[0] = {
      isFinal,
      awaiting: () => state() === 'IN_REVIEW',
      applyEvent,
      react,
      poll: async (reason) => applySender(await reads.getRcsSender({ senderId: d.senderId! }), reason),
      wake: isFinal,
      continueAsNew: () =>
        continueAsNew<typeof rcsSenderLaunch>({
          ...input,
          carried: { ...carry(), testNumbersTriedAt, decisionReadAt, ...(changes.pending ? { pendingChange: changes.pending, changeReadDue } : {}) },
        }),
    };
    await follow(following);
    // A change that came as the sender was launched is followed to its end as well.
    await followChanges(following, isFinal);
  } catch (err) {
    fail(err);
  }
  await condition(allHandlersFinished);
  return {
    state: state(),
    countryStatus: d.countryStatus,
    testNumbers: d.testNumbers,
    ...(d.senderId ? { senderId: d.senderId } : {}),
    ...(d.agentId ? { agentId: d.agentId } : {}),
    ...(d.changes?.length ? { changes: d.changes } : {}),
    projectId: d.projectId,
  };
}
