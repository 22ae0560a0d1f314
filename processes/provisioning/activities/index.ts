// Every provisioning activity (area G): template approval, RCS sender launch, CHATA / CHATB sender
// onboarding, a sender's change, bundle provisioning, and the link of a process to its resource. Each is idempotent under Temporal retries and maps platform errors
// through shared/failures.ts.
import type { Client } from '@temporalio/client';
import type { Logger } from '../../../common/logger.js';
import type { ActivityInProject, ProvisioningActivities } from '../contract.js';
import type { ProvisioningClient } from '../../../platform/provisioning/client.js';
import type { ResourceLinkStore } from '../../../store/resource-links.js';
import { createBundleActivities } from './bundles.js';
import { createChatSenderApprovalActivities } from './chat-sender-approval.js';
import { createRcsSenderLaunchActivities } from './rcs-sender-launch.js';
import { createResourceLinkActivities } from './resource-link.js';
import { createSenderChangeActivities } from './sender-change.js';
import { createTemplateApprovalActivities } from './template-approval.js';

type Deps = {
  provisioning: ProvisioningClient;
  temporal?: Client | undefined;
  links?: ResourceLinkStore | undefined;
  inboxIdleMs?: number | undefined;
  /** relayflow's own provisioning webhook, registered in each other project before its first call there. */
  ownWebhook?: { target: string; secret: string } | undefined;
  logger?: Logger | undefined;
};

function inOneProject(deps: Deps): ProvisioningActivities {
  return {
    ...createTemplateApprovalActivities(deps),
    ...createRcsSenderLaunchActivities(deps),
    ...createChatSenderApprovalActivities(deps),
    ...createSenderChangeActivities(deps),
    ...createResourceLinkActivities(deps),
    ...createBundleActivities(deps),
  };
}

/**
 * Each call runs in the project its input names (ActivityInProject: a process whose resource lives in a customer's
 * subproject adds it), with the parent project's key; the activities themselves never see the field.
 */
export function createProvisioningActivities(deps: Deps): ProvisioningActivities {
  const own = inOneProject(deps);
  const others = new Map<string, ProvisioningActivities>();
  const wired = new Map<string, Promise<void>>();
  const activitiesIn = (projectId: string | undefined): ProvisioningActivities => {
    const client = deps.provisioning.forProject(projectId);
    if (client === deps.provisioning) return own;
    let found = others.get(client.projectId);
    if (!found) others.set(client.projectId, (found = inOneProject({ ...deps, provisioning: client })));
    return found;
  };
  /**
   * The project's events reach relayflow as the platform project's do: its webhook is ensured once per worker (a
   * failure is logged and tried again at the next call; the processes read their resources meanwhile).
   */
  const wire = (projectId: string | undefined): Promise<void> => {
    const client = deps.provisioning.forProject(projectId);
    const hook = deps.ownWebhook;
    if (client === deps.provisioning || !hook) return Promise.resolve();
    let done = wired.get(client.projectId);
    if (!done) {
      done = client.webhooks.ensure(hook.target, hook.secret).then(
        ({ id, created }) => deps.logger?.info({ projectId: client.projectId, webhookId: id, created }, 'provisioning webhook ensured in the project'),
        (err: unknown) => {
          wired.delete(client.projectId);
          deps.logger?.warn({ projectId: client.projectId, err }, 'provisioning webhook not ensured in the project: its processes poll');
        },
      );
      wired.set(client.projectId, done);
    }
    return done;
  };
  const dispatch =
    (name: keyof ProvisioningActivities) =>
    async (input?: unknown, ...rest: unknown[]) => {
      const { projectId, ...fields } = (input ?? {}) as ActivityInProject;
      await wire(projectId);
      const call = activitiesIn(projectId)[name] as (input?: unknown, ...rest: unknown[]) => unknown;
      return call(input === undefined || projectId === undefined ? input : fields, ...rest);
    };
  return Object.fromEntries(Object.keys(own).map((name) => [name, dispatch(name as keyof ProvisioningActivities)])) as unknown as ProvisioningActivities;
}
