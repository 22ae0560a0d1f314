// What a kind of process says about itself, in one place: the names persisted in running processes, its ID
// builder, what its states mean, the messages it takes and where the API serves it. Workflows import
// descriptors too, so they hold pure data and pure functions only: no Node, no clock, no randomness.

/** A family: the one name its folder under processes/ uses, and docs/processes/ and test/<layer>/. */
export type FamilyName = 'subprojects' | 'verification' | 'provisioning' | 'senderid' | 'campaigns' | 'voice' | 'onboarding';

export interface KindStates<S extends string = string> {
  /** Every state its status can show (for counts by state); platform states pass through for templates and senders. */
  all: readonly S[];
  /** The state its run starts in: given as its STATE search attribute at its start. */
  initial: S;
  /** States its run ends in. */
  final: readonly S[];
  /** What the caller asked for is done (templates, senders and registrations go on watching after it). */
  succeeded: readonly S[];
  /** It failed: a person should look (the onboarding's step fails too). */
  failed: readonly S[];
  /** Nothing moves until a person acts: the caller or staff. */
  waiting: readonly S[];
}

/** Where the API serves a kind: `path` under /v1 with its OpenAPI tag; styles start it at `${path}/<style>`. */
interface KindCollection {
  path: string;
  tag: string;
  styles?: readonly string[];
  /** A GET at `path` lists every style. */
  listsAll?: boolean;
}

export interface ProcessDescriptor<K extends string = string, S extends string = string> {
  /** The workflow ID prefix, persisted: never renamed. */
  kind: K;
  family: FamilyName;
  /** The workflow function the worker registers and the API starts by name, persisted: never renamed. */
  workflowType: string;
  /**
   * Which code a running process follows across an upgrade (Worker Deployment Versioning): `pinned` stays on the
   * worker version that started it, for kinds that end within minutes or hours; `auto-upgrade` moves to the new
   * version, for kinds that live for days or months, with `patched()` for every change (docs/upgrades.md).
   */
  versioning: 'pinned' | 'auto-upgrade';
  /** The business-keyed workflow ID, so callbacks route to processes without a lookup table. */
  id: (...parts: string[]) => string;
  states: KindStates<S>;
  /** Signal and update names it accepts (persisted in histories). */
  signals: readonly string[];
  updates: readonly string[];
  /** The request that retries it in place (it is still running, waiting for a fix) from these failed states. */
  retryInPlace?: { update: 'resubmit' | 'relaunch'; from: readonly S[] };
  /** A sender's change (POST .../update): the fields it takes, the state it ends in while live, its name in errors. */
  change?: { fields: readonly string[]; live: S; name: string };
  /** Absent for a kind the API only lists and reads with every process (an adopted SDK verification). */
  collection?: KindCollection;
}

/** What a descriptor may leave out: `auto-upgrade` (a long-lived kind), no signals, no updates. */
type Defaulted = 'versioning' | 'signals' | 'updates';
/** The state lists a kind may leave out: none of its states means that. */
type DefaultedStates = 'succeeded' | 'failed' | 'waiting';

/** A descriptor as a kind writes it: whatever it leaves out is the default (defineKind). */
export type KindSpec<S extends string> = Omit<ProcessDescriptor<string, S>, Defaulted | 'states'> &
  Partial<Pick<ProcessDescriptor<string, S>, Defaulted>> & {
    states: Omit<KindStates<S>, DefaultedStates> & Partial<Pick<KindStates<S>, DefaultedStates>>;
  };

/**
 * Keeps a descriptor's literal kind and its ID builder's parameters, checks its state lists against `S`, and fills
 * in what it left out: `auto-upgrade`, no signals or updates, no succeeded, failed or waiting states.
 */
export const defineKind =
  <S extends string>() =>
  <const D extends KindSpec<S>>(d: D): Omit<D, Defaulted | 'states'> & Pick<ProcessDescriptor<string, S>, Defaulted | 'states'> => ({
    versioning: 'auto-upgrade',
    signals: [],
    updates: [],
    ...d,
    states: { succeeded: [], failed: [], waiting: [], ...d.states },
  });

/** Compile-time check that a state list names every state of its type, and nothing else. */
export const everyState =
  <S extends string>() =>
  <const L extends readonly S[]>(list: L & ([S] extends [L[number]] ? unknown : never)): readonly S[] =>
    list;
