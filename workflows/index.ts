// Every workflow the worker runs. Workflow code imports activity types only.
export { subprojectProvisioning } from './subproject.js';
export { verification } from './verification.js';
export { numberGuard } from './number-guard.js';
export { templateApproval } from './template-approval.js';
export { rcsSenderLaunch } from './rcs-sender-launch.js';
export { chataSenderOnboarding, chatbSenderOnboarding } from './chat-sender-onboarding.js';
export { resourceInbox } from './resource-inbox.js';
