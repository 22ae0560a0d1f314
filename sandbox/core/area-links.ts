// What one area of a sandbox reads from another, named by a typed link (e.g. the chat channels' approved templates,
// which the conversation area sends and the provisioning area approves). Per sandbox instance, as the areas' state
// is: the providing area registers a reader at setup, the reading area asks at request time.

/** A typed name for what an area provides. */
export class AreaLink<T> {
  constructor(readonly name: string) {}
  /** Never called: carries T so provide() and read() agree on it. */
  declare readonly _type?: T;
}

export class AreaLinks {
  private readonly provided = new Map<AreaLink<unknown>, unknown>();

  provide<T>(link: AreaLink<T>, value: T): void {
    if (this.provided.has(link)) throw new Error(`sandbox: ${link.name} provided twice`);
    this.provided.set(link, value);
  }

  /** What the link's area provides, or undefined when that area is not mounted. */
  read<T>(link: AreaLink<T>): T | undefined {
    return this.provided.get(link) as T | undefined;
  }
}
