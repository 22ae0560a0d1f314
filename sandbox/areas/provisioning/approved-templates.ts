// The provisioning side of the approved-templates link (../channel-templates-link.ts): the conversation area sends
// what was approved here. Only APPROVED templates are sendable (PAUSED and DISABLED ones are not, spec part G states).
import type { SendableTemplate } from '../channel-templates-link.js';
import type { ProvisioningStore } from './store.js';

export function approvedTemplateReader(store: ProvisioningStore) {
  return (projectId: string, channel: string, name: string, language: string): SendableTemplate | undefined => {
    const table = channel === 'CHATA' ? store.chataTemplates : channel === 'CHATB' ? store.chatbTemplates : undefined;
    const t = table?.list(projectId).find((x) => x.name === name && x.language === language && x.state === 'APPROVED');
    if (!t) return undefined;
    const components = (t.components as { type?: unknown; text?: unknown }[]).map((c) => ({
      type: String(c.type ?? ''),
      ...(typeof c.text === 'string' ? { text: c.text } : {}),
    }));
    return { channel: channel as SendableTemplate['channel'], name: t.name, language: t.language, components };
  };
}
