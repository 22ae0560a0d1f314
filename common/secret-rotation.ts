// A callback secret during a rotation, shared by every intake that checks a platform signature (provisioning
// webhooks, sender ID callbacks): the current secret first, then previous ones, each accepted until its end
// (none: until the configuration drops it). Which secrets an intake tries at a moment is acceptedSecrets;
// matchSecret tries every one of them and says which matched, so a log can tell a rotation still under way.

export interface PreviousSecret {
  secret: string;
  /** Milliseconds since the epoch after which it is refused; absent: accepted while it is configured. */
  untilMs?: number;
}

export interface RotatingSecret {
  /** The secret the platform is (or is being) given; undefined: nothing is accepted. */
  current: string | undefined;
  previous: readonly PreviousSecret[];
}

/** A current-first list with no end times (RELAYFLOW_SENDERID_CALLBACK_SECRETS). */
export function secretsInOrder(secrets: readonly string[]): RotatingSecret {
  const [current, ...previous] = secrets;
  return { current, previous: previous.map((secret) => ({ secret })) };
}

const live = (p: PreviousSecret, now: number) => p.untilMs === undefined || now < p.untilMs;

/** The secrets accepted at `now`, current first; empty strings left out. */
export function acceptedSecrets(s: RotatingSecret, now = Date.now()): string[] {
  return [s.current ?? '', ...s.previous.filter((p) => live(p, now)).map((p) => p.secret)].filter((x) => x !== '');
}

/** True while a previous secret is still accepted: the platform may hold it, so it must be told the current one. */
export function rotationUnderWay(s: RotatingSecret, now = Date.now()): boolean {
  return s.previous.some((p) => p.secret !== '' && p.secret !== s.current && live(p, now));
}

/**
 * The index of the first secret `matches` accepts, or -1. Every secret is tried (no early exit; `matches`
 * compares in constant time), so the answer's timing does not say which one matched.
 */
export function matchSecret(secrets: readonly string[], matches: (secret: string) => boolean): number {
  let matched = -1;
  secrets.forEach((secret, index) => {
    if (matches(secret) && matched === -1) matched = index;
  });
  return matched;
}
