// Which processes a person should look at first, in a list: those waiting on a person (nothing moves until someone
// acts) and those that failed. Per kind, typed by each family's states (contracts/), so a renamed state fails to compile.
import { CHATA_SENDER_STATES, CHATB_SENDER_STATES, RCS_STATES, TEMPLATE_STATES, type TemplateState } from '../../common/wire/provisioning.js';
import type { CampaignState } from '../../contracts/campaigns.js';
import { FAMILIES, FAMILY_NAMES } from '../../contracts/families.js';
import type { ProcessKind } from '../../contracts/ids.js';
import type { OnboardingState } from '../../contracts/onboarding.js';
import type { SenderIdProcessState } from '../../contracts/senderid-registration.js';

export type Attention = 'waiting-on-person' | 'failed';

const campaignWaits: readonly CampaignState[] = ['PAUSED'];
const templateWaits: readonly TemplateState[] = ['PAUSED'];
/** A chat sender the platform kept as a draft ends DRAFT_SAVED: the caller has to act (workflows/provisioning/chat-sender-onboarding.ts). */
const senderWaits = ['DRAFT_SAVED'];
/**
 * A CHATA sender waiting for its number's verification code, and a CHATA sender or template whose business account
 * is banned: someone has to submit the code, or have the ban lifted (workflows/provisioning/account-state.ts).
 */
const chataSenderWaits = [...senderWaits, 'WAITING_FOR_CALLER', 'ACCOUNT_BANNED'];
const chataTemplateWaits = [...templateWaits, 'ACCOUNT_BANNED'];
/**
 * States in which a process waits on a person: the caller (an onboarding's missing input, a sender ID's
 * attachments or answers the platform holds it for, a sender left as a draft, a template the platform paused)
 * or staff (a paused campaign to resume or cancel). A verification PENDING on its code waits on its end user,
 * as designed: not listed.
 */
const WAITING_ON_PERSON: Partial<Record<ProcessKind, readonly string[]>> = {
  onboarding: ['WAITING_FOR_CALLER'] satisfies OnboardingState[],
  'senderid-registration': ['PENDING_ATTACHMENTS', 'ON_HOLD'] satisfies SenderIdProcessState[],
  'conversation-campaign': campaignWaits,
  'mms-campaign': campaignWaits,
  'chata-sender': chataSenderWaits,
  'chatb-sender': senderWaits,
  'chata-template': chataTemplateWaits,
  'chatb-template': templateWaits,
};

/** States that end a process unsuccessfully (a verification's FAIL and DENIED, a platform's REJECTED...). */
const FAILED_STATES = new Set(['FAILED', 'FAIL', 'DENIED', 'ERROR', 'REJECTED']);
/** Temporal's own ends that are failures, whatever the state said last. */
const FAILED_EXECUTIONS = new Set(['FAILED', 'TIMED_OUT', 'TERMINATED']);

export function attentionOf(kind: string, state: string, executionStatus: string): Attention | undefined {
  if (FAILED_EXECUTIONS.has(executionStatus) || FAILED_STATES.has(state)) return 'failed';
  if (WAITING_ON_PERSON[kind as ProcessKind]?.includes(state)) return 'waiting-on-person';
  return undefined;
}

/** The visibility query clauses that select each kind of attention (for counts). */
export function attentionClauses(quote: (v: string) => string, stateAttr: string, kindAttr: string): Record<Attention, string> {
  const waiting = Object.entries(WAITING_ON_PERSON).map(
    ([kind, states]) => `(${kindAttr} = ${quote(kind)} AND ${stateAttr} IN (${states!.map(quote).join(', ')}))`,
  );
  return {
    'waiting-on-person': `ExecutionStatus NOT IN ('Failed', 'TimedOut', 'Terminated') AND (${waiting.join(' OR ')})`,
    failed: `(ExecutionStatus IN ('Failed', 'TimedOut', 'Terminated') OR ${stateAttr} IN (${[...FAILED_STATES].map(quote).join(', ')}))`,
  };
}

/** Processes whose states the registry leaves to the platform (templates, senders) also pass through these of relayflow's. */
const PROVISIONING_OWN_STATES = ['CREATING', 'FAILED', 'STOPPED'];

/** The states a kind's processes can be in (every kind's when none is given), for counts by state. */
export function knownStates(kind?: ProcessKind): string[] {
  const out = new Set<string>();
  for (const family of FAMILY_NAMES)
    for (const entry of FAMILIES[family].kinds) {
      if (kind && entry.kind !== kind) continue;
      const states = entry.states ?? [...PROVISIONING_OWN_STATES, ...platformStates(entry.kind)];
      for (const s of states) out.add(s);
    }
  return [...out];
}

function platformStates(kind: ProcessKind): readonly string[] {
  if (kind === 'chata-template') return [...TEMPLATE_STATES, 'ACCOUNT_BANNED'];
  if (kind.endsWith('-template')) return TEMPLATE_STATES;
  if (kind === 'rcs-sender') return RCS_STATES;
  if (kind === 'chata-sender') return [...CHATA_SENDER_STATES, ...chataSenderWaits];
  if (kind === 'chatb-sender') return [...CHATB_SENDER_STATES, ...senderWaits];
  return [];
}
