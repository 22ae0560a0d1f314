// A bundle's conversation app, which the provisioning area makes and the conversation area sends through (on the
// platform one system holds both): the bundle's activation hands the app to the conversation area, in the
// bundle's subproject, so a campaign can send through it there with the parent project's key.
import { AreaLink } from '../core/area-links.js';
import type { Region } from '../../common/config.js';

export interface BundleApp {
  /** The bundle's convApp ID: the app's ID in the conversation area too. */
  id: string;
  /** The bundle's subproject, or the project it was created in. */
  projectId: string;
  region: Region;
  displayName: string;
}

/** Makes the app, once: a bundle activated again (an update) leaves an existing app as it is. */
export const bundleConversationApps = new AreaLink<(app: BundleApp) => void>('bundle conversation apps');
