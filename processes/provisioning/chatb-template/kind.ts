// A CHATB template: submitted, then watched for the platform's verdict and later changes of its quality.
import { templateKind } from '../provisioning-kinds.js';

export const chatbTemplate = templateKind('chatb');
