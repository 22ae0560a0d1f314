// RCS senders (`/v1/projects/{projectId}/rcs/...`): create, read, list, questionnaire, launch and
// relaunch, test numbers, delete.
import { ProvisioningResources } from './resources.js';
import { seg, type ProvisioningTransport } from './transport.js';
import type {
  CreateRcsSenderRequest,
  RcsLaunchContact,
  RcsQuestionnaire,
  RcsSender,
  RcsTestNumber,
  RcsTestNumberFeature,
  RcsUseCase,
  UpdateRcsSenderRequest,
} from '../../common/wire/provisioning.js';

export type {
  CreateRcsSenderRequest,
  RcsCountryStatus,
  RcsLaunchContact,
  RcsSender,
  RcsTestNumber,
  UpdateRcsSenderRequest,
} from '../../common/wire/provisioning.js';

export interface AddRcsTestNumberRequest {
  phoneNumber: string;
  features?: RcsTestNumberFeature[];
}

/** `create`: 400 file_has_wrong_dimensions when the banner is not 1440 x 448 (additionalInformation says so). */
export class ProvisioningRcsClient extends ProvisioningResources<RcsSender, 'senders', CreateRcsSenderRequest> {
  constructor(transport: ProvisioningTransport) {
    super(transport, 'rcs/senders', 'senders');
  }

  /**
   * Deletes a sender that is not launched; LAUNCHED or PARTIALLY_LAUNCHED answers 409 conflict. The sender is
   * gone afterwards: reads and a second delete answer 404.
   */
  async delete(senderId: string): Promise<void> {
    await this.t.call<unknown>('DELETE', this.item(senderId));
  }

  /**
   * The agent's profile, only the fields given: a DRAFT's at once; a LAUNCHED sender goes IN_REVIEW, then LAUNCHED with
   * the change or, rejected (RCS_SENDER_REJECTED), without it. Other states (and a change under review) answer 409.
   */
  update(senderId: string, request: UpdateRcsSenderRequest): Promise<RcsSender> {
    return this.t.call<RcsSender>('PATCH', this.item(senderId), { json: request });
  }

  /** The questions to answer before a launch; `countries` adds their country questions. */
  getQuestionnaire(useCase: RcsUseCase, countries: readonly string[] = []): Promise<RcsQuestionnaire> {
    return this.t.call<RcsQuestionnaire>('GET', `rcs/questionnaire/${seg(useCase)}`, {
      query: { countries: countries.length ? countries.join(',') : undefined },
    });
  }

  /** Replaces the answers; 400 invalid_input names each missing required question. */
  answerQuestionnaire(senderId: string, answers: Record<string, string>): Promise<unknown> {
    return this.t.call<unknown>('PUT', this.item(senderId, '/questionnaire'), { json: { answers } });
  }

  /** DRAFT → IN_REVIEW, each country PENDING; 400 questionnaire_incomplete when answers are missing. */
  launch(senderId: string, contact: RcsLaunchContact): Promise<RcsSender> {
    return this.t.call<RcsSender>('POST', this.item(senderId, ':launch'), { json: { contact } });
  }

  /** After a rejection (the sender or one of its countries REJECTED): back to IN_REVIEW. */
  relaunch(senderId: string, contact: RcsLaunchContact): Promise<RcsSender> {
    return this.t.call<RcsSender>('POST', this.item(senderId, ':relaunch'), { json: { contact } });
  }

  /** Before the launch (DRAFT) the platform answers 400 add_test_number_not_allowed_before_launch. */
  async addTestNumber(senderId: string, request: AddRcsTestNumberRequest): Promise<{ testNumbers: RcsTestNumber[] }> {
    const body = await this.t.call<{ testNumbers?: RcsTestNumber[] } | undefined>('POST', this.item(senderId, '/testNumbers'), { json: request });
    return { testNumbers: body?.testNumbers ?? [] };
  }
}
