// Who acted, as the API writes it into a history's headers and the timeline reads it back (api/temporal-actor.ts
// writes, processes/shared/audit/ reads): the header's name, and the actor of the platform's signed callbacks.
export const ACTOR_HEADER = 'relayflow-actor';
export const PLATFORM_ACTOR = 'platform';
