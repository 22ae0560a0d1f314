// Which projects a key may act on besides its own. A subproject is used with its parent project's key (spec
// part E: "can be used with its parent project up to 30 seconds after creation"), so the subprojects area
// tells the OAuth guard whether a project is a subproject of the key's project and whether it is usable yet.

/** What the key of `keyProjectId` may do with `projectId`, when that is not its own project. */
export type ProjectUse = 'usable' | 'not-yet-usable' | 'unrelated';

type Resolver = (keyProjectId: string, projectId: string) => ProjectUse;

export class ProjectAccess {
  private resolver: Resolver = () => 'unrelated';

  /** The subprojects area's answer (one resolver: only that area makes projects). */
  provide(resolver: Resolver): void {
    this.resolver = resolver;
  }

  use(keyProjectId: string, projectId: string): ProjectUse {
    return this.resolver(keyProjectId, projectId);
  }
}
