// The MMS request rules (docs/mms-wire.md "Fields"): each broken rule is the platform's E-code with its words.
import { AreaError } from '../../core/errors.js';

const MEDIA_KINDS = ['image', 'audio', 'video', 'contact', 'calendar', 'pdf', 'spreadsheet'] as const;
type MediaKind = (typeof MEDIA_KINDS)[number];
const ACTIONS = ['sendmms', 'savemms', 'sendsavedmms'] as const;
type Action = (typeof ACTIONS)[number];

/** International format: digits with country code, no plus, no 00 / 001 prefix. */
const MMS_NUMBER = /^[1-9]\d{6,14}$/;
const YEAR_MS = 366 * 86_400_000;

export interface Slide {
  text?: string;
  media: { kind: MediaKind; url: string }[];
}

export interface MmsRequest {
  action: Action;
  serviceId?: string;
  to?: string;
  toDisplayOnly?: string;
  subject?: string;
  slides: Slide[];
  mmsId?: string;
  fallbackDisabled: boolean;
  clientReference?: string;
}

const fail = (code: string, message: string, status = 400) => new AreaError(status, message, { code });
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

export function parseMmsRequest(body: unknown, now: number): MmsRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw fail('E108', 'the body is not a JSON object');
  const b = body as Record<string, unknown>;
  if ('api-key' in b || 'apikey' in b) throw fail('E104', 'the API key belongs in the x-api-key header, never in the body', 401);
  const action = str(b.action) as Action | undefined;
  if (!action || !ACTIONS.includes(action)) throw fail('E107', `action must be one of ${ACTIONS.join(', ')}`);
  const req: MmsRequest = { action, slides: [], fallbackDisabled: b['disable-fallback-sms'] === true };
  const serviceId = str(b['service-id']);
  if (!serviceId || !/^[A-Za-z0-9._-]{1,64}$/.test(serviceId)) throw fail('E111', 'service-id is missing or not a service of this account');
  req.serviceId = serviceId;
  if (action !== 'savemms') {
    const to = str(b.to);
    if (!to || !MMS_NUMBER.test(to) || to.startsWith('00')) throw fail('E110', 'to must be digits with the country code, no plus and no 00 prefix');
    req.to = to;
    const display = str(b['to-displayonly']);
    if (b['to-displayonly'] !== undefined && (!display || !display.split(',').every((n) => MMS_NUMBER.test(n.trim()))))
      throw fail('E100', 'to-displayonly must be comma-separated numbers in the to format');
    if (display) req.toDisplayOnly = display;
  }
  const ref = b['client-reference'];
  if (ref !== undefined && (typeof ref !== 'string' || ref.length > 64)) throw fail('E100', 'client-reference is at most 64 characters');
  if (typeof ref === 'string') req.clientReference = ref;
  if (action === 'sendsavedmms') {
    const mmsId = str(b['mms-id']);
    if (!mmsId) throw fail('E100', 'mms-id is required for sendsavedmms');
    req.mmsId = mmsId;
    return req;
  }
  const subject = str(b['message-subject']);
  if (!subject || subject.length > 80) throw fail('E100', 'message-subject is required (at most 80 characters)');
  req.subject = subject;
  const slides = b.slide;
  if (!Array.isArray(slides) || slides.length < 1 || slides.length > 8) throw fail('E223', 'an MMS has 1 to 8 slides (slide)');
  req.slides = slides.map((raw, i) => parseSlide(raw, i));
  if (!req.fallbackDisabled && !str(b['fallback-sms-text'])) throw fail('E100', 'fallback-sms-text is required unless disable-fallback-sms is true');
  const exp = b['fallback-sms-link-expiration'];
  if (exp !== undefined) {
    const at = typeof exp === 'string' ? Date.parse(exp) : NaN;
    if (Number.isNaN(at) || at <= now || at > now + YEAR_MS)
      throw fail('E100', 'fallback-sms-link-expiration must be a date-time in the future, at most one year ahead');
  }
  return req;
}

function parseSlide(raw: unknown, i: number): Slide {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw fail('E100', `slide[${i}] is not an object`);
  const s = raw as Record<string, unknown>;
  const text = s['message-text'];
  if (text !== undefined && typeof text !== 'string') throw fail('E100', `slide[${i}].message-text must be text`);
  if (typeof text === 'string' && text.length > 5_000) throw fail('E224', `slide[${i}] has more than 5,000 characters of text`);
  const media: Slide['media'] = [];
  for (const kind of MEDIA_KINDS) {
    const v = s[kind];
    if (v === undefined) continue;
    // One file per MIME type per slide: a list of two is refused.
    if (Array.isArray(v)) throw fail('E225', `slide[${i}] has more than one ${kind}`);
    const url = typeof v === 'object' && v !== null ? str((v as Record<string, unknown>).url) : undefined;
    let ok = false;
    try {
      const u = new URL(url ?? '');
      ok = u.protocol === 'http:' || u.protocol === 'https:';
    } catch {
      /* not absolute */
    }
    if (!ok) throw fail('E226', `slide[${i}].${kind}.url must be an absolute http or https URL`);
    media.push({ kind, url: url! });
  }
  if (!media.length && !text) throw fail('E100', `slide[${i}] has neither message-text nor media`);
  return { ...(typeof text === 'string' ? { text } : {}), media };
}
