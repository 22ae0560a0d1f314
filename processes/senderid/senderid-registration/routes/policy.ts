// The policy look-up the sender ID start checks rely on: its route's and the onboarding's senderIds items.
import type { Policy } from '../../../../common/wire/senderid.js';
import type { SenderIdClient } from '../../../../platform/senderid/client.js';
import { ApiError } from '../../../../api/errors.js';
import { onPlatform } from '../../../../api/platform-errors.js';

/** The policy, or undefined when the platform does not know it; other failures in the API's words (503, 502, ...). */
export async function readPolicy(senderId: SenderIdClient, policyId: string): Promise<Policy | undefined> {
  try {
    return await onPlatform(`policy ${policyId}`, () => senderId.policyRequirements(policyId));
  } catch (err) {
    if (err instanceof ApiError && err.statusCode === 404) return undefined;
    throw err;
  }
}
