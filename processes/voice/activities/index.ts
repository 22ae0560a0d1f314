// Voice activities (area A) over platform/voice. Placing a callout is the one side effect that cannot be
// repeated blindly (a second POST rings the phone again) and the platform takes no idempotency key, so an
// answer that may have been lost is returned as "in doubt" for the workflow to settle from callbacks, instead
// of being retried here. Refusals come back as values (a leg outcome), not failures.
import type { PlaceCalloutResult, VoiceActivities } from '../contract.js';
import { PlatformNotFoundError } from '../../../platform/errors.js';
import { classifySendError } from '../../../platform/send-errors.js';
import type { VoiceClient } from '../../../platform/voice/client.js';
import { withFailureMappingAll } from '../../shared/activities/failures.js';

export function createVoiceActivities(clients: { voice: VoiceClient }): VoiceActivities {
  const { voice } = clients;
  return withFailureMappingAll({
    async placeVoiceCallout({ request, baseUrl }): Promise<PlaceCalloutResult> {
      try {
        const { callId } = await voice.callout(request, { baseUrl });
        return { placed: true, callId };
      } catch (err) {
        const c = classifySendError(err);
        // Never reached the platform, or it said to come back: Temporal's retry policy sends it again.
        if (c.kind === 'throttled' || c.kind === 'not_sent') throw err;
        if (c.kind === 'in_doubt') return { placed: false, inDoubt: true, reason: c.message };
        return { placed: false, inDoubt: false, reason: c.message, errorType: err instanceof Error ? err.name : 'Error' };
      }
    },

    async readVoiceCall({ callId, baseUrl }) {
      try {
        return await voice.getCall(callId, baseUrl ? { baseUrl } : {});
      } catch (err) {
        if (err instanceof PlatformNotFoundError) return undefined;
        throw err;
      }
    },

    async hangupVoiceCall({ callId, baseUrl }) {
      try {
        await voice.updateCall(callId, { action: { name: 'hangup' } }, baseUrl ? { baseUrl } : {});
        return true;
      } catch (err) {
        if (err instanceof PlatformNotFoundError) return false;
        throw err;
      }
    },
  });
}
