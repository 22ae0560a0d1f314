// The contract between the sandbox core and an area module.
import type { FastifyInstance } from 'fastify';
import type { AreaMount, AreaName } from '../core/areas.js';
import type { SandboxContext } from '../core/context.js';

export interface SandboxArea {
  name: AreaName;
  /**
   * Registers the area's routes on `app`, already scoped to the mount's prefix (called once per
   * mount: three times for regional areas). Register reset hooks with ctx.onReset.
   */
  register(app: FastifyInstance, ctx: SandboxContext, mount: AreaMount): Promise<void> | void;
}
