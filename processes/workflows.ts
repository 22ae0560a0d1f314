// Every workflow the worker runs. Workflow code imports activity types only. A versioned worker bundles
// versioned-workflows.ts instead: the same workflows, each kind with its behaviour across an upgrade.
export { subprojectProvisioning } from './subprojects/subproject/workflow/subproject-provisioning.js';
export { verification } from './verification/verification/workflow/verification.js';
export { sdkVerification } from './verification/sdk-verification/workflow/sdk-verification.js';
export { templateApproval } from './provisioning/workflow/template-approval.js';
export { rcsSenderLaunch } from './provisioning/rcs-sender/workflow/rcs-sender-launch.js';
export { chataSenderApproval, chatbSenderApproval } from './provisioning/workflow/chat-sender-approval.js';
export { resourceInbox } from './provisioning/workflow/resource-inbox.js';
export { bundleProvisioning } from './provisioning/bundle-provisioning/workflow/bundle-provisioning.js';
export { senderIdRegistration } from './senderid/senderid-registration/workflow/senderid-registration.js';
export { senderIdCallbackRelay } from './senderid/senderid-registration/workflow/callback-relay.js';
export { campaign } from './campaigns/workflow/campaign.js';
export { voiceCallout } from './voice/voice-callout/workflow/callout.js';
export { voiceIncomingCall } from './voice/voice-incoming/workflow/incoming-call.js';
export { onboarding } from './onboarding/onboarding/workflow/onboarding.js';
