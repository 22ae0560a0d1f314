// What the provisioning kinds share: relayflow's own states around the platform's, which pass through.
/** A CHATA business account the platform banned: someone has to have the ban lifted. */
export const ACCOUNT_BANNED = 'ACCOUNT_BANNED';

/** Every provisioning process passes through these of relayflow's besides the platform's states. */
export const PROVISIONING_OWN_STATES = ['CREATING', 'FAILED', 'STOPPED'] as const;

/** Every provisioning process takes the platform's events (from its resource's inbox) and a stop. */
export const PROVISIONING_SIGNALS = ['provisioningEvent'] as const;
