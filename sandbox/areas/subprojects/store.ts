// Subprojects of one sandbox instance, in creation order per parent project. Readiness is computed from
// createdAtMs, so a restored subproject needs nothing rescheduled.
import { ulid } from 'ulid';

export interface Subproject {
  projectId: string;
  displayName: string;
  parentProjectId: string;
  createTime: string;
  state: 'ACTIVE';
}

export interface SubprojectEntry {
  resource: Subproject;
  createdAtMs: number;
}

export class SubprojectStore {
  private readonly byParent = new Map<string, SubprojectEntry[]>();
  private readonly byId = new Map<string, SubprojectEntry>();

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
    this.add({ resource, createdAtMs });
    return resource;
  }

  /** Every subproject in creation order (the saved state). */
  entries(): SubprojectEntry[] {
    return [...this.byId.values()];
  }

  /** Re-adds saved entries in their creation order, rebuilding the per-parent lists. */
  restore(entries: readonly SubprojectEntry[]): void {
    this.clear();
    for (const e of entries) this.add({ resource: { ...e.resource }, createdAtMs: e.createdAtMs });
  }

  private add(entry: SubprojectEntry): void {
    this.byId.set(entry.resource.projectId, entry);
    const list = this.byParent.get(entry.resource.parentProjectId) ?? [];
    list.push(entry);
    this.byParent.set(entry.resource.parentProjectId, list);
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
