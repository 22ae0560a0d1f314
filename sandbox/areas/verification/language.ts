// Which language a verification's SMS (or spoken code) uses: the start's `sms.locale` when it has a template, else
// the carrier override by number prefix, else the first Accept-Language entry with a template, else the application's
// default.

const FALLBACK_LANGUAGE = 'en-US';

/** `{{CODE}}` is replaced by the code; the Phone Call speaks the same sentence. */
export const TEMPLATES: Readonly<Record<string, string>> = {
  'en-US': 'Your verification code is {{CODE}}',
  'es-ES': 'Tu código de verificación es {{CODE}}',
  'fr-FR': 'Votre code de vérification est {{CODE}}',
  'de-DE': 'Ihr Bestätigungscode lautet {{CODE}}',
  'sv-SE': 'Din verifieringskod är {{CODE}}',
};

const BY_LOWER = new Map(Object.keys(TEMPLATES).map((tag) => [tag.toLowerCase(), tag]));

/** The template tag for `tag` (case-insensitive, `es` finds `es-ES`), if the sandbox has one. */
export function templateLanguage(tag: string): string | undefined {
  const lower = tag.trim().toLowerCase();
  const exact = BY_LOWER.get(lower);
  if (exact) return exact;
  const primary = lower.split('-')[0];
  return Object.keys(TEMPLATES).find((t) => t.toLowerCase().split('-')[0] === primary);
}

/** Tags of an Accept-Language header, best first (q-values honoured, `*` and q=0 dropped). */
export function parseAcceptLanguage(header: string | undefined): string[] {
  if (!header) return [];
  return header
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.split(';').map((s) => s.trim());
      const q = params.find((p) => p.startsWith('q='));
      return { tag, index, q: q === undefined ? 1 : Number(q.slice(2)) };
    })
    .filter((t) => t.tag !== '' && t.tag !== '*' && t.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .map((t) => t.tag);
}

export interface LanguageInputs {
  endpoint: string;
  /** The start's `sms.locale`: with a template, it wins over everything else. */
  locale?: string;
  acceptLanguage: readonly string[];
  /** The application's default (sandbox config, else the account's, else en-US). */
  applicationDefault: string | undefined;
  carrierOverrides: Readonly<Record<string, string>>;
}

export function chooseLanguage(i: LanguageInputs): string {
  const asked = i.locale === undefined ? undefined : templateLanguage(i.locale);
  if (asked) return asked;
  // Longest prefix wins, so `+331` can differ from `+33`.
  const prefix = Object.keys(i.carrierOverrides)
    .filter((p) => i.endpoint.startsWith(p))
    .sort((a, b) => b.length - a.length)[0];
  const carrier = prefix === undefined ? undefined : templateLanguage(i.carrierOverrides[prefix]!);
  if (carrier) return carrier;
  for (const tag of i.acceptLanguage) {
    const found = templateLanguage(tag);
    if (found) return found;
  }
  return (i.applicationDefault && templateLanguage(i.applicationDefault)) || FALLBACK_LANGUAGE;
}

export function renderTemplate(language: string, code: string): string {
  return (TEMPLATES[language] ?? TEMPLATES[FALLBACK_LANGUAGE]!).replace('{{CODE}}', code);
}
