// Template body rules: name, language, category, components (a BODY required; header example
// media types and sizes; at most 10 buttons, at most 2 URL buttons).
import {
  SUBMIT_STATUSES,
  TEMPLATE_CATEGORIES,
  TEMPLATE_COMPONENT_TYPES,
  TEMPLATE_HEADER_FORMATS,
  type CreateTemplateRequest,
  type ProvisioningRequestStatus,
  type UpdateTemplateRequest,
} from '../../../common/wire/provisioning.js';
import { MB, TEMPLATE_HEADER_MEDIA, TEMPLATE_MAX_BUTTONS, TEMPLATE_MAX_URL_BUTTONS } from '../../../common/wire/template-rules.js';
import { type Fields, isObject, join, mustBeOneOf, type Json } from '../../core/fields.js';
import { fields } from './validation.js';

const NAME = /^[a-z0-9_]+$/;
const LANGUAGE = /^[a-z]{2,3}(_[A-Z]{2,4})?$/;

/** A create body as checked: its defaults filled in, its components as given (checked here for what the rules need). */
export interface TemplateCreate extends Omit<CreateTemplateRequest, 'status' | 'allowCategoryChange' | 'components'> {
  status: ProvisioningRequestStatus;
  allowCategoryChange: boolean;
  components: unknown[];
}

/** An edit as checked: its status defaulted, its components as given. */
export interface TemplatePatch extends Omit<UpdateTemplateRequest, 'status' | 'components'> {
  status: ProvisioningRequestStatus;
  components?: unknown[];
}

export function checkTemplateCreate(input: unknown): TemplateCreate {
  const f = fields();
  const body = f.body(input, ['name', 'language', 'category', 'status', 'allowCategoryChange', 'messageSendTtlSeconds', 'components']);
  const name = f.string(body, 'name', '', { required: true, min: 1, max: 512, pattern: NAME, patternText: 'must contain only a-z, 0-9 and _' });
  const language = f.string(body, 'language', '', { required: true, pattern: LANGUAGE, patternText: 'must be a language code such as en_US' });
  const category = f.oneOf(body, 'category', '', TEMPLATE_CATEGORIES, true);
  const status = f.oneOf(body, 'status', '', SUBMIT_STATUSES) ?? 'SUBMIT';
  const allowCategoryChange = f.boolean(body, 'allowCategoryChange', '') ?? false;
  const ttl = f.integer(body, 'messageSendTtlSeconds', '', { min: 1, max: 86_400 });
  if (ttl !== undefined && category !== undefined && category !== 'AUTHENTICATION') {
    f.add('messageSendTtlSeconds', 'is allowed for AUTHENTICATION templates only');
  }
  const components = checkComponents(f, body, true);
  f.check();
  return {
    name: name!,
    language: language!,
    category: category!,
    status,
    allowCategoryChange,
    ...(ttl !== undefined ? { messageSendTtlSeconds: ttl } : {}),
    components: components!,
  };
}

export function checkTemplatePatch(input: unknown): TemplatePatch {
  const f = fields();
  const body = f.body(input, ['category', 'components', 'allowCategoryChange', 'status']);
  const category = f.oneOf(body, 'category', '', TEMPLATE_CATEGORIES);
  const allowCategoryChange = f.boolean(body, 'allowCategoryChange', '');
  const status = f.oneOf(body, 'status', '', SUBMIT_STATUSES) ?? 'SUBMIT';
  const components = checkComponents(f, body, false);
  f.check();
  return {
    status,
    ...(category !== undefined ? { category } : {}),
    ...(allowCategoryChange !== undefined ? { allowCategoryChange } : {}),
    ...(components !== undefined ? { components } : {}),
  };
}

function checkComponents(f: Fields, body: Json, required: boolean): unknown[] | undefined {
  const list = f.array(body, 'components', '', { required, min: 1 });
  if (!list) return undefined;
  const seen = new Set<string>();
  let buttons = 0;
  let urlButtons = 0;
  let buttonsField = 'components';
  list.forEach((c, i) => {
    const p = join('components', i);
    if (!isObject(c)) return f.add(p, 'must be an object');
    const type = f.oneOf(c, 'type', p, TEMPLATE_COMPONENT_TYPES, true);
    if (!type) return;
    if (seen.has(type)) f.add(join(p, 'type'), `at most one ${type} component is allowed`);
    seen.add(type);
    if (type === 'HEADER') checkHeader(f, c, p);
    else if (type === 'BODY') f.string(c, 'text', p, { required: true, min: 1, max: 1024 });
    else if (type === 'FOOTER') f.string(c, 'text', p, { max: 60 });
    else if (type === 'BUTTONS') {
      const items = f.array(c, 'buttons', p, { required: true, min: 1 }) ?? [];
      buttonsField = join(p, 'buttons');
      items.forEach((b, j) => {
        if (!isObject(b)) return f.add(join(buttonsField, j), 'must be an object');
        const bt = f.string(b, 'type', join(buttonsField, j), { required: true, min: 1 });
        buttons++;
        if (bt === 'URL') urlButtons++;
      });
    }
  });
  if (!seen.has('BODY')) f.add('components', 'must contain a BODY component');
  if (buttons > TEMPLATE_MAX_BUTTONS) f.add(buttonsField, `must have at most ${TEMPLATE_MAX_BUTTONS} buttons (got ${buttons})`);
  if (urlButtons > TEMPLATE_MAX_URL_BUTTONS) f.add(buttonsField, `must have at most ${TEMPLATE_MAX_URL_BUTTONS} URL buttons (got ${urlButtons})`);
  return list;
}

function checkHeader(f: Fields, c: Json, p: string): void {
  const format = f.oneOf(c, 'format', p, TEMPLATE_HEADER_FORMATS, true);
  if (format === 'TEXT') f.string(c, 'text', p, { max: 60 });
  const media = format ? TEMPLATE_HEADER_MEDIA[format] : undefined;
  if (!media) return;
  const example = f.object(c, 'example', p, undefined, true);
  if (!example) return;
  const ep = join(p, 'example');
  const mediaType = f.string(example, 'mediaType', ep, { required: true });
  if (mediaType !== undefined && !media.types.includes(mediaType)) f.add(join(ep, 'mediaType'), `for ${format} headers ${mustBeOneOf(media.types)}`);
  const size = f.integer(example, 'sizeBytes', ep, { required: true, min: 1 });
  if (size !== undefined && size > media.maxBytes) {
    f.add(join(ep, 'sizeBytes'), `must be at most ${media.maxBytes} bytes (${media.maxBytes / MB} MB) for ${format} headers`);
  }
}
