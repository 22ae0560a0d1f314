// Wire shapes, once, so client and sandbox cannot drift: the platform's request and response shapes live in common/wire/<area>.ts, imported by
// relayflow's clients (platform/) and by the sandbox; the sandbox keeps its own validation and internal records (which
// may extend or narrow these), so it stays an independent check. Here: subprojects (area E, v1alpha1).

export interface Subproject {
  projectId: string;
  displayName: string;
  parentProjectId: string;
  createTime: string;
  /** The spec names no states; the sandbox answers ACTIVE. */
  state?: string;
}

export interface SubprojectPage {
  subprojects: Subproject[];
  /** '' on the last page. */
  nextPageToken: string;
}
