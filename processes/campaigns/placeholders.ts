// `{{name}}` placeholders, as the chat channels' templates write them (`{{1}}` or `{{name}}`), and in a campaign's
// text: found when a campaign is created (each recipient must have a value for each) and filled when it is sent.
// Shared by the API (the check) and the send activity (the fill); pure, so a workflow could use it too.

const NAME = '[A-Za-z0-9_]{1,64}';
/** A parameter's name: what a placeholder may be named, so also the rule for a recipient's params and a CSV's columns. */
export const PARAM_NAME_PATTERN = `^${NAME}$`;
const PLACEHOLDER = new RegExp(`\\{\\{\\s*(${NAME})\\s*\\}\\}`, 'g');

/** Placeholder names in these texts, once each, in order of appearance. */
export function placeholdersIn(texts: readonly (string | undefined)[]): string[] {
  const names = new Set<string>();
  for (const t of texts) for (const m of (t ?? '').matchAll(PLACEHOLDER)) names.add(m[1]!);
  return [...names];
}

/** The text with each placeholder that has a value replaced by it (one without stays as written). */
export function fillPlaceholders(text: string, params: Readonly<Record<string, string>>): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => params[name] ?? whole);
}

/** The placeholders a recipient has no value for (an empty value counts as none). */
export function missingParams(placeholders: readonly string[], params: Readonly<Record<string, string>> | undefined): string[] {
  return placeholders.filter((n) => !params?.[n]);
}
