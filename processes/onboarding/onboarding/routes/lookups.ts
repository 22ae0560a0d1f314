// What the platform says that a plan's items are checked against, read once per distinct question before the
// plan is built: RCS questionnaires and CHATB categories (a failed read only makes the errors less precise, as
// on their own routes), sender ID policies (unknown: an error naming the item; the platform down: 503).
import type { FastifyBaseLogger } from 'fastify';
import type { ProvisioningClient } from '../../../../platform/provisioning/client.js';
import type { RcsUseCase } from '../../../../common/wire/provisioning.js';
import type { SenderIdClient } from '../../../../platform/senderid/client.js';
import { lookup } from '../../../provisioning/routes/common.js';
import { readPolicy } from '../../../senderid/senderid-registration/routes/policy.js';
import type { PlanLookups, StepItems } from './plan.js';

export interface LookupClients {
  provisioning: ProvisioningClient;
  senderid: SenderIdClient;
  log: FastifyBaseLogger;
}

const questionKey = (useCase: string, countries: readonly string[]) => `${useCase}|${countries.join(',')}`;

export async function readLookups(items: StepItems, { provisioning, senderid, log }: LookupClients): Promise<PlanLookups> {
  const questions = new Map((items.rcsSenders ?? []).map((s) => [questionKey(s.useCase, s.countries), s] as const));
  const policyIds = [...new Set((items.senderIds ?? []).map((s) => s.policyId))];
  const [questionnaires, categories, policies] = await Promise.all([
    Promise.all(
      [...questions].map(
        async ([key, s]) =>
          [key, await lookup(log, 'the RCS questionnaire', () => provisioning.rcs.getQuestionnaire(s.useCase as RcsUseCase, s.countries))] as const,
      ),
    ),
    items.chatbSenders?.length ? lookup(log, 'the CHATB categories', () => provisioning.chatbSenders.categories()) : undefined,
    Promise.all(policyIds.map(async (id) => [id, await readPolicy(senderid, id)] as const)),
  ]);
  const byQuestion = new Map(questionnaires);
  const byPolicy = new Map(policies);
  return {
    questionnaire: (useCase, countries) => byQuestion.get(questionKey(useCase, countries)),
    categories,
    policy: (policyId) => byPolicy.get(policyId),
  };
}
