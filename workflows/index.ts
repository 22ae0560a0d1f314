// Every workflow the worker runs. Workflow code imports activity types only.
export { subprojectProvisioning } from './subprojects/subproject-provisioning.js';
export { verification } from './verification/verification.js';
export { sdkVerification } from './verification/sdk-verification.js';
export { templateApproval } from './provisioning/template-approval.js';
export { rcsSenderLaunch } from './provisioning/rcs-sender-launch.js';
export { chataSenderOnboarding, chatbSenderOnboarding } from './provisioning/chat-sender-onboarding.js';
export { resourceInbox } from './provisioning/resource-inbox.js';
export { bundleProvisioning } from './provisioning/bundle-provisioning.js';
export { senderIdRegistration } from './senderid/senderid-registration.js';
export { senderIdCallbackRelay } from './senderid/callback-relay.js';
export { campaign } from './campaigns/campaign.js';
export { voiceCallout } from './voice/callout.js';
export { voiceIncomingCall } from './voice/incoming-call.js';
export { onboarding } from './onboarding/onboarding.js';
