// The onboarding's compensation: undo one step's platform resource where the platform allows it, and say why
// not otherwise. Every path reads before it deletes and counts "already gone" as undone, so a repeat (a
// Temporal retry, or a second cancel) answers undone again instead of failing.
import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Compensation, ResourceField, StepKind, UndoStepInput, UndoStepResult } from '../contract.js';
import { processStatusQuery } from '../../../../contracts/process-status.js';
import { PlatformConflictError, PlatformNotFoundError } from '../../../../platform/errors.js';
import type { ProvisioningClient } from '../../../../platform/provisioning/client.js';
import type { SenderIdClient } from '../../../../platform/senderid/client.js';
import { createBundleActivities } from '../../../provisioning/activities/bundles.js';

export interface UndoDeps {
  provisioning: ProvisioningClient;
  senderid: SenderIdClient;
  temporal?: Client | undefined;
}

/** Where each kind's process reports the ID of what it made. */
const FIELD: Record<StepKind, ResourceField> = {
  subproject: 'subprojectId',
  'bundle-provisioning': 'bundleId',
  webhook: 'webhookId',
  'rcs-sender': 'senderId',
  'chata-sender': 'senderId',
  'chatb-sender': 'senderId',
  'chata-template': 'templateId',
  'chatb-template': 'templateId',
  'senderid-registration': 'registrationId',
};

const TEMPLATE_KEPT: readonly string[] = ['APPROVED', 'PAUSED', 'DISABLED'];
const RCS_KEPT: readonly string[] = ['LAUNCHED', 'PARTIALLY_LAUNCHED'];

const undone = (reason: string): Compensation => ({ undone: true, reason });
const kept = (reason: string): Compensation => ({ undone: false, reason });
const gone = (what: string) => undone(`${what} is already gone; nothing to undo.`);

/** The platform's own message, without the client's `<area> <status> <code>: ` prefix. */
const platformWords = (err: Error) => err.message.replace(/^\w+ \d{3} [^:]+: /, '');

/** The resource, or undefined when the platform says it does not exist (404). */
async function read<T>(get: () => Promise<T>): Promise<T | undefined> {
  try {
    return await get();
  } catch (err) {
    if (err instanceof PlatformNotFoundError) return undefined;
    throw err;
  }
}

/** Deletes; a 404 means an earlier attempt (or someone) did it, a 409 that the platform refuses now. */
async function remove(what: string, del: () => Promise<unknown>, done: string): Promise<Compensation> {
  try {
    await del();
    return undone(done);
  } catch (err) {
    if (err instanceof PlatformNotFoundError) return gone(what);
    if (err instanceof PlatformConflictError) return kept(`${what} was not deleted: the platform refused (${platformWords(err)}).`);
    throw err;
  }
}

