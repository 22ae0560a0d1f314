// A template campaign's template, resolved while the caller waits: read from the platform (provisioning, so one
// approved through relayflow or on the platform alike), by ID or by name and language, and refused unless it is
// APPROVED. Its placeholders ({{name}} or {{1}} in its text components and button URLs) are what every recipient
// must have a value for.
import { LOOKUP_PAGE_SIZE } from '../../../platform/lookup.js';
import type { CampaignTemplate, ConversationChannel } from '../contract.js';
import { placeholdersIn } from '../placeholders.js';
import { PlatformNotFoundError } from '../../../platform/errors.js';
import type { ProvisioningClient, Template } from '../../../platform/provisioning/client.js';
import { ApiError, unprocessable } from '../../../api/errors.js';
import { platformError } from '../../../api/platform-errors.js';

export interface TemplateChoice {
  name?: string;
  id?: string;
  language?: string;
}

const FIELD = 'body.message.template';

export async function resolveTemplate(provisioning: ProvisioningClient, channel: ConversationChannel, choice: TemplateChoice): Promise<CampaignTemplate> {
  if (channel !== 'CHATA' && channel !== 'CHATB')
    throw unprocessable('body.channel', 'template_channel', `a template campaign sends on CHATA or CHATB (its template's channel), not ${channel}`);
  if (!!choice.id === !!choice.name) throw unprocessable(FIELD, 'one_of', 'name it by id, or by name and language (one of the two)');
  if (choice.name && !choice.language) throw unprocessable(`${FIELD}.language`, 'required', 'is required with name');
  const templates = provisioning.templates(channel);
  let found: Template | undefined;
  try {
    if (choice.id) found = await templates.get(choice.id);
    else {
      // Several may carry the name (a deleted one and its successor): an APPROVED one wins. Read in the largest pages,
      // as the provisioning activities' look-ups are: the caller waits.
      const matches: Template[] = [];
      for await (const t of templates.listAll({ pageSize: LOOKUP_PAGE_SIZE })) if (t.name === choice.name && t.language === choice.language) matches.push(t);
      found = matches.find((t) => t.state === 'APPROVED') ?? matches[0];
    }
  } catch (err) {
    if (!(err instanceof PlatformNotFoundError)) throw platformError(err, `the ${channel} template`);
  }
  const named = choice.id ? `id ${choice.id}` : `${choice.name} (${choice.language})`;
  if (!found)
    throw new ApiError(422, 'template_not_found', `${FIELD}: the platform has no ${channel} template ${named}`, [
      { field: FIELD, rule: 'template_exists', message: `the platform has no ${channel} template ${named}` },
    ]);
  if (found.state !== 'APPROVED') {
    const message = `the ${channel} template ${found.name} (${found.language}) is ${found.state}, not APPROVED: only an approved template can be sent`;
    throw new ApiError(422, 'template_not_approved', `${FIELD}: ${message}`, [{ field: FIELD, rule: 'template_approved', message }]);
  }
  return { channel, id: found.id, name: found.name, language: found.language, placeholders: placeholdersOf(found) };
}

/** Placeholders in the template's text components and its buttons' URLs (where the channels allow them). */
function placeholdersOf(t: Template): string[] {
  const texts: (string | undefined)[] = [];
  for (const c of t.components) {
    texts.push(c.text);
    for (const b of c.buttons ?? []) if (typeof b.url === 'string') texts.push(b.url);
  }
  return placeholdersIn(texts);
}
