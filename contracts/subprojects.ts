// What the API, the subproject activities and the subproject workflow share (area E).

/** Where a subproject process is. */
export type SubprojectState = 'CREATING' | 'WAITING_UNTIL_USABLE' | 'READY' | 'FAILED';

export interface SubprojectInput {
  parentProjectId: string;
  displayName: string;
  /** How long to wait for the subproject to become usable; the platform promises 30 s. */
  usableTimeoutMs?: number;
  /** Pause between usability checks (a durable timer). */
  checkIntervalMs?: number;
}

export interface SubprojectDetails {
  parentProjectId: string;
  displayName: string;
  subprojectId?: string;
  createTime?: string;
  usabilityChecks: number;
}

export type SubprojectResult = Required<Omit<SubprojectDetails, 'usabilityChecks'>> & { usabilityChecks: number };

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

export interface IsSubprojectUsableInput {
  parentProjectId: string;
  subprojectId: string;
}

export interface SubprojectActivities {
  ensureSubproject(input: EnsureSubprojectInput): Promise<EnsureSubprojectResult>;
  isSubprojectUsable(input: IsSubprojectUsableInput): Promise<boolean>;
}
