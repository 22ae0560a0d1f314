// What the API, the subproject activities and the subproject workflow share (area E).

/** Where a subproject process is. */
export type SubprojectState = 'CREATING' | 'WAITING_UNTIL_USABLE' | 'READY' | 'FAILED';

export interface SubprojectInput {
  parentProjectId: string;
  displayName: string;
  /**
   * How long after its creation a subproject is taken to be usable with its parent (spec part E: up to 30 s).
   * Absent in the input of processes started before patch SUBPROJECT_USABLE_AFTER_PATCH: 30 000.
   */
  usableAfterMs?: number;
  /** Before SUBPROJECT_USABLE_AFTER_PATCH: how long to poll the subproject for a 200. Kept for those runs. */
  usableTimeoutMs?: number;
  /** Before SUBPROJECT_USABLE_AFTER_PATCH: the pause between polls. Kept for those runs. */
  checkIntervalMs?: number;
}

/** Processes with this marker wait until createTime + usableAfterMs; older ones polled until the platform answered 200. */
export const SUBPROJECT_USABLE_AFTER_PATCH = 'relayflow-subproject-usable-after-create';

/** The spec's bound: a subproject can be used with its parent up to 30 s after creation. */
export const SUBPROJECT_USABLE_AFTER_MS = 30_000;

export interface SubprojectDetails {
  parentProjectId: string;
  displayName: string;
  subprojectId?: string;
  createTime?: string;
  /** When the subproject is taken to be usable with its parent (ISO time); set in WAITING_UNTIL_USABLE. */
  usableAt?: string;
  /** What usableAt counts from: the platform's createTime, or the process's own clock when it has none. */
  usableFrom?: 'createTime' | 'create-answered';
  /** Polls of processes started before SUBPROJECT_USABLE_AFTER_PATCH; 0 for newer ones. */
  usabilityChecks: number;
}

export type SubprojectResult = Required<Pick<SubprojectDetails, 'parentProjectId' | 'displayName' | 'subprojectId' | 'createTime'>> &
  Pick<SubprojectDetails, 'usableAt' | 'usableFrom' | 'usabilityChecks'>;

export interface EnsureSubprojectInput {
  parentProjectId: string;
  /** Also the idempotency key: the platform assigns the ID, so an existing subproject is found by name. */
  displayName: string;
}

export interface EnsureSubprojectResult {
  projectId: string;
  displayName: string;
  parentProjectId: string;
  createTime: string;
  /** false when a subproject with this displayName already existed (e.g. a retry after a lost answer). */
  created: boolean;
}

/** Only processes started before SUBPROJECT_USABLE_AFTER_PATCH poll with this. */
export interface IsSubprojectUsableInput {
  parentProjectId: string;
  subprojectId: string;
}

export interface SubprojectActivities {
  ensureSubproject(input: EnsureSubprojectInput): Promise<EnsureSubprojectResult>;
  /** Kept for processes started before SUBPROJECT_USABLE_AFTER_PATCH, which still poll with it. */
  isSubprojectUsable(input: IsSubprojectUsableInput): Promise<boolean>;
}
