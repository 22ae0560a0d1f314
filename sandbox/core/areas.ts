// Where each platform area is mounted in the sandbox, and which error family its answers use.
// Prefixes come from common/config.ts's sandboxPlatformUrls so relayflow's config and the sandbox agree.
import type { FastifyInstance } from 'fastify';
import { sandboxPlatformUrls, type Region } from '../../common/config.js';
import type { SandboxArea } from './area.js';
import type { AreaMount, AreaName } from './area-mount.js';
import type { SandboxContext } from './context.js';
import { mmsErrors, oauthErrors, provisioningErrors, verificationErrors, voiceErrors, type ErrorFamily } from './errors.js';

const FAMILIES: Record<AreaName, ErrorFamily> = {
  auth: oauthErrors,
  subprojects: oauthErrors,
  verification: verificationErrors,
  voice: voiceErrors,
  voiceConfig: voiceErrors,
  mms: mmsErrors,
  senderid: oauthErrors,
  provisioning: provisioningErrors,
  conversation: oauthErrors,
  template: oauthErrors,
  batch: oauthErrors,
};

function buildMounts(): AreaMount[] {
  const paths = sandboxPlatformUrls('');
  const mounts: AreaMount[] = [];
  for (const name of Object.keys(paths) as AreaName[]) {
    const value = paths[name];
    if (typeof value === 'string') {
      mounts.push({ name, prefix: value, errors: FAMILIES[name] });
    } else {
      for (const [region, prefix] of Object.entries(value) as [Region, string][]) {
        mounts.push({ name, prefix, region, errors: FAMILIES[name] });
      }
    }
  }
  // Longest first, so `/voice-config` is never taken for `/voice`.
  return mounts.sort((a, b) => b.prefix.length - a.prefix.length);
}

const AREA_MOUNTS: readonly AreaMount[] = buildMounts();

function mountsOf(name: AreaName): AreaMount[] {
  return AREA_MOUNTS.filter((m) => m.name === name);
}

/** The area a request URL is addressed to, if any. */
export function areaForUrl(url: string): AreaMount | undefined {
  for (const m of AREA_MOUNTS) {
    if (url.startsWith(m.prefix)) {
      const next = url.charAt(m.prefix.length);
      if (next === '' || next === '/' || next === '?') return m;
    }
  }
  return undefined;
}

const normalise = (s: string) => s.toLowerCase().replace(/[-_\s]/g, '');
const BY_NORMALISED = new Map(AREA_MOUNTS.map((m) => [normalise(m.name), m.name]));

/** Accepts `voiceConfig`, `voice-config`, `senderid`, ... as written in filters and fault rules. */
export function parseAreaName(s: string): AreaName | undefined {
  return BY_NORMALISED.get(normalise(s));
}

/** The path with the area's sandbox prefix removed (the path the real platform would have seen). */
export function stripAreaPrefix(path: string, area: AreaMount | undefined): string {
  if (!area || !path.startsWith(area.prefix)) return path;
  return path.slice(area.prefix.length) || '/';
}

/** Where the core's control routes (control-routes.ts) are mounted. */
export const CONTROL_PREFIX = '/_sandbox';

/** Where an area's control routes are mounted: `/_sandbox/<area>`, next to the core's own. */
function controlPrefixOf(name: AreaName): string {
  return `${CONTROL_PREFIX}/${name}`;
}

/**
 * Sets an area up for one sandbox and mounts it: its control routes once under /_sandbox/<area>,
 * its routes once per mount. Both are registered on the root `app` (as the core's /_sandbox routes
 * are), so they pass the pipeline hooks installed there and no hook of another area.
 */
export async function registerArea(app: FastifyInstance, ctx: SandboxContext, area: SandboxArea): Promise<void> {
  const setup = area.setup(ctx);
  const { routes, control } = typeof setup === 'function' ? { routes: setup, control: undefined } : setup;
  if (control) await app.register(async (scope) => control(scope), { prefix: controlPrefixOf(area.name) });
  for (const mount of mountsOf(area.name)) {
    await app.register(async (scope) => routes(scope, mount), { prefix: mount.prefix });
  }
}
