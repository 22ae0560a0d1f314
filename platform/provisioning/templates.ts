// CHATA and CHATB templates (`/v1/projects/{projectId}/{chata|chatb}/templates`): the same shapes on both
// channels. Create, read, list (paged, by state), submit a draft, edit (and resubmit), delete.
import { ProvisioningResources } from './resources.js';
import type { ProvisioningListQuery, ProvisioningTransport } from './transport.js';
import type {
  ProvisioningComment,
  ProvisioningRequestStatus,
  QualityScore,
  RejectionCode,
  TemplateCategory,
  TemplateChannel,
  TemplateState,
} from '../../common/wire/provisioning.js';

type TemplateComponentType = 'HEADER' | 'BODY' | 'FOOTER' | 'BUTTONS' | 'CAROUSEL';
type TemplateHeaderFormat = 'IMAGE' | 'VIDEO' | 'DOCUMENT' | 'LOCATION' | 'TEXT';

/** Example media of a HEADER (limits: image 5 MB, video 16 MB, document 100 MB). */
interface TemplateMediaExample {
  mediaType: string;
  sizeBytes: number;
}

/**
 * One component. Only `type` is fixed; the rest (text, buttons, cards, `format` and `example` of a
 * HEADER, ...) passes through as the platform defines it.
 */
export interface TemplateComponent {
  type: TemplateComponentType;
  format?: TemplateHeaderFormat;
  text?: string;
  example?: TemplateMediaExample | Record<string, unknown>;
  buttons?: Array<Record<string, unknown>>;
  [field: string]: unknown;
}

export interface CreateTemplateRequest {
  /** 1..512 characters of [a-z0-9_]; name + language is unique per channel. */
  name: string;
  /** e.g. en_US */
  language: string;
  category: TemplateCategory;
  /** DRAFT keeps it editable; SUBMIT (the default) sends it to review. */
  status?: ProvisioningRequestStatus;
  allowCategoryChange?: boolean;
  /** AUTHENTICATION templates only. */
  messageSendTtlSeconds?: number;
  /** A BODY component is required. */
  components: TemplateComponent[];
}

export interface UpdateTemplateRequest {
  category?: TemplateCategory;
  components?: TemplateComponent[];
  allowCategoryChange?: boolean;
  /** SUBMIT (the default) sends the edit to review: state IN_PROGRESS, version + 1. */
  status?: ProvisioningRequestStatus;
}

export interface Template {
  id: string;
  name: string;
  language: string;
  category: TemplateCategory;
  state: TemplateState;
  rejectionCode?: RejectionCode;
  qualityScore?: QualityScore;
  allowCategoryChange: boolean;
  messageSendTtlSeconds?: number;
  components: TemplateComponent[];
  comments: ProvisioningComment[];
  version: number;
  createTime?: string;
  updateTime: string;
}

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
   * template_not_updatable); with status SUBMIT (the default) it goes back to review.
   */
  update(templateId: string, changes: UpdateTemplateRequest): Promise<Template> {
    return this.t.call<Template>('PATCH', this.item(templateId), { json: changes });
  }

  /** The template moves to DELETED; the answer is the deleted template when the platform sends one. */
  delete(templateId: string): Promise<Template | undefined> {
    return this.t.call<Template | undefined>('DELETE', this.item(templateId));
  }
}
