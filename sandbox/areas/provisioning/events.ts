// POST /_sandbox/provisioning/events: a state change made as the platform's reviewers would make it
// (pause a template, change its quality score or category, comment, reject a country...), applied
// to the resource and emitted as its webhook event. Everything is checked before anything changes.
import type { SandboxContext } from '../../core/context.js';
import type { WebhookEvents } from './delivery.js';
import { invalidInput, notFound } from './errors.js';
import { RESOURCE_TYPES, type ChataSender, type ChatbSender, type EventDetails, type RcsSender, type Template, type WebhookEvent } from './model.js';
import {
  CHATA_ERROR_CODES,
  CHATA_MESSAGING_LIMITS,
  CHATA_QUALITY_RATINGS,
  CHATA_SENDER_STATES,
  CHATA_TRIGGERS,
  CHATB_SENDER_STATES,
  CHATB_TRIGGERS,
  QUALITY_SCORES,
  RCS_OPERATOR_STATUSES,
  RCS_STATES,
  RCS_TRIGGERS,
  REJECTION_CODES,
  TEMPLATE_CATEGORIES,
  TEMPLATE_NEW_STATES,
  type ProvisioningChannel as Channel,
  type ProvisioningResourceType as ResourceType,
  type ProvisioningTrigger as Trigger,
} from '../../../common/wire/provisioning.js';
import type { Reviewer } from './reviewer.js';
import { nowIso, type ProvisioningStore } from './store.js';
import { type Json } from '../../core/fields.js';
import { fields } from './validation.js';

const TRIGGERS: readonly Trigger[] = [...CHATA_TRIGGERS, ...RCS_TRIGGERS, ...CHATB_TRIGGERS];
const DETAIL_KEYS = [
  'state',
  'newState',
  'rejectionCode',
  'qualityScore',
  'category',
  'country',
  'operator',
  'operatorStatus',
  'errorCode',
  'errorReason',
  'qualityRating',
  'messagingLimit',
] as const;
const DETAIL_VALUES: Partial<Record<keyof EventDetails, readonly string[]>> = {
  newState: TEMPLATE_NEW_STATES,
  rejectionCode: REJECTION_CODES,
  qualityScore: QUALITY_SCORES,
  category: TEMPLATE_CATEGORIES,
  operatorStatus: RCS_OPERATOR_STATUSES,
  errorCode: CHATA_ERROR_CODES,
  qualityRating: CHATA_QUALITY_RATINGS,
  messagingLimit: CHATA_MESSAGING_LIMITS,
};
/** Details a trigger cannot do without. */
const REQUIRED: Partial<Record<Trigger, (keyof EventDetails)[]>> = {
  CHATA_TEMPLATE_STATUS_UPDATED: ['newState'],
  CHATA_TEMPLATE_QUALITY_SCORE_UPDATED: ['qualityScore'],
  CHATA_TEMPLATE_CATEGORY_UPDATED: ['category'],
  CHATA_TEMPLATE_CATEGORY_FUTURE_UPDATE: ['category'],
  RCS_SENDER_STATUS_UPDATED: ['state'],
  RCS_SENDER_OPERATOR_STATUS_UPDATED: ['country', 'operator', 'operatorStatus'],
  CHATA_SENDER_QUALITY_RATING_CHANGED: ['qualityRating'],
  CHATA_SENDER_DAILY_LIMIT_CHANGED: ['messagingLimit'],
};

function targetOf(trigger: Trigger): { channel: Channel; resourceType: ResourceType } {
  const channel = trigger.split('_')[0] as Channel;
  if (trigger.includes('_TEMPLATE_')) return { channel, resourceType: 'TEMPLATE' };
  if (trigger.endsWith('_ACCOUNT_COMMENT_ADDED')) return { channel, resourceType: 'ACCOUNT' };
  return { channel, resourceType: 'SENDER' };
}

type Resource =
  | { kind: 'account' }
  | { kind: 'template'; item: Template }
  | { kind: 'rcs'; item: RcsSender }
  | { kind: 'chata'; item: ChataSender }
  | { kind: 'chatb'; item: ChatbSender };

