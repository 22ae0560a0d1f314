// The process each provisioning start request builds (template, RCS / CHATA / CHATB sender, bundle), with the
// rules between its fields as errors naming `<prefix>.<field>`: shared by the routes of each process and the
// onboarding, whose plan holds many of them (`body.templates.2`). Nothing here throws or reads the platform:
// what the platform says (questionnaire, categories) is read first and passed in.
import type { Static } from 'typebox';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import type { Config } from '../../../common/config.js';
import type { SubjectHasher } from '../../../common/subject-hash.js';
import { workflowIds } from '../../kinds.js';
import {
  DEFAULT_PHONE_VERIFICATION,
  type BundleProvisioningInput,
  type ChataSenderInput,
  type ChatbSenderInput,
  type CreateBundleRequest,
  type PhoneVerificationSettings,
  type RcsSenderLaunchInput,
  type TemplateApprovalInput,
} from '../contract.js';
import type { ChataVerificationMethod, ChatbCategory, RcsQuestionnaire, TemplateChannel } from '../../../common/wire/provisioning.js';
import type { ErrorDetail } from '../../../api/errors.js';
import type { BuiltProcess } from '../../../api/processes/start.js';
import { followSettings } from './common.js';
import {
  bannerErrors,
  componentErrors,
  type StartBundle,
  type StartChataSender,
  type StartChatbSender,
  type StartRcsSender,
  type StartTemplate,
} from './schemas.js';

export interface InputContext {
  projectId: string;
  config: Pick<Config, 'processes'>;
}

export function contactErrors(contact: { email?: string; phoneNumber?: string } | undefined, field: string): ErrorDetail[] {
  if (!contact) return [];
  const given = [contact.email, contact.phoneNumber].filter((v) => v !== undefined).length;
  return given === 1 ? [] : [{ field, rule: 'one_of', message: 'must have exactly one of email, phoneNumber' }];
}

/** The launch contact as the process takes it: exactly one of the two (contactErrors says when not). */
export const launchContact = (c: { email?: string; phoneNumber?: string }) => (c.email !== undefined ? { email: c.email } : { phoneNumber: c.phoneNumber! });

export function templateInput(
  b: Static<typeof StartTemplate>,
  prefix: string,
  ctx: InputContext & { channel: TemplateChannel },
): BuiltProcess<TemplateApprovalInput, 'chata-template' | 'chatb-template'> {
  const errors = componentErrors(b.components, `${prefix}.components`);
  if (b.messageSendTtlSeconds !== undefined && b.category !== 'AUTHENTICATION')
    errors.push({ field: `${prefix}.messageSendTtlSeconds`, rule: 'not_allowed', message: 'is allowed for AUTHENTICATION templates only' });
  if (b.alternativeCategory !== undefined && b.alternativeCategory === b.category)
    errors.push({ field: `${prefix}.alternativeCategory`, rule: 'different', message: 'must differ from category' });
  const kind = ctx.channel === 'CHATA' ? 'chata-template' : 'chatb-template';
  const input: TemplateApprovalInput = {
    channel: ctx.channel,
    projectId: ctx.projectId,
    template: {
      name: b.name,
      language: b.language,
      category: b.category,
      components: b.components,
      ...(b.allowCategoryChange !== undefined ? { allowCategoryChange: b.allowCategoryChange } : {}),
      ...(b.messageSendTtlSeconds !== undefined ? { messageSendTtlSeconds: b.messageSendTtlSeconds } : {}),
    },
    ...(b.createAsDraft ? { createAsDraft: true } : {}),
    ...(b.alternativeCategory ? { alternativeCategory: b.alternativeCategory } : {}),
    ...followSettings(ctx.config, b.overdueAfterSeconds),
  };
  return { errors, processId: workflowIds[kind](ctx.projectId, b.name, b.language), kind, input };
}

/** `questionnaire`: the platform's for the use case and countries; undefined when it could not be read (the platform checks later). */
export function rcsSenderInput(
  b: Static<typeof StartRcsSender>,
  prefix: string,
  ctx: InputContext & { questionnaire: RcsQuestionnaire | undefined },
): BuiltProcess<RcsSenderLaunchInput, 'rcs-sender'> {
  const errors = [...bannerErrors(b.banner, `${prefix}.banner`), ...contactErrors(b.contact, `${prefix}.contact`)];
  if (ctx.questionnaire) {
    const ids = ctx.questionnaire.questions.map((q) => q.id);
    for (const q of ctx.questionnaire.questions) {
      if (q.required && !b.answers[q.id]?.trim()) errors.push({ field: `${prefix}.answers.${q.id}`, rule: 'required', message: `is required: ${q.text}` });
    }
    for (const id of Object.keys(b.answers)) {
      if (!ids.includes(id))
        errors.push({
          field: `${prefix}.answers.${id}`,
          rule: 'unknown_question',
          message: `is not a question of the ${b.useCase} questionnaire for ${b.countries.join(', ')}; questions: ${ids.join(', ')}`,
        });
    }
  }
  const { answers, contact, testNumbers, overdueAfterSeconds, ...sender } = b;
  const input: RcsSenderLaunchInput = {
    projectId: ctx.projectId,
    sender,
    answers,
    contact: launchContact(contact),
    ...(testNumbers ? { testNumbers } : {}),
    ...followSettings(ctx.config, overdueAfterSeconds),
  };
  return { errors, processId: workflowIds['rcs-sender'](ctx.projectId, b.displayName), kind: 'rcs-sender', input };
}

