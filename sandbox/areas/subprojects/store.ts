// Subprojects of one sandbox instance, in creation order per parent project. Whether the parent's key may use
// one yet is computed from createdAtMs, so a restored subproject needs nothing rescheduled.
import { ulid } from 'ulid';
import { ScopedTable } from '../../core/table.js';
import type { Subproject as WireSubproject } from '../../../common/wire/subprojects.js';

/** The wire's subproject as the sandbox keeps it: always ACTIVE. */
interface Subproject extends WireSubproject {
  state: 'ACTIVE';
}

export interface SubprojectEntry {
  resource: Subproject;
  createdAtMs: number;
}

export class SubprojectStore {
  private readonly table = new ScopedTable<SubprojectEntry>({ id: (e) => e.resource.projectId, scope: (e) => e.resource.parentProjectId });

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
    this.table.add({ resource, createdAtMs });
    return resource;
  }

  /** What a restart keeps: every subproject in creation order (the per-parent lists are rebuilt). */
  get kept(): ScopedTable<SubprojectEntry> {
    return this.table;
  }

  page(parentProjectId: string, offset: number, size: number): { items: Subproject[]; total: number } {
    const list = this.table.list(parentProjectId);
    return { items: list.slice(offset, offset + size).map((e) => e.resource), total: list.length };
  }

  get(parentProjectId: string, subprojectId: string): Subproject | undefined {
    return this.table.get(parentProjectId, subprojectId)?.resource;
  }

  /** How long ago the parent's subproject was created; undefined when it is not one of the parent's. */
  ageMs(parentProjectId: string, subprojectId: string): number | undefined {
    const entry = this.table.get(parentProjectId, subprojectId);
    return entry && this.now() - entry.createdAtMs;
  }

  reset(): void {
    this.table.reset();
  }
}
