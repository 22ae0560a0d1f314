// Every workflow the worker runs. Workflow code imports activity types only.
export { subprojectProvisioning } from './subproject.js';
