// What the API, the subproject activities and the subproject workflow share (area E).

/** Where a subproject process is. */
export type SubprojectState = 'CREATING' | 'WAITING_UNTIL_USABLE' | 'READY' | 'FAILED';

export interface SubprojectInput {
  parentProjectId: string;
  displayName: string;
  /** How long after its creation a subproject is taken to be usable with its parent (spec part E: up to 30 s); 30 000 when absent. */
  usableAfterMs?: number;
}

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
}

export type SubprojectResult = Required<Pick<SubprojectDetails, 'parentProjectId' | 'displayName' | 'subprojectId' | 'createTime'>> &
  Pick<SubprojectDetails, 'usableAt' | 'usableFrom'>;

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

export interface SubprojectActivities {
  ensureSubproject(input: EnsureSubprojectInput): Promise<EnsureSubprojectResult>;
}
