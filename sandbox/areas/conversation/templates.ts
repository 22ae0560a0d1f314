// Channel templates (docs/conversation-wire.md "Template messages"): the templates a chat channel (CHATA, CHATB)
// holds for a project, which a `template_message` names by `template_id` (its name) and `language_code`. On the
// platform the channel keeps them once approved: the sandbox's provisioning area's APPROVED templates are read
// through a link (../channel-templates-link.ts); a test may also hand some over with PUT
// /_sandbox/conversation/channel-templates (those come first). A send is rendered here: every placeholder
// (`{{name}}`, `{{1}}`) of the template's text components filled from `parameters`.
import type { SendableTemplate } from '../channel-templates-link.js';

/** `{{name}}` or `{{1}}`, spaces inside the braces allowed. Kept apart from relayflow's copy: the sandbox checks on its own. */
const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]{1,64})\s*\}\}/g;

/** `components` as provisioning shows them; `text` (HEADER, BODY, FOOTER) is what is rendered. */
export interface ChannelTemplate extends SendableTemplate {
  projectId: string;
}

type ApprovedReader = (projectId: string, channel: string, name: string, language: string) => SendableTemplate | undefined;

const key = (projectId: string, channel: string, name: string, language: string) => `${projectId} ${channel} ${name} ${language}`;

export class ChannelTemplates {
  /** Not kept: a test hands its templates over again after a restart. */
  private readonly byKey = new Map<string, ChannelTemplate>();

  /** `approved`: the provisioning area's reader, when that area is mounted (asked at each send). */
  constructor(private readonly approved: () => ApprovedReader | undefined = () => undefined) {}

  /** Replaces the project's templates with these. */
  replace(projectId: string, templates: readonly ChannelTemplate[]): void {
    for (const [k, t] of this.byKey) if (t.projectId === projectId) this.byKey.delete(k);
    for (const t of templates) this.byKey.set(key(t.projectId, t.channel, t.name, t.language), t);
  }

  find(projectId: string, channel: string, name: string, language: string): ChannelTemplate | undefined {
    const handed = this.byKey.get(key(projectId, channel, name, language));
    if (handed) return handed;
    const approved = this.approved()?.(projectId, channel, name, language);
    return approved && { ...approved, projectId };
  }

  all(): ChannelTemplate[] {
    return [...this.byKey.values()];
  }

  reset(): void {
    this.byKey.clear();
  }
}

/** Every placeholder's name in the template's text components, once each, in order of appearance. */
export function placeholdersOf(t: ChannelTemplate): string[] {
  const names = new Set<string>();
  for (const c of t.components) for (const m of (c.text ?? '').matchAll(PLACEHOLDER)) names.add(m[1]!);
  return [...names];
}

/** The text components filled in, one line each (HEADER, BODY, FOOTER in the template's order). */
export function render(t: ChannelTemplate, parameters: Readonly<Record<string, string>>): string {
  return t.components
    .filter((c) => c.text !== undefined)
    .map((c) => c.text!.replace(PLACEHOLDER, (_, name: string) => parameters[name] ?? ''))
    .join('\n');
}
