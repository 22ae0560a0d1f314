// RCS sender rules: the create body, the banner's required size, contacts, the questionnaire
// (general questions plus per-country ones: FR adds siren, US adds us_*) and operators per country.
import { ProvisioningError } from './errors.js';
import {
  RCS_SENDER_UPDATABLE,
  RCS_USE_CASES,
  type CreateRcsSenderRequest,
  type RcsLaunchContact,
  type RcsQuestion,
  type UpdateRcsSenderRequest,
} from '../../../common/wire/provisioning.js';
import { type Fields, isObject, join, type Json } from '../../core/fields.js';
import { COUNTRY, E164, fields } from './validation.js';

const BANNER = { width: 1440, height: 448 } as const;
const BRAND_PHONE = /^(\+[1-9]\d{6,14}|\d{6,15})$/;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

const GENERAL: readonly RcsQuestion[] = [
  { id: 'brand_description', text: 'What does the brand do, and who are its customers?', required: true },
  { id: 'message_types', text: 'Which messages will the agent send, and when?', required: true },
  { id: 'opt_in', text: 'How do users agree to receive messages from the agent?', required: true },
  { id: 'opt_out', text: 'How do users stop the messages (e.g. by sending STOP)?', required: true },
  { id: 'screenshotUris', text: 'Links to screenshots of the opt-in flow, comma-separated.', required: false },
];

const BY_COUNTRY: Record<string, readonly RcsQuestion[]> = {
  FR: [{ id: 'siren', text: 'SIREN number of the company (9 digits).', required: true, country: 'FR' }],
  US: [
    { id: 'us_brand_ein', text: 'Employer Identification Number (EIN) of the brand.', required: true, country: 'US' },
    { id: 'us_campaign_description', text: 'Description of the messaging campaign.', required: true, country: 'US' },
    { id: 'us_sample_messages', text: 'Two sample messages the agent will send.', required: true, country: 'US' },
  ],
};

export function questionsFor(countries: readonly string[]): RcsQuestion[] {
  return [...GENERAL, ...[...new Set(countries)].flatMap((c) => BY_COUNTRY[c] ?? [])];
}

/** The required questions without a non-empty answer. */
export function missingAnswers(countries: readonly string[], answers: Record<string, string>): RcsQuestion[] {
  return questionsFor(countries).filter((q) => q.required && !answers[q.id]?.trim());
}

const OPERATORS: Record<string, readonly string[]> = {
  FR: ['Orange', 'SFR', 'Bouygues Telecom', 'Free Mobile'],
  DE: ['Telekom', 'Vodafone', 'O2'],
  GB: ['EE', 'Vodafone', 'O2', 'Three'],
  ES: ['Movistar', 'Vodafone', 'Orange'],
  IT: ['TIM', 'Vodafone', 'WindTre'],
  US: ['T-Mobile', 'AT&T', 'Verizon'],
  BR: ['Vivo', 'Claro', 'TIM'],
  MX: ['Telcel', 'AT&T', 'Movistar'],
};

export const operatorsOf = (country: string): readonly string[] => OPERATORS[country] ?? [`${country}-MNO-1`, `${country}-MNO-2`];

export function checkCountries(f: Fields, list: unknown[] | undefined, field: string): string[] {
  list?.forEach((c, i) => {
    if (typeof c !== 'string' || !COUNTRY.test(c)) f.add(join(field, i), 'must be an ISO 3166-1 alpha-2 code such as FR');
  });
  return [...new Set((list ?? []).filter((c): c is string => typeof c === 'string'))];
}

type RcsProfile = Pick<CreateRcsSenderRequest, (typeof RCS_SENDER_UPDATABLE)[number]>;

/** The agent's profile fields of a body: all required for a create, any of them for a change. */
function checkProfile(f: Fields, body: Json, required: boolean): Partial<RcsProfile> {
  const description = f.string(body, 'description', '', { required, max: 512 });
  const websites = f.array(body, 'websites', '', { required, min: 1 });
  websites?.forEach((w, i) => {
    const p = join('websites', i);
    if (!isObject(w)) return f.add(p, 'must be an object');
    f.known(w, ['url'], p);
    f.string(w, 'url', p, { required: true, max: 255, url: true });
  });
  const brandPhoneNumber = f.string(body, 'brandPhoneNumber', '', {
    required,
    pattern: BRAND_PHONE,
    patternText: 'must be an E.164 number (+33612345678) or unformatted digits',
  });
  const banner = f.object(body, 'banner', '', ['url', 'width', 'height'], required);
  if (banner) {
    f.string(banner, 'url', 'banner', { required: true, url: true });
    f.integer(banner, 'width', 'banner', { required: true, min: 1 });
    f.integer(banner, 'height', 'banner', { required: true, min: 1 });
  }
  const logo = f.object(body, 'logo', '', ['url']);
  if (logo) f.string(logo, 'url', 'logo', { required: true, url: true });
  return {
    ...(description !== undefined ? { description } : {}),
    ...(websites ? { websites: websites as { url: string }[] } : {}),
    ...(brandPhoneNumber !== undefined ? { brandPhoneNumber } : {}),
    ...(banner ? { banner: banner as RcsProfile['banner'] } : {}),
    ...(logo ? { logo: { url: logo.url as string } } : {}),
  };
}

