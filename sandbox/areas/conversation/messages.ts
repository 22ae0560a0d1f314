// Sending and reading messages (docs/conversation-wire.md "Sending a message", "Reading sent
// messages"). A send is checked field by field, then the app (404 off its region), then the app's MT
// queue (429 with Retry-After when full); only then is it accepted: contact, conversation and message
// made, queued, counted. The app's outbound rate is the pace the queue drains at, not a refusal (spec
// Limits); the project's request limit (context.ts) is the rate that answers 429. An injected fault
// answers before any of this, so it is never accepted or counted as such.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Region } from '../../../common/config.js';
import { AreaError } from '../../core/errors.js';
import { authOf } from '../../core/request-state.js';
import { PROJECT, type ProjectParams } from '../../core/guards.js';
import { appOn, type ConversationDeps, conversationGuard } from './context.js';
import { CHANNELS, messageView, ULID_PATTERN, type Channel, type ChannelIdentity, type Contact, type Message } from './model.js';
import { type Fields, isObject, join } from '../../core/fields.js';
import { fields, notFound } from './validate.js';
import { placeholdersOf, render, type ChannelTemplates } from './templates.js';

const BILLING_CREDIT_LIMIT_BREACHED = 'BILLING_CREDIT_LIMIT_BREACHED';

/** An SMS (and MMS) identity: E.164 with `+`. */
const E164 = /^\+[1-9]\d{6,14}$/;
/** `ttl` as the public reference writes durations: seconds, optionally with an `s`. */
const TTL = /^\d+(\.\d+)?s?$/;
const MAX_IDENTITIES = 20;
const MAX_PAGE_SIZE = 1000;
const DEFAULT_PAGE_SIZE = 100;

const SEND_FIELDS = ['app_id', 'recipient', 'message', 'channel_priority_order', 'message_metadata', 'correlation_id', 'callback_url', 'ttl'];

interface SendRequest {
  appId: string;
  identities?: ChannelIdentity[];
  contactId?: string;
  message: Record<string, unknown>;
  template?: TemplateSend;
  priority: Channel[];
  metadata: string;
  correlationId: string;
}

function checkIdentities(f: Fields, value: unknown, path: string): ChannelIdentity[] {
  const holder = f.record(value, path, ['channel_identities']);
  if (!holder) return [];
  const out: ChannelIdentity[] = [];
  f.array(holder, 'channel_identities', path, { required: true, min: 1, max: MAX_IDENTITIES })?.forEach((item, i) => {
    const at = join(join(path, 'channel_identities'), i);
    const ci = f.record(item, at, ['channel', 'identity']);
    if (!ci) return;
    const channel = ci.channel === undefined ? (f.add(join(at, 'channel'), 'is required'), undefined) : f.member(ci.channel, join(at, 'channel'), CHANNELS);
    const identity = f.string(ci, 'identity', at, { required: true, min: 1, max: 256 });
    if (channel === 'SMS' && identity !== undefined && !E164.test(identity)) f.add(join(at, 'identity'), 'must be an E.164 number with a leading +');
    if (channel && identity !== undefined) out.push({ channel, identity });
  });
  return out;
}

const MESSAGE_KINDS = ['text_message', 'media_message', 'template_message'] as const;
/** A channel-specific template's language: underscored, as the chat channels take it (public reference). */
const TEMPLATE_LANGUAGE = /^[a-z]{2,3}(_[A-Za-z]{2,4})?$/;
const TEMPLATE_CHANNELS = ['CHATA', 'CHATB'] as const;
const MAX_PARAMETERS = 100;

/** A `template_message` as checked: the channel template it names and its parameters. */
interface TemplateSend {
  channel: (typeof TEMPLATE_CHANNELS)[number];
  name: string;
  language: string;
  parameters: Record<string, string>;
  /** Where it is in the request (`message.template_message.channel_template.<CHANNEL>`), to name a field of it. */
  path: string;
}