/** The start request's phone verification settings over the defaults. */
export function phoneVerificationSettings(given: { method?: ChataVerificationMethod; timeoutSeconds?: number } | undefined): PhoneVerificationSettings {
  return {
    method: given?.method ?? DEFAULT_PHONE_VERIFICATION.method,
    timeoutMs: given?.timeoutSeconds !== undefined ? given.timeoutSeconds * 1000 : DEFAULT_PHONE_VERIFICATION.timeoutMs,
  };
}

/** A standard CHATA sender; its process ID holds the keyed hash of the number, never the number. */
export function chataSenderInput(
  b: Static<typeof StartChataSender>,
  prefix: string,
  ctx: InputContext & { hashSubject: SubjectHasher },
): BuiltProcess<ChataSenderInput, 'chata-sender'> {
  const { overdueAfterSeconds, phoneVerification, ...sender } = b;
  // The schema's e164 format has checked the number already; this only normalises it.
  const parsed = sender.phoneNumber.startsWith('+') ? parsePhoneNumberFromString(sender.phoneNumber) : undefined;
  const errors: ErrorDetail[] = parsed?.isValid()
    ? []
    : [{ field: `${prefix}.phoneNumber`, rule: 'e164', message: 'must be a valid phone number in international format (+ and country code)' }];
  const phoneNumber = parsed?.number ?? sender.phoneNumber;
  const input: ChataSenderInput = {
    projectId: ctx.projectId,
    mode: 'standard',
    sender: { ...sender, phoneNumber },
    phoneVerification: phoneVerificationSettings(phoneVerification),
    ...followSettings(ctx.config, overdueAfterSeconds),
  };
  return {
    errors,
    processId: workflowIds['chata-sender'](ctx.projectId, ctx.hashSubject(`+${phoneNumber.replace(/\D/g, '')}`)),
    kind: 'chata-sender',
    input,
  };
}

/** `categories`: the platform's CHATB categories; undefined when they could not be read (the platform checks later). */
export function chatbSenderInput(
  b: Static<typeof StartChatbSender>,
  prefix: string,
  ctx: InputContext & { categories: ChatbCategory[] | undefined },
): BuiltProcess<ChatbSenderInput, 'chatb-sender'> {
  const { overdueAfterSeconds, ...sender } = b;
  const errors: ErrorDetail[] = [];
  const category = ctx.categories?.find((c) => c.code === sender.categoryCode);
  if (ctx.categories && !category)
    errors.push({ field: `${prefix}.categoryCode`, rule: 'enum', message: `must be one of ${ctx.categories.map((c) => c.code).join(', ')}` });
  if (category && sender.subcategoryCode !== undefined && !category.subcategories.some((s) => s.code === sender.subcategoryCode)) {
    errors.push({
      field: `${prefix}.subcategoryCode`,
      rule: 'enum',
      message: `for category ${category.code} must be one of ${category.subcategories.map((s) => s.code).join(', ')}`,
    });
  }
  const input: ChatbSenderInput = { projectId: ctx.projectId, sender, ...followSettings(ctx.config, overdueAfterSeconds) };
  return {
    errors,
    processId: workflowIds['chatb-sender'](ctx.projectId, sender.displayName),
    kind: 'chatb-sender',
    input,
  };
}

/** The bundle's fields without its key, which is the caller's (POST /v1/bundles) or the onboarding's. */
export type BundleFields = Omit<Static<typeof StartBundle>, 'key'>;

export function bundleInput(
  b: BundleFields,
  prefix: string,
  ctx: InputContext & { key: string },
): BuiltProcess<BundleProvisioningInput, 'bundle-provisioning'> {
  const errors: ErrorDetail[] = [];
  const conv = b.conversationApp ?? true;
  const sms = b.smsApp ?? true;
  if (b.createSubproject && b.subprojectId !== undefined)
    errors.push({ field: `${prefix}.createSubproject`, rule: 'exclusive', message: 'cannot be true together with subprojectId' });
  if (b.subprojectName !== undefined && !b.createSubproject)
    errors.push({ field: `${prefix}.subprojectName`, rule: 'requires', message: 'needs createSubproject: true' });
  if (!conv && (b.processingMode !== undefined || b.retentionPolicy !== undefined)) {
    errors.push({
      field: b.processingMode !== undefined ? `${prefix}.processingMode` : `${prefix}.retentionPolicy`,
      rule: 'requires',
      message: 'needs the conversation app (conversationApp not false)',
    });
  }
  if (!sms && b.smsAppName !== undefined) errors.push({ field: `${prefix}.smsAppName`, rule: 'requires', message: 'needs the SMS app (smsApp not false)' });
  if (!conv && !sms && !b.createSubproject)
    errors.push({ field: `${prefix}.smsApp`, rule: 'required', message: 'a bundle needs at least one of conversationApp, smsApp, createSubproject' });
  const bundle: CreateBundleRequest = {
    name: b.displayName,
    region: b.region,
    ...(b.subprojectId !== undefined ? { subprojectId: b.subprojectId } : {}),
    ...(b.createSubproject ? { subproject: { name: b.subprojectName ?? b.displayName } } : {}),
    ...(conv ? { convApp: { processingMode: b.processingMode ?? 'DISPATCH', ...(b.retentionPolicy ? { retentionPolicy: b.retentionPolicy } : {}) } } : {}),
    ...(sms ? { smsApp: b.smsAppName !== undefined ? { name: b.smsAppName } : {} } : {}),
  };
  const input: BundleProvisioningInput = { projectId: ctx.projectId, key: ctx.key, bundle, ...followSettings(ctx.config, b.overdueAfterSeconds) };
  return {
    errors,
    processId: workflowIds['bundle-provisioning'](ctx.projectId, ctx.key),
    kind: 'bundle-provisioning',
    input,
  };
}
