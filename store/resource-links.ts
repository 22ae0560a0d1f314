// Which process follows a platform resource: written by the process when it creates or adopts the resource (an
// activity), read by the callback intakes so a webhook is one signal to that process. A resource is named by the ID
// of the workflow that takes its callbacks while no process is linked (its inbox, or its sender ID relay), so a
// look-up, a log line and the fallback all use one name. Several processes may follow one resource (a CHATA account).
import type { Sql } from './sql.js';

/** One process following a resource, as read. */
export interface ResourceLink {
  processId: string;
  /** New at every link of the pair (a retried activity, a new run under the same ID), never reused after an unlink. */
  generation: number;
}

export class ResourceLinkStore {
  constructor(readonly sql: Sql) {}

  /** Idempotent: linking again only renews the generation, so an unlink decided on an older read leaves it alone. */
  async link(resource: string, processId: string): Promise<ResourceLink> {
    const [row] = await this.sql.query<ResourceLink>(
      `INSERT INTO relayflow_resource_links (resource, process_id) VALUES ($1, $2)
       ON CONFLICT (resource, process_id) DO UPDATE SET generation = nextval('relayflow_resource_link_generations'), linked_at = now()
       RETURNING process_id AS "processId", generation`,
      [resource, processId],
    );
    return row!;
  }

  /** The processes linked to `resource`, oldest link first. */
  async owners(resource: string): Promise<ResourceLink[]> {
    return this.sql.query<ResourceLink>(
      `SELECT process_id AS "processId", generation FROM relayflow_resource_links WHERE resource = $1 ORDER BY linked_at, process_id`,
      [resource],
    );
  }

  /**
   * Drops a link found stale (its process has ended), unless it was linked again since it was read (a new run):
   * true when it was dropped.
   */
  async unlink(resource: string, link: ResourceLink): Promise<boolean> {
    const rows = await this.sql.query(`DELETE FROM relayflow_resource_links WHERE resource = $1 AND process_id = $2 AND generation = $3 RETURNING resource`, [
      resource,
      link.processId,
      link.generation,
    ]);
    return rows.length > 0;
  }
}
