// Every workflow the worker runs. Workflow code imports activity types only.
export { subprojectProvisioning } from './subproject.js';
export { verification } from './verification.js';
export { numberGuard } from './number-guard.js';