export function createUndoActivity(deps: UndoDeps) {
  const { provisioning, senderid } = deps;
  // The bundle's delete is bundle provisioning's own activity, so both undo a bundle the same way.
  const { deleteBundle } = createBundleActivities({ provisioning });

  /** The ID from the step's view, else from its process's status (made but not yet reported). */
  async function resourceIdOf({ kind, processId, resource }: UndoStepInput): Promise<string | undefined> {
    const given = resource[FIELD[kind]];
    if (given) return given;
    if (!processId || !deps.temporal) return undefined;
    try {
      const status = await deps.temporal.workflow.getHandle(processId).query(processStatusQuery);
      const id = status.details[FIELD[kind]];
      return typeof id === 'string' && id !== '' ? id : undefined;
    } catch (err) {
      // The child never started: it made nothing.
      if (err instanceof WorkflowNotFoundError) return undefined;
      throw err;
    }
  }

  async function undoTemplate(channel: 'CHATA' | 'CHATB', id: string): Promise<Compensation> {
    const templates = provisioning.templates(channel);
    const what = `${channel} template ${id}`;
    const t = await read(() => templates.get(id));
    if (!t || t.state === 'DELETED') return gone(what);
    if (TEMPLATE_KEPT.includes(t.state)) {
      return kept(`${what}: the template was approved (${t.state}); an approved template stays: delete it yourself if it is no longer wanted.`);
    }
    return remove(what, () => templates.delete(id), `Deleted the ${t.state} ${channel} template ${id}.`);
  }

  async function undoRcsSender(id: string): Promise<Compensation> {
    const what = `RCS sender ${id}`;
    const s = await read(() => provisioning.rcs.get(id));
    if (!s) return gone(what);
    if (RCS_KEPT.includes(s.state)) {
      return kept(
        `${what} is ${s.state}: a launched sender cannot be deleted, so it stays; ask the platform's support to take it down if it is no longer wanted.`,
      );
    }
    return remove(what, () => provisioning.rcs.delete(id), `Deleted the ${s.state} RCS sender ${id}.`);
  }

  async function undoChatSender(channel: 'CHATA' | 'CHATB', id: string): Promise<Compensation> {
    const client = channel === 'CHATA' ? provisioning.chataSenders : provisioning.chatbSenders;
    const what = `${channel} sender ${id}`;
    const s = await read<{ state: string }>(() => client.get(id));
    if (!s || s.state === 'DELETED') return gone(what);
    if (s.state === 'ACTIVE') {
      return kept(`${what} is ACTIVE: an active sender cannot be deleted, so it stays; ask the platform's support to take it down if it is no longer wanted.`);
    }
    return remove(what, () => client.delete(id), `Deleted the ${s.state} ${channel} sender ${id}.`);
  }

  async function undoRegistration(id: string): Promise<Compensation> {
    const what = `Sender ID registration ${id}`;
    const r = await read(() => senderid.getRegistration(id));
    // Deleted registrations read 404; DELETED is checked too should the platform ever show one.
    if (!r || (r.status as string) === 'DELETED') return gone(what);
    if (r.status === 'APPROVED') {
      return kept(
        `${what} is APPROVED: approved registrations stay (the platform refuses to delete them); ask the account manager to withdraw the sender ID if it is no longer wanted.`,
      );
    }
    return remove(what, () => senderid.deleteRegistration(id), `Deleted the ${r.status} sender ID registration ${id}.`);
  }

  async function undoWebhook(id: string, created: boolean | undefined): Promise<Compensation> {
    if (created === false) return kept(`Webhook ${id}: the webhook with this target existed before the onboarding; left in place.`);
    return remove(`Webhook ${id}`, () => provisioning.webhooks.delete(id), `Deleted webhook ${id}, which this onboarding created.`);
  }

  return {
    async undoStep(input: UndoStepInput): Promise<UndoStepResult> {
      const id = await resourceIdOf(input);
      if (!id) return undone(`Nothing was made on the platform: no ${FIELD[input.kind]} was reported for this ${input.kind} step.`);
      return { ...(await undoById(input, id)), resource: { [FIELD[input.kind]]: id } };
    },
  };

  async function undoById(input: UndoStepInput, id: string): Promise<Compensation> {
    switch (input.kind) {
      case 'webhook':
        return undoWebhook(id, input.created);
      case 'chata-template':
        return undoTemplate('CHATA', id);
      case 'chatb-template':
        return undoTemplate('CHATB', id);
      case 'rcs-sender':
        return undoRcsSender(id);
      case 'chata-sender':
        return undoChatSender('CHATA', id);
      case 'chatb-sender':
        return undoChatSender('CHATB', id);
      case 'senderid-registration':
        return undoRegistration(id);
      case 'bundle-provisioning': {
        const { deleted } = await deleteBundle({ bundleId: id });
        return deleted ? undone(`Deleted bundle ${id}.`) : gone(`Bundle ${id}`);
      }
      case 'subproject':
        return kept(
          `Subproject ${id} stays: the platform has no way to delete a subproject (area E offers create, list and get only); ask the platform's support if it must go.`,
        );
    }
  }
}