export interface ControlEventDeps {
  ctx: SandboxContext;
  store: ProvisioningStore;
  hub: WebhookEvents;
  reviewer: Reviewer;
}

export function applyControlEvent({ ctx, store, hub, reviewer }: ControlEventDeps, input: unknown): WebhookEvent {
  const f = fields();
  const body = f.body(input, ['resourceType', 'resourceId', 'trigger', 'details', 'comment']);
  const resourceType = f.oneOf(body, 'resourceType', '', RESOURCE_TYPES, true);
  const id = f.string(body, 'resourceId', '', { required: true, min: 1 }) ?? '';
  const trigger = f.oneOf(body, 'trigger', '', TRIGGERS, true);
  const comment = f.string(body, 'comment', '', { min: 1, max: 1024 });
  const raw = f.object(body, 'details', '', DETAIL_KEYS) ?? {};
  const d: EventDetails = {};
  for (const k of DETAIL_KEYS) {
    const v = f.string(raw, k, 'details');
    const values = DETAIL_VALUES[k];
    if (v !== undefined && values && !values.includes(v)) f.oneOf(raw, k, 'details', values);
    else if (v !== undefined) d[k] = v;
  }
  f.check();
  const target = targetOf(trigger!);
  if (target.resourceType !== resourceType)
    throw invalidInput([{ field: 'resourceType', description: `trigger ${trigger} applies to ${target.resourceType} resources` }]);

  // Find the resource (404), then check what the trigger needs, then change it.
  let projectId: string;
  let r: Resource;
  const found = <T>(e: { projectId: string; item: T } | undefined, what: string): T => {
    if (!e) throw notFound(what, id);
    projectId = e.projectId;
    return e.item;
  };
  if (resourceType === 'ACCOUNT') {
    if (!ctx.accounts.byProject(id)) throw notFound('Account (project)', id);
    projectId = id;
    r = { kind: 'account' };
  } else if (resourceType === 'TEMPLATE') {
    r = { kind: 'template', item: found((target.channel === 'CHATA' ? store.chataTemplates : store.chatbTemplates).find(id), `${target.channel} template`) };
  } else if (target.channel === 'RCS') r = { kind: 'rcs', item: found(store.rcsSenders.find(id), 'RCS sender') };
  else if (target.channel === 'CHATA') r = { kind: 'chata', item: found(store.chataSenders.find(id), 'CHATA sender') };
  else r = { kind: 'chatb', item: found(store.chatbSenders.find(id), 'CHATB sender') };

  for (const k of REQUIRED[trigger!] ?? []) if (d[k] === undefined) f.add(`details.${k}`, `is required for ${trigger}`);
  if (trigger!.endsWith('_COMMENT_ADDED') && comment === undefined) f.add('comment', `is required for ${trigger}`);
  const states: readonly string[] | undefined =
    r.kind === 'rcs' ? RCS_STATES : r.kind === 'chata' ? CHATA_SENDER_STATES : r.kind === 'chatb' ? CHATB_SENDER_STATES : undefined;
  if (d.state !== undefined && states && !states.includes(d.state)) f.oneOf(d as Json, 'state', 'details', states);
  if (r.kind === 'rcs' && d.country !== undefined && !r.item.countries.includes(d.country)) f.oneOf(d as Json, 'country', 'details', r.item.countries);
  f.check();

  const note = comment !== undefined ? { text: comment, at: nowIso(), author: 'reviewer' } : undefined;
  if (r.kind === 'template') {
    applyTemplate(trigger!, r.item, d, () => reviewer.cancel(r.item.id));
    if (note && trigger!.endsWith('_COMMENT_ADDED')) r.item.comments.push(note);
  } else if (r.kind === 'rcs') {
    applyRcs(trigger!, r.item, d);
    if (note && trigger === 'RCS_SENDER_COMMENT_ADDED') r.item.comments.push(note);
  } else if (r.kind === 'chata') applyChata(trigger!, r.item, d);
  else if (r.kind === 'chatb') {
    if (note && trigger === 'CHATB_SENDER_COMMENT_ADDED') r.item.comments.push(note);
    if (trigger === 'CHATB_SENDER_REJECTED') d.state = 'REJECTED';
    if (trigger === 'CHATB_SENDER_INACTIVE') d.state = 'INACTIVE';
    if (d.state !== undefined) r.item.state = d.state as ChatbSender['state'];
  }
  if (r.kind !== 'account') r.item.updateTime = nowIso();
  return hub.emit({ projectId: projectId!, trigger: trigger!, ...target, resourceId: id, details: d, ...(comment !== undefined ? { comment } : {}) });
}

