// Activities of CHATA / CHATB template approval: an idempotent create (looked up by name + language
// first), read, submit, edit (and resubmit) and delete, each safe to repeat under Temporal retries.
import type { ProvisioningClient } from '../../platform/provisioning/client.js';
import { PlatformNotFoundError } from '../../platform/errors.js';
import { isProvisioningError, PROVISIONING_ERROR_CODES } from '../../platform/provisioning/errors.js';
import type { CreateTemplateRequest, Template, UpdateTemplateRequest } from '../../platform/provisioning/templates.js';
import type { TemplateChannel } from '../../platform/provisioning/types.js';
import { withFailureMappingAll } from '../shared/failures.js';
import { containsSubset, findFirst, findOrCreate, LOOKUP_PAGE_SIZE } from './lookup.js';

export interface CreateTemplateInput {
  channel: TemplateChannel;
  /** name + language is the idempotency key: an existing (not DELETED) template with both is returned. */
  template: CreateTemplateRequest;
}

/** `created: false` when the template already existed (e.g. a retry after a lost answer). */
export type CreateTemplateResult = Template & { created: boolean };

export interface TemplateRef {
  channel: TemplateChannel;
  templateId: string;
}

/** `submitted: false` when the template was no longer a DRAFT (an earlier attempt submitted it, or someone else did). */
export type SubmitTemplateResult = Template & { submitted: boolean };

export interface EditTemplateInput extends TemplateRef {
  changes: UpdateTemplateRequest;
  /**
   * The template's `version` the edit is based on. When given, a template already past it counts as
   * edited (the earlier attempt's answer was lost) and is not patched again. Without it a repeated
   * edit is recognised by the template already holding the changes.
   */
  baseVersion?: number;
}

/** `edited: false` when the edit had already been applied by an earlier attempt. */
export type EditTemplateResult = Template & { edited: boolean };

export interface DeleteTemplateResult {
  templateId: string;
  /** false when the platform answered 404, or refused because the template was already DELETED. */
  deleted: boolean;
}

export function createProvisioningTemplateActivities(clients: { provisioning: ProvisioningClient }) {
  const { provisioning } = clients;
  return withFailureMappingAll({
    async createTemplate(input: CreateTemplateInput): Promise<CreateTemplateResult> {
      const templates = provisioning.templates(input.channel);
      const { name, language } = input.template;
      return findOrCreate(
        () => findFirst(templates.listAll({ pageSize: LOOKUP_PAGE_SIZE }), (t) => t.name === name && t.language === language && t.state !== 'DELETED'),
        () => templates.create(input.template),
      );
    },

    async getTemplate(input: TemplateRef): Promise<Template> {
      return provisioning.templates(input.channel).get(input.templateId);
    },

    async submitTemplate(input: TemplateRef): Promise<SubmitTemplateResult> {
      const templates = provisioning.templates(input.channel);
      try {
        return { ...(await templates.submit(input.templateId)), submitted: true };
      } catch (err) {
        if (!isProvisioningError(err, PROVISIONING_ERROR_CODES.templateNotUpdatable)) throw err;
        // A retry after a lost answer finds it IN_PROGRESS (or already reviewed).
        const current = await templates.get(input.templateId);
        if (current.state === 'DRAFT' || current.state === 'DELETED') throw err;
        return { ...current, submitted: false };
      }
    },

    async editTemplate(input: EditTemplateInput): Promise<EditTemplateResult> {
      const templates = provisioning.templates(input.channel);
      const alreadyEdited = (t: Template) =>
        t.state !== 'DELETED' && (input.baseVersion !== undefined ? t.version > input.baseVersion : containsSubset(t, withoutStatus(input.changes)));
      if (input.baseVersion !== undefined) {
        const current = await templates.get(input.templateId);
        if (alreadyEdited(current)) return { ...current, edited: false };
      }
      try {
        return { ...(await templates.update(input.templateId, input.changes)), edited: true };
      } catch (err) {
        if (!isProvisioningError(err, PROVISIONING_ERROR_CODES.templateNotUpdatable)) throw err;
        const current = await templates.get(input.templateId);
        if (!alreadyEdited(current)) throw err;
        return { ...current, edited: false };
      }
    },

    async deleteTemplate(input: TemplateRef): Promise<DeleteTemplateResult> {
      const templates = provisioning.templates(input.channel);
      try {
        await templates.delete(input.templateId);
        return { templateId: input.templateId, deleted: true };
      } catch (err) {
        if (err instanceof PlatformNotFoundError) return { templateId: input.templateId, deleted: false };
        if (!isProvisioningError(err, PROVISIONING_ERROR_CODES.templateNotUpdatable)) throw err;
        const current = await templates.get(input.templateId);
        if (current.state !== 'DELETED') throw err;
        return { templateId: input.templateId, deleted: false };
      }
    },
  });
}

/** `status` is a request instruction, not a field the template carries. */
function withoutStatus(changes: UpdateTemplateRequest): Omit<UpdateTemplateRequest, 'status'> {
  const { status: _status, ...rest } = changes;
  return rest;
}
