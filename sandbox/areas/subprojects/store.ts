// In-memory subprojects of one sandbox instance, in creation order per parent project.
import { ulid } from 'ulid';

export interface Subproject {
  projectId: string;
  displayName: string;
  parentProjectId: string;
  createTime: string;
  state: 'ACTIVE';
}

interface Entry {
  resource: Subproject;
  createdAtMs: number;
}

export class SubprojectStore {
  private readonly byParent = new Map<string, Entry[]>();
  private readonly byId = new Map<string, Entry>();

  constructor(private readonly now: () => number = Date.now) {}

  create(parentProjectId: string, displayName: string): Subproject {
    const createdAtMs = this.now();
    const resource: Subproject = {
      projectId: ulid(createdAtMs),
      displayName,
      parentProjectId,
      createTime: new Date(createdAtMs).toISOString(),
      state: 'ACTIVE',
    };
    const entry = { resource, createdAtMs };
    this.byId.set(resource.projectId, entry);
    const list = this.byParent.get(parentProjectId) ?? [];
    list.push(entry);
    this.byParent.set(parentProjectId, list);
    return resource;
  }

  page(parentProjectId: string, offset: number, size: number): { items: Subproject[]; total: number } {
    const list = this.byParent.get(parentProjectId) ?? [];
    return { items: list.slice(offset, offset + size).map((e) => e.resource), total: list.length };
  }

  get(parentProjectId: string, subprojectId: string): { resource: Subproject; ageMs: number } | undefined {
    const entry = this.byId.get(subprojectId);
    if (!entry || entry.resource.parentProjectId !== parentProjectId) return undefined;
    return { resource: entry.resource, ageMs: this.now() - entry.createdAtMs };
  }

  clear(): void {
    this.byParent.clear();
    this.byId.clear();
  }
}
