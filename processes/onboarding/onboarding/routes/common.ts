// What the onboarding routes share: their options and the kind of process.
import type { Client } from '@temporalio/client';
import type { Config } from '../../../../common/config.js';
import type { SubjectHasher } from '../../../../common/subject-hash.js';
import type { ProvisioningClient } from '../../../../platform/provisioning/client.js';
import type { SenderIdClient } from '../../../../platform/senderid/client.js';
import type { ProcessService } from '../../../../api/processes/find.js';

export interface OnboardingRouteOptions {
  client: Client;
  processes: ProcessService;
  config: Pick<Config, 'taskQueue' | 'platform' | 'processes' | 'api'>;
  /** Read-only look-ups that make the items' errors precise (questionnaire, CHATB categories). */
  provisioning: ProvisioningClient;
  /** The policies the senderIds items are checked against. */
  senderid: SenderIdClient;
  hashSubject: SubjectHasher;
}

export const KIND = 'onboarding' as const;
