// The contract between the sandbox core and an area module: the core defines it, each area implements it.
import type { FastifyInstance } from 'fastify';
import type { AreaMount, AreaName } from './area-mount.js';
import type { SandboxContext } from './context.js';

/** Registers an area's routes on `app`, already scoped to `mount.prefix` (e.g. `/conversation/eu`). */
type AreaRoutes = (app: FastifyInstance, mount: AreaMount) => Promise<void> | void;

/**
 * Registers an area's test controls on `app`, already scoped to `/_sandbox/<area>`. They pass the
 * same pipeline hooks as the core's own /_sandbox routes and, like them, need no authentication.
 */
type AreaControlRoutes = (app: FastifyInstance) => Promise<void> | void;

interface AreaSetup {
  /** Called once per mount (three times for the regional areas, which thereby share one state). */
  routes: AreaRoutes;
  /** Called once per sandbox; absent when the area has no /_sandbox/<area> routes. */
  control?: AreaControlRoutes;
}

export interface SandboxArea {
  name: AreaName;
  /**
   * Called once per sandbox instance: create the area's in-memory state here (hand its parts to the
   * core with ctx.own: reset, close, kept state) and return its route registrations. A bare AreaRoutes means the
   * area has no control routes.
   */
  setup(ctx: SandboxContext): AreaSetup | AreaRoutes;
}
