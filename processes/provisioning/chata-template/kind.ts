// A CHATA template: submitted, then watched for the platform's verdict and later changes of its quality until it is
// retired (RETIRED: deleted on the platform through the API); a ban of its business account holds it until lifted.
import { templateKind } from '../provisioning-kinds.js';
import { ACCOUNT_BANNED } from '../states.js';

export const chataTemplate = templateKind('chata', [ACCOUNT_BANNED]);
