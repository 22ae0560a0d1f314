// The chat channels' approved templates, which the provisioning area approves and the conversation area sends (on
// the platform one system holds both): the conversation area reads them through this link instead of a copy.
import { AreaLink } from '../core/area-links.js';

/** A template the channel can send: its name, language and the components its text is rendered from. */
export interface SendableTemplate {
  channel: 'CHATA' | 'CHATB';
  name: string;
  language: string;
  components: { type: string; text?: string }[];
}

/** The project's APPROVED template of that channel, name and language, if any. */
export const approvedChannelTemplates = new AreaLink<(projectId: string, channel: string, name: string, language: string) => SendableTemplate | undefined>(
  'approved chat channel templates',
);
