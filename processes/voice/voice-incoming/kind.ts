// An incoming call, answered by the caller's voice rules: listed and read with every process.
import type { VoiceIncomingState } from '../contract.js';
import { everyState } from '../../descriptor.js';
import { callKind } from '../call-kind.js';

export const voiceIncoming = callKind<VoiceIncomingState>()('voice-incoming', {
  workflowType: 'voiceIncomingCall',
  states: { all: everyState<VoiceIncomingState>()(['RINGING', 'CONNECTED', 'ENDED']), initial: 'RINGING', final: ['ENDED'] },
});
