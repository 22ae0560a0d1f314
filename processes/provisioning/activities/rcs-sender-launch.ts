// Activities of RCS sender launch: an idempotent create (looked up by displayName first) that links its process to
// the sender (resource-link.ts), read, the
// questionnaire answers, launch / relaunch (no second launch after a lost answer) and test numbers.
import type { ProvisioningClient } from '../../../platform/provisioning/client.js';
import { PlatformConflictError } from '../../../platform/errors.js';
import { isProvisioningError, PROVISIONING_ERROR_CODES } from '../../../platform/provisioning/errors.js';
import type { RcsSender } from '../../../platform/provisioning/rcs-senders.js';
import type {
  AddRcsTestNumberInput,
  AddRcsTestNumberResult,
  AnswerRcsQuestionnaireInput,
  AnswerRcsQuestionnaireResult,
  CreateRcsSenderInput,
  CreateRcsSenderResult,
  LaunchRcsSenderInput,
  LaunchRcsSenderResult,
  RcsSenderRef,
  RelaunchRcsSenderResult,
} from '../contract.js';
import { withFailureMappingAll } from '../../shared/activities/failures.js';
import { samePhoneNumber } from '../../../platform/lookup.js';
import { createLinkedSender, type LinkDeps } from './resource-link.js';

export function createRcsSenderLaunchActivities(deps: { provisioning: ProvisioningClient } & LinkDeps) {
  const { rcs } = deps.provisioning;
  return withFailureMappingAll({
    async createRcsSender(input: CreateRcsSenderInput): Promise<CreateRcsSenderResult> {
      // The platform tells of the new sender (RCS_SENDER_CREATED) as it answers: linked before this returns.
      return createLinkedSender(deps, 'RCS', rcs, input);
    },

    async getRcsSender(input: RcsSenderRef): Promise<RcsSender> {
      return rcs.get(input.senderId);
    },

    async answerRcsQuestionnaire(input: AnswerRcsQuestionnaireInput): Promise<AnswerRcsQuestionnaireResult> {
      await rcs.answerQuestionnaire(input.senderId, input.answers);
      return { senderId: input.senderId, answeredQuestionIds: Object.keys(input.answers) };
    },

    async launchRcsSender(input: LaunchRcsSenderInput): Promise<LaunchRcsSenderResult> {
      // Look first: launching is one-shot, and an earlier attempt may have launched and lost the answer.
      const current = await rcs.get(input.senderId);
      if (current.state !== 'DRAFT') return { ...current, launched: false };
      return { ...(await rcs.launch(input.senderId, input.contact)), launched: true };
    },

    async relaunchRcsSender(input: LaunchRcsSenderInput): Promise<RelaunchRcsSenderResult> {
      const current = await rcs.get(input.senderId);
      if (!hasRejection(current)) return { ...current, relaunched: false };
      return { ...(await rcs.relaunch(input.senderId, input.contact)), relaunched: true };
    },

    async addRcsTestNumber(input: AddRcsTestNumberInput): Promise<AddRcsTestNumberResult> {
      const current = await rcs.get(input.senderId);
      if (current.testNumbers?.some((n) => samePhoneNumber(n.phoneNumber, input.phoneNumber))) {
        return { added: true, testNumbers: current.testNumbers };
      }
      try {
        const { testNumbers } = await rcs.addTestNumber(input.senderId, { phoneNumber: input.phoneNumber, features: input.features });
        return { added: true, testNumbers };
      } catch (err) {
        if (isProvisioningError(err, PROVISIONING_ERROR_CODES.addTestNumberNotAllowedBeforeLaunch)) {
          return { added: false, reason: 'not_allowed_before_launch' };
        }
        if (err instanceof PlatformConflictError) {
          // Added concurrently (or by an attempt whose answer was lost).
          const after = await rcs.get(input.senderId);
          if (after.testNumbers?.some((n) => samePhoneNumber(n.phoneNumber, input.phoneNumber))) return { added: true, testNumbers: after.testNumbers };
        }
        throw err;
      }
    },
  });
}

/** Relaunchable: the sender REJECTED, or a country REJECTED once the review is over (not while IN_REVIEW again). */
function hasRejection(sender: RcsSender): boolean {
  if (sender.state === 'REJECTED') return true;
  if (sender.state === 'DRAFT' || sender.state === 'IN_REVIEW') return false;
  return Object.values(sender.countryStatus ?? {}).some((c) => c.status === 'REJECTED');
}
