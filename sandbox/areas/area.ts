// The contract between the sandbox core and an area module.
import type { FastifyInstance } from 'fastify';
import type { AreaMount, AreaName } from '../core/areas.js';
import type { SandboxContext } from '../core/context.js';

/** Registers an area's routes on `app`, already scoped to `mount.prefix` (e.g. `/conversation/eu`). */
export type AreaRoutes = (app: FastifyInstance, mount: AreaMount) => Promise<void> | void;

export interface SandboxArea {
  name: AreaName;
  /**
   * Called once per sandbox instance: create the area's in-memory state here (register its
   * clearing with ctx.onReset) and return the route registration, which is called once per mount
   * (three times for the regional areas, which thereby share one state).
   */
  setup(ctx: SandboxContext): AreaRoutes;
}
