// Activities of CHATA / CHATB template approval: an idempotent create (looked up by name + language
// first) that links its process to the template (resource-link.ts), read, submit and edit (and resubmit), each safe
// to repeat under Temporal retries; delete (retire) counts a template already gone as deleted.
import type { ProvisioningClient } from '../../../platform/provisioning/client.js';
import { isProvisioningError, PROVISIONING_ERROR_CODES } from '../../../platform/provisioning/errors.js';
import type { Template, UpdateTemplateRequest } from '../../../platform/provisioning/templates.js';
import type {
  CreateTemplateInput,
  CreateTemplateResult,
  DeleteTemplateChangeResult,
  EditTemplateInput,
  EditTemplateResult,
  SubmitTemplateResult,
  TemplateRef,
} from '../contract.js';
import { withFailureMappingAll } from '../../shared/activities/failures.js';
import { containsSubset, findFirst, findOrCreate, LOOKUP_PAGE_SIZE } from '../../../platform/lookup.js';
import { processLinker, type LinkDeps } from './resource-link.js';

export function createTemplateApprovalActivities(deps: { provisioning: ProvisioningClient } & LinkDeps) {
  const { provisioning } = deps;
  return withFailureMappingAll({
    async createTemplate(input: CreateTemplateInput): Promise<CreateTemplateResult> {
      const linker = processLinker(deps);
      const templates = provisioning.templates(input.channel);
      const { name, language } = input.template;
      const template = await findOrCreate(
        () => findFirst(templates.listAll({ pageSize: LOOKUP_PAGE_SIZE }), (t) => t.name === name && t.language === language && t.state !== 'DELETED'),
        () => templates.create(input.template),
      );
      await linker.link({ channel: input.channel, resourceType: 'TEMPLATE', resourceId: template.id });
      return template;
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

    /** A 404 for a template that exists says no pending changes exist (a retry after a lost answer gets it too). */
    async deleteTemplateChange(input: TemplateRef): Promise<DeleteTemplateChangeResult> {
      const templates = provisioning.templates(input.channel);
      try {
        return { deleted: true, template: await templates.deleteChange(input.templateId) };
      } catch (err) {
        if (!isProvisioningError(err, PROVISIONING_ERROR_CODES.notFound)) throw err;
        return { deleted: false, message: err.message, template: await templates.get(input.templateId) };
      }
    },

    /** A retry after a lost answer finds it DELETED (answered again) or gone (404): both are done. */
    async deleteTemplate(input: TemplateRef): Promise<{ deleted: boolean }> {
      try {
        await provisioning.templates(input.channel).delete(input.templateId);
        return { deleted: true };
      } catch (err) {
        if (isProvisioningError(err, PROVISIONING_ERROR_CODES.notFound)) return { deleted: false };
        throw err;
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
  });
}

/** `status` is a request instruction, not a field the template carries. */
function withoutStatus(changes: UpdateTemplateRequest): Omit<UpdateTemplateRequest, 'status'> {
  const { status: _status, ...rest } = changes;
  return rest;
}