function applyTemplate(trigger: Trigger, t: Template, d: EventDetails, cancelReview: () => void): void {
  switch (trigger.replace(/^CHAT[AB]_TEMPLATE_/, '')) {
    case 'APPROVED':
      t.state = 'APPROVED';
      delete t.rejectionCode;
      d.state = 'APPROVED';
      break;
    case 'REJECTED':
      t.state = 'REJECTED';
      t.rejectionCode = d.rejectionCode ??= 'INVALID_FORMAT';
      d.state = 'REJECTED';
      break;
    case 'STATUS_UPDATED':
      // UNPAUSED and REINSTATED bring the template back into use.
      t.state = d.newState === 'PAUSED' || d.newState === 'DISABLED' ? d.newState : 'APPROVED';
      break;
    case 'QUALITY_SCORE_UPDATED':
      t.qualityScore = d.qualityScore!;
      break;
    case 'CATEGORY_UPDATED':
      t.category = d.category as Template['category'];
      break;
    case 'DELETED':
      cancelReview();
      t.state = 'DELETED';
      d.state = 'DELETED';
      break;
  }
}

function applyRcs(trigger: Trigger, s: RcsSender, d: EventDetails): void {
  const rejectCountry = (c: string) => {
    const cs = s.countryStatus[c]!;
    cs.status = 'REJECTED';
    for (const op of Object.keys(cs.operators)) cs.operators[op] = 'REJECTED';
  };
  if (trigger === 'RCS_SENDER_STATUS_UPDATED') s.state = d.state as RcsSender['state'];
  else if (trigger === 'RCS_SENDER_REJECTED' && d.country === undefined) {
    s.countries.forEach(rejectCountry);
    s.state = d.state = 'REJECTED';
  } else if (trigger === 'RCS_SENDER_REJECTED') {
    rejectCountry(d.country!);
    const st = Object.values(s.countryStatus).map((c) => c.status);
    const launched = st.filter((x) => x === 'LAUNCHED').length;
    // While other countries are still under review the sender stays IN_REVIEW.
    if (!st.includes('PENDING')) s.state = launched === 0 ? 'REJECTED' : launched === st.length ? 'LAUNCHED' : 'PARTIALLY_LAUNCHED';
  } else if (trigger === 'RCS_SENDER_OPERATOR_STATUS_UPDATED') {
    const cs = s.countryStatus[d.country!]!;
    cs.operators[d.operator!] = d.operatorStatus as RcsSender['countryStatus'][string]['operators'][string];
    if (Object.values(cs.operators).every((o) => o === 'LAUNCHED')) cs.status = 'LAUNCHED';
  }
}

function applyChata(trigger: Trigger, s: ChataSender, d: EventDetails): void {
  if (trigger === 'CHATA_SENDER_QUALITY_RATING_CHANGED') s.qualityRating = d.qualityRating as ChataSender['qualityRating'];
  if (trigger === 'CHATA_SENDER_DAILY_LIMIT_CHANGED') s.messagingLimit = d.messagingLimit as ChataSender['messagingLimit'];
  if (trigger !== 'CHATA_WABA_ACCOUNT_CHANGED' || d.state === undefined) return;
  s.state = d.state as ChataSender['state'];
  if (s.state === 'ACTIVE') {
    delete s.errorCode;
    delete s.errorReason;
  }
  if (d.errorCode !== undefined) s.errorCode = d.errorCode;
  if (d.errorReason !== undefined) s.errorReason = d.errorReason;
}