function checkTemplate(f: Fields, value: unknown): TemplateSend | undefined {
  const at = 'message.template_message';
  const tm = f.record(value, at, ['channel_template']);
  if (!tm) return undefined;
  const holder = f.record(tm.channel_template, join(at, 'channel_template'), TEMPLATE_CHANNELS);
  if (!holder) return undefined;
  const channels = Object.keys(holder);
  if (channels.length !== 1) {
    f.add(join(at, 'channel_template'), `must name exactly one channel of ${TEMPLATE_CHANNELS.join(', ')}`);
    return undefined;
  }
  const channel = channels[0] as TemplateSend['channel'];
  const path = join(join(at, 'channel_template'), channel);
  const ref = f.record(holder[channel], path, ['template_id', 'version', 'language_code', 'parameters']);
  if (!ref) return undefined;
  const name = f.string(ref, 'template_id', path, { required: true, min: 1, max: 512 });
  f.string(ref, 'version', path, { max: 64 });
  // Required for the chat channels' own templates, and underscored (public reference).
  const language = f.string(ref, 'language_code', path, { required: true, pattern: TEMPLATE_LANGUAGE, patternText: 'must be a language code such as en_US' });
  const parameters: Record<string, string> = {};
  if (ref.parameters !== undefined) {
    const p = f.record(ref.parameters, join(path, 'parameters'), Object.keys(isObject(ref.parameters) ? ref.parameters : {}));
    if (p && Object.keys(p).length > MAX_PARAMETERS) f.add(join(path, 'parameters'), `must have at most ${MAX_PARAMETERS} entries`);
    for (const k of Object.keys(p ?? {})) {
      const v = f.string(p!, k, join(path, 'parameters'), { max: 1024 });
      if (v !== undefined) parameters[k] = v;
    }
  }
  if (name === undefined || language === undefined) return undefined;
  return { channel, name, language, parameters, path };
}

function checkMessage(f: Fields, value: unknown): { message: Record<string, unknown>; template?: TemplateSend } {
  const m = f.record(value, 'message', MESSAGE_KINDS);
  if (!m) return { message: {} };
  const kinds = MESSAGE_KINDS.filter((k) => m[k] !== undefined);
  if (kinds.length !== 1) f.add('message', `${kinds.length === 0 ? 'must have one of' : 'must have only one of'} ${MESSAGE_KINDS.join(', ')}`);
  if (m.text_message !== undefined) {
    const t = f.record(m.text_message, 'message.text_message', ['text']);
    if (t) f.string(t, 'text', 'message.text_message', { required: true, min: 1, max: 2048 });
  }
  if (m.media_message !== undefined) {
    const media = f.record(m.media_message, 'message.media_message', ['url']);
    if (media) f.url(media, 'url', 'message.media_message');
  }
  const template = m.template_message !== undefined ? checkTemplate(f, m.template_message) : undefined;
  return { message: m, ...(template ? { template } : {}) };
}

function checkSend(input: unknown): SendRequest {
  const f = fields();
  const body = f.body(input, SEND_FIELDS);
  const appId = f.ulid(body, 'app_id', '');
  let identities: ChannelIdentity[] | undefined;
  let contactId: string | undefined;
  const recipient = f.record(body.recipient, 'recipient', ['identified_by', 'contact_id']);
  if (recipient) {
    const forms = ['identified_by', 'contact_id'].filter((k) => recipient[k] !== undefined);
    if (forms.length !== 1)
      f.add('recipient', forms.length === 0 ? 'must have one of identified_by, contact_id' : 'must have only one of identified_by, contact_id');
    if (recipient.identified_by !== undefined) identities = checkIdentities(f, recipient.identified_by, 'recipient.identified_by');
    if (recipient.contact_id !== undefined) contactId = f.string(recipient, 'contact_id', 'recipient', { min: 1, max: 64 });
  }
  const { message, template } = checkMessage(f, body.message);
  const priority: Channel[] = [];
  f.array(body, 'channel_priority_order', '', { max: CHANNELS.length })?.forEach((c, i) => {
    const channel = f.member(c, join('channel_priority_order', i), CHANNELS);
    if (channel) priority.push(channel);
  });
  const metadata = f.string(body, 'message_metadata', '', { max: 1024 }) ?? '';
  const correlationId = f.string(body, 'correlation_id', '', { max: 128 }) ?? '';
  f.url(body, 'callback_url', '', false);
  f.string(body, 'ttl', '', { pattern: TTL, patternText: 'must be a duration in seconds such as "30s"' });
  f.check();
  return {
    appId: appId!,
    ...(identities ? { identities } : {}),
    ...(contactId !== undefined ? { contactId } : {}),
    message,
    ...(template ? { template } : {}),
    priority,
    metadata,
    correlationId,
  };
}

