// A CHATB template: submitted, then watched for the platform's verdict and later changes of its quality until it is
// retired (RETIRED: deleted on the platform through the API).
import { templateKind } from '../provisioning-kinds.js';

export const chatbTemplate = templateKind('chatb');
