// Which platform area a request is for, and where that area is mounted: the leaf every core module
// that files things by area (faults, the request log) can import without pulling in the area contract.
import type { PlatformUrls, Region } from '../../common/config.js';
import type { ErrorFamily } from './errors.js';

/** Area names are the keys of PlatformUrls. */
export type AreaName = keyof PlatformUrls;

export interface AreaMount {
  name: AreaName;
  /** Path prefix inside the sandbox, e.g. `/subprojects` or `/conversation/eu`. */
  prefix: string;
  region?: Region;
  errors: ErrorFamily;
}
