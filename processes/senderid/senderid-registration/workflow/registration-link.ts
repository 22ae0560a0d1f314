// A registration process links itself to a registration it adopted (store/resource-links.ts; one it creates is linked
// by the create activity): the callback intake then signals it directly, and the registration's relay stays only for
// callbacks no process claimed. A store write, safe to repeat: a local activity (one marker, no task of its own).
import { proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { SenderIdLinkActivities } from '../contract.js';
import { platformLocalActivityOptions } from '../../../shared/workflow/activity-options.js';

const { linkSenderIdRegistration } = proxyLocalActivities<SenderIdLinkActivities>({ ...platformLocalActivityOptions, startToCloseTimeout: '10 seconds' });

export async function linkRegistration(projectId: string, registrationId: string): Promise<void> {
  await linkSenderIdRegistration({ projectId, registrationId, processId: workflowInfo().workflowId });
}
