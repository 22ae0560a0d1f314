// CHATA and CHATB templates (`/v1/projects/{projectId}/{chata|chatb}/templates`): the same shapes on both
// channels. Create, read, list (paged, by state), submit a draft, edit (and resubmit), delete.
import { ProvisioningResources } from './resources.js';
import type { ProvisioningListQuery, ProvisioningTransport } from './transport.js';
import type { CreateTemplateRequest, Template, TemplateChannel, TemplateState, UpdateTemplateRequest } from '../../common/wire/provisioning.js';

export type { CreateTemplateRequest, Template, TemplateComponent, UpdateTemplateRequest } from '../../common/wire/provisioning.js';

export interface TemplateListQuery extends ProvisioningListQuery {
  filterStates?: readonly TemplateState[];
}

/** `create`: 409 conflict when a template with this name and language exists. Lists may filter by state. */
export class ProvisioningTemplatesClient extends ProvisioningResources<Template, 'templates', CreateTemplateRequest, TemplateListQuery> {
  constructor(
    transport: ProvisioningTransport,
    readonly channel: TemplateChannel,
  ) {
    super(transport, `${channel.toLowerCase()}/templates`, 'templates');
  }

  /** Submits a DRAFT (→ IN_PROGRESS); any other state answers 400 template_not_updatable. */
  submit(templateId: string): Promise<Template> {
    return this.t.call<Template>('POST', this.item(templateId, ':submit'));
  }

  /**
   * Edits a REJECTED, APPROVED, PAUSED or DISABLED template (IN_PROGRESS / DELETED: 400
   * template_not_updatable); with status SUBMIT (the default) it goes back to review. An APPROVED, PAUSED or
   * DISABLED template stays in use as it is: the edit waits as its `pendingChange`, reviewed apart.
   */
  update(templateId: string, changes: UpdateTemplateRequest): Promise<Template> {
    return this.t.call<Template>('PATCH', this.item(templateId), { json: changes });
  }

  /** Drops the template's pending change (the live version stays); 404 when it has none ("no pending changes exist"). */
  deleteChange(templateId: string): Promise<Template> {
    return this.t.call<Template>('DELETE', this.item(templateId, '/changes'));
  }

  /** The template moves to DELETED; the answer is the deleted template when the platform sends one. */
  delete(templateId: string): Promise<Template | undefined> {
    return this.t.call<Template | undefined>('DELETE', this.item(templateId));
  }
}