/**
 * A template send rendered with its parameters: the channel must hold the template (a 400 naming it otherwise
 * [ours]), and every placeholder needs a value (public reference: "concrete values must be present for all defined
 * parameters"), a missing one a 400 naming its field.
 */
function renderTemplate(templates: ChannelTemplates, projectId: string, t: TemplateSend): string {
  const found = templates.find(projectId, t.channel, t.name, t.language);
  const f = fields();
  if (!found) {
    f.add(join(t.path, 'template_id'), `is not a ${t.channel} template of project ${projectId} in language ${t.language}`);
    f.check();
  }
  for (const name of placeholdersOf(found!)) if (t.parameters[name] === undefined) f.add(join(join(t.path, 'parameters'), name), 'is required by the template');
  f.check();
  return render(found!, t.parameters);
}

/** The identity the message goes to: the first by channel_priority_order, else the first given. */
function pick(identities: readonly ChannelIdentity[], priority: readonly Channel[]): ChannelIdentity {
  for (const channel of priority) {
    const found = identities.find((ci) => ci.channel === channel);
    if (found) return found;
  }
  return identities[0]!;
}

export function messageRoutes(deps: ConversationDeps, region: Region) {
  const { ctx, store, queues, stats, settings, templates } = deps;

  // Every messages:send call is counted once, faulted or refused ones included, and those whose
  // caller hung up before the answer: Fastify runs no onResponse for them (and no onRequestAbort
  // once the body is read), so the response's 'close' counts them.
  const counted = new WeakSet<FastifyRequest>();
  const count = (request: FastifyRequest, status: number) => {
    if (counted.has(request)) return;
    counted.add(request);
    const body = request.body;
    const appId = isObject(body) && typeof body.app_id === 'string' ? body.app_id.toUpperCase() : undefined;
    stats.answered(appId, status);
  };
  const countAnswer = async (request: FastifyRequest, reply: FastifyReply) => count(request, reply.statusCode);
  const watchHangUp = async (request: FastifyRequest, reply: FastifyReply) => {
    reply.raw.once('close', () => count(request, reply.sent ? reply.statusCode : 0));
  };

  return async (app: FastifyInstance): Promise<void> => {
    const preValidation = conversationGuard(deps);

    app.post<{ Params: ProjectParams }>(`${PROJECT}/messages::send`, { onRequest: watchHangUp, preValidation, onResponse: countAnswer }, async (request) => {
      // A late arrival: the platform sees the request only now, whether or not its caller still waits.
      const late = settings.takeArrivalDelay();
      if (late > 0) await ctx.sleep(late);
      // The path's project: the key's own, or a subproject of it (the guard checked which it may use).
      const { projectId } = request.params;
      // A project blocked for credit is refused whatever it sends, its subprojects too (spec D 403; the check's place is ours).
      const payer = authOf(request).account.projectId;
      if (settings.billingBlocked.has(payer))
        throw new AreaError(403, `Project ${payer} is blocked for credit reasons`, { code: BILLING_CREDIT_LIMIT_BREACHED });
      const send = checkSend(request.body);
      const rendered = send.template ? renderTemplate(templates, projectId, send.template) : undefined;
      const target = appOn(store, projectId, region, send.appId);
      let contact: Contact | undefined;
      if (send.contactId !== undefined) {
        contact = store.contact(projectId, send.contactId);
        if (!contact) throw notFound(`Contact ${send.contactId} not found in project ${projectId}`);
      }
      const full = queues.fullFor(target.id);
      if (full > 0) {
        throw new AreaError(429, `The MT queue of app ${target.id} is full (${queues.state(target.id).capacity} messages)`, {
          headers: { 'retry-after': String(full) },
        });
      }

      // Accepted from here on.
      contact ??= store.contactFor(projectId, send.identities!);
      const to = pick(contact.identities, send.priority);
      const m: Message = {
        id: store.newId(),
        projectId,
        appId: target.id,
        appMessage: send.message,
        channel: to.channel,
        identity: to.identity,
        contactId: contact.id,
        conversationId: store.conversationFor(target.id, contact.id),
        metadata: send.metadata,
        correlationId: send.correlationId,
        acceptedTime: new Date().toISOString(),
        status: 'ACCEPTED',
        ...(rendered !== undefined ? { rendered } : {}),
      };
      store.addMessage(m);
      stats.accepted(target.id, m.identity);
      queues.enqueue(m);
      const delay = settings.takeSendDelay();
      // "Accept then time out": the platform has the message, the caller waits for the answer.
      if (delay > 0) await ctx.sleep(delay);
      return { message_id: m.id, accepted_time: m.acceptedTime };
    });

    app.get<{ Params: ProjectParams; Querystring: Record<string, unknown> }>(`${PROJECT}/messages`, { preValidation }, async (request) => {
      const { projectId } = request.params;
      const f = fields('querystring');
      // Other query parameters (filters the sandbox does not implement) are ignored, not refused.
      const q = isObject(request.query) ? request.query : {};
      const appId = f.ulid(q, 'app_id', '', false);
      const identity = f.string(q, 'channel_identity', '', { min: 1, max: 256 });
      let pageSize = DEFAULT_PAGE_SIZE;
      if (q.page_size !== undefined) {
        const n = typeof q.page_size === 'string' && /^\d+$/.test(q.page_size) ? Number(q.page_size) : NaN;
        if (!(n >= 1 && n <= MAX_PAGE_SIZE)) f.add('page_size', `must be an integer between 1 and ${MAX_PAGE_SIZE}`);
        else pageSize = n;
      }
      const token = f.string(q, 'page_token', '');
      // The token is the id of the last message of the previous page; '' means the first page.
      if (token && !ULID_PATTERN.test(token)) f.add('page_token', 'is not a token this list gave');
      f.check();
      if (appId !== undefined) appOn(store, projectId, region, appId);
      const appIds = new Set(
        store
          .allApps()
          .filter((a) => a.projectId === projectId && a.region === region)
          .map((a) => a.id),
      );
      const page = store.listMessages({
        projectId,
        appIds,
        ...(appId !== undefined ? { appId } : {}),
        ...(identity !== undefined ? { identity } : {}),
        ...(token ? { before: token.toUpperCase() } : {}),
        limit: pageSize,
      });
      return { messages: page.messages.map(messageView), next_page_token: page.more ? page.messages.at(-1)!.id : '' };
    });

    app.get<{ Params: ProjectParams & { message_id: string } }>(`${PROJECT}/messages/:message_id`, { preValidation }, async (request) => {
      const { projectId, message_id: id } = request.params;
      const m = store.message(projectId, id.toUpperCase());
      const app = m && store.app(m.appId);
      if (!m || !app || app.region !== region) throw notFound(`Message ${id} not found in project ${projectId}`);
      return messageView(m);
    });
  };
}