/** A banner the platform refuses for its size (checked after the fields themselves). */
function checkBanner(b: RcsProfile['banner'] | undefined): void {
  if (!b || (b.width === BANNER.width && b.height === BANNER.height)) return;
  throw new ProvisioningError(400, 'file_has_wrong_dimensions', `banner must be ${BANNER.width}x${BANNER.height} pixels (got ${b.width}x${b.height})`, {
    resolution: `Upload a banner of exactly ${BANNER.width}x${BANNER.height} pixels.`,
    additionalInformation: { requiredWidth: BANNER.width, requiredHeight: BANNER.height },
  });
}

export function checkRcsCreate(input: unknown): CreateRcsSenderRequest {
  const f = fields();
  const body = f.body(input, ['displayName', 'description', 'websites', 'brandPhoneNumber', 'banner', 'logo', 'useCase', 'countries', 'callbackUrl']);
  const displayName = f.string(body, 'displayName', '', { required: true, min: 1, max: 100 });
  const profile = checkProfile(f, body, true) as RcsProfile;
  const useCase = f.oneOf(body, 'useCase', '', RCS_USE_CASES, true);
  const countries = checkCountries(f, f.array(body, 'countries', '', { required: true, min: 1 }), 'countries');
  f.check();
  checkBanner(profile.banner);
  const b = profile.banner;
  return { displayName: displayName!, ...profile, banner: { url: b.url, width: b.width, height: b.height }, useCase: useCase!, countries };
}

/** A change of the agent's profile (`PATCH .../rcs/senders/{id}`): only its fields, at least one. */
export function checkRcsUpdate(input: unknown): UpdateRcsSenderRequest {
  const f = fields();
  const body = f.body(input, [...RCS_SENDER_UPDATABLE]);
  const profile = checkProfile(f, body, false);
  if (Object.keys(body).length === 0) f.add('body', `must name at least one of ${RCS_SENDER_UPDATABLE.join(', ')}`);
  f.check();
  checkBanner(profile.banner);
  return profile;
}

/** `{contact: {email} | {phoneNumber}}`, exactly one of the two. */
export function checkContact(input: unknown): RcsLaunchContact {
  const f = fields();
  const body = f.body(input, ['contact']);
  const contact = f.object(body, 'contact', '', ['email', 'phoneNumber'], true);
  let out: RcsLaunchContact | undefined;
  if (contact) {
    const email = f.string(contact, 'email', 'contact', { pattern: EMAIL, patternText: 'must be an e-mail address' });
    const phoneNumber = f.string(contact, 'phoneNumber', 'contact', { pattern: E164, patternText: 'must be an E.164 number such as +33612345678' });
    const given = ['email', 'phoneNumber'].filter((k) => contact[k] !== undefined);
    if (given.length !== 1) f.add('contact', 'must have exactly one of email, phoneNumber');
    else out = email !== undefined ? { email } : phoneNumber !== undefined ? { phoneNumber } : undefined;
  }
  f.check();
  return out!;
}

/** `{answers: {[questionId]: string}}`: every required question of the sender's questionnaire answered. */
export function checkAnswers(input: unknown, useCase: string, countries: readonly string[]): Record<string, string> {
  const f = fields();
  const body = f.body(input, ['answers']);
  const answers = f.object(body, 'answers', '', undefined, true);
  if (answers) {
    const questions = questionsFor(countries);
    for (const [id, v] of Object.entries(answers)) {
      const field = join('answers', id);
      if (!questions.some((q) => q.id === id)) f.add(field, `is not a question of the ${useCase} questionnaire for ${countries.join(', ')}`);
      else if (typeof v !== 'string') f.add(field, 'must be a string');
      else if (id === 'siren' && !/^\d{9}$/.test(v.replace(/\s/g, ''))) f.add(field, 'must be a SIREN number: 9 digits');
    }
    // A non-string answer is reported above already.
    for (const q of missingAnswers(countries, stringsOf(answers))) {
      if (answers[q.id] === undefined || typeof answers[q.id] === 'string') f.add(join('answers', q.id), 'is required');
    }
  }
  f.check();
  return stringsOf(answers ?? {});
}

function stringsOf(o: Json): Record<string, string> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
}
