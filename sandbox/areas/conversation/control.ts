// Control routes under /_sandbox/conversation (no authentication, like the rest of /_sandbox).
// A PUT replaces its whole setting: fields left out go back to their defaults.
//   POST /apps            {region: 'us'|'eu'|'br', displayName?, outboundRate?, projectId?} -> App
//   GET  /apps            every app, with project_id and its MT queue {length, capacity, paused, peak}
//   PUT  /apps/{appId}    {outboundRate?, queueCapacity?, paused?} (only the fields given change)
//   GET|PUT /limits       {projectRps}: the project's requests per second (default 800)
//   GET|PUT /delivery     {rules: [{suffix, status: 'DELIVERED'|'FAILED', reasonCode?}], reportDelayMs?, queuedReport?}
//   GET|PUT /webhook-faults {drop?, duplicate?: count (true = 1), reorder?: boolean, delayMs?}
//   GET|PUT /webhook-retry  {scheduleMs: number[], timeoutMs?}
//   GET|PUT /send-faults  {acceptThenDelayMs, count, arriveAfterMs?, arriveCount?}: the next `count` accepted sends
//                         answer late; the next `arriveCount` sends reach the platform (and are taken) late
//   GET|PUT /billing      {blocked: boolean, projectId?}: that project's sends (default: the first account's) answer
//                         403 BILLING_CREDIT_LIMIT_BREACHED until unblocked -> {blockedProjects}; only that project changes
//   GET /stats?appId=     {accepted, distinctRecipients, duplicateRecipients, duplicateSamples, refused429, requests}
//   GET /recipients?appId= {counts: {<identity>: <accepted messages>}}
//   GET /reports          delivery reports made, by status, and those dropped, duplicated or unsubscribed
//   GET|PUT /channel-templates {projectId?, templates: [{channel: 'CHATA'|'CHATB', name, language, components: [{type, text?}]}]}:
//                         templates handed to the chat channels for that project (default: the first account's), replaced
//                         whole; the provisioning area's approved ones need no hand-over
//   POST /apps/{appId}/inbound {from, text, channel?: 'SMS'|...}: the contact `from` replies `text`; a signed
//                         MESSAGE_INBOUND goes to the app's webhooks subscribed to it -> {messageId, acceptedTime}
//   GET /inbound          replies made, and those dropped, duplicated or unsubscribed
//   GET /messages?appId=  every accepted message: {messages: [{id, identity, channel, metadata, app_message, rendered?}]}
import type { FastifyInstance } from 'fastify';
import { REGIONS, type Region } from '../../../common/config.js';
import { createApp, MAX_OUTBOUND_RATE } from './apps.js';
import type { ConversationDeps } from './context.js';
import { appView, CHANNELS, ULID_PATTERN, type App } from './model.js';
import {
  DEFAULT_FAILURE_REASON,
  defaultDelivery,
  defaultRetry,
  type DeliveryRule,
  type DeliverySettings,
  type RetrySetting,
  type SendFaults,
} from './settings.js';
import { callbackFaultRoutes, type CallbackFaultSetting } from '../../core/callback-hub.js';
import { type Fields, isObject, join } from '../../core/fields.js';
import { fields, notFound } from './validate.js';
import type { ChannelTemplate } from './templates.js';

function checkChannelTemplates(f: Fields, body: Record<string, unknown>, projectId: string): ChannelTemplate[] {
  const out: ChannelTemplate[] = [];
  f.array(body, 'templates', '', { required: true, max: 1000 })?.forEach((t, i) => {
    const path = join('templates', i);
    const r = f.record(t, path, ['channel', 'name', 'language', 'components']);
    if (!r) return;
    const channel = f.member(r.channel, join(path, 'channel'), ['CHATA', 'CHATB'] as const);
    const name = f.string(r, 'name', path, { required: true, min: 1, max: 512 });
    const language = f.string(r, 'language', path, { required: true, min: 2, max: 16 });
    const components: ChannelTemplate['components'] = [];
    f.array(r, 'components', path, { required: true, min: 1, max: 20 })?.forEach((c, j) => {
      const at = join(join(path, 'components'), j);
      // A provisioning template's components pass through as they are; only type and text matter here.
      if (!isObject(c)) return f.add(at, 'must be an object');
      const type = f.string(c, 'type', at, { required: true, min: 1 });
      const text = f.string(c, 'text', at, { max: 4096 });
      if (type !== undefined) components.push({ type, ...(text !== undefined ? { text } : {}) });
    });
    if (channel && name !== undefined && language !== undefined) out.push({ projectId, channel, name, language, components });
  });
  return out;
}

const MAX_DELAY_MS = 600_000;

function checkDelivery(input: unknown): DeliverySettings {
  const f = fields();
  const body = f.body(input ?? {}, ['rules', 'reportDelayMs', 'queuedReport']);
  const rules: DeliveryRule[] = [];
  f.array(body, 'rules', '', { max: 1000 })?.forEach((r, i) => {
    const path = join('rules', i);
    const rule = f.record(r, path, ['suffix', 'status', 'reasonCode']);
    if (!rule) return;
    const suffix = f.string(rule, 'suffix', path, { required: true, max: 64 });
    const status = f.member(rule.status, join(path, 'status'), ['DELIVERED', 'FAILED'] as const);
    const reasonCode = f.string(rule, 'reasonCode', path, {
      min: 1,
      max: 64,
      pattern: /^[A-Z][A-Z0-9_]*$/,
      patternText: 'must be an upper-case code such as CHANNEL_REJECT',
    });
    if (suffix === undefined || !status) return;
    rules.push({ suffix, status, ...(status === 'FAILED' ? { reasonCode: reasonCode ?? DEFAULT_FAILURE_REASON } : {}) });
  });
  const d = defaultDelivery();
  const out: DeliverySettings = {
    rules,
    reportDelayMs: f.integer(body, 'reportDelayMs', '', { min: 0, max: MAX_DELAY_MS }) ?? d.reportDelayMs,
    queuedReport: f.boolean(body, 'queuedReport', '') ?? d.queuedReport,
  };
  f.check();
  return out;
}

/** A count, or a boolean meaning one (true) or none (false). */
function count(f: Fields, body: Record<string, unknown>, key: string): number {
  const v = body[key];
  if (typeof v === 'boolean') return v ? 1 : 0;
  return f.integer(body, key, '', { min: 0 }) ?? 0;
}

function checkWebhookFaults(input: unknown): CallbackFaultSetting {
  const f = fields();
  const body = f.body(input ?? {}, ['drop', 'duplicate', 'reorder', 'delayMs']);
  const out: CallbackFaultSetting = {
    drop: count(f, body, 'drop'),
    duplicate: count(f, body, 'duplicate'),
    reorder: f.boolean(body, 'reorder', '') ?? false,
    delayMs: f.integer(body, 'delayMs', '', { min: 0, max: MAX_DELAY_MS }) ?? 0,
  };
  f.check();
  return out;
}

function checkRetry(input: unknown): RetrySetting {
  const f = fields();
  const body = f.body(input ?? {}, ['scheduleMs', 'timeoutMs']);
  const scheduleMs: number[] = [];
  f.array(body, 'scheduleMs', '', { required: true, max: 20 })?.forEach((ms, i) => {
    if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 0 || ms > MAX_DELAY_MS)
      f.add(join('scheduleMs', i), `must be an integer between 0 and ${MAX_DELAY_MS}`);
    else scheduleMs.push(ms);
  });
  const timeoutMs = f.integer(body, 'timeoutMs', '', { min: 1, max: 60_000 }) ?? defaultRetry().timeoutMs;
  f.check();
  return { scheduleMs, timeoutMs };
}

function checkSendFaults(input: unknown): SendFaults {
  const f = fields();
  const body = f.body(input ?? {}, ['acceptThenDelayMs', 'count', 'arriveAfterMs', 'arriveCount']);
  const out: SendFaults = {
    acceptThenDelayMs: f.integer(body, 'acceptThenDelayMs', '', { min: 0, max: MAX_DELAY_MS }) ?? 0,
    count: f.integer(body, 'count', '', { min: 0 }) ?? 0,
  };
  // Shown only when given: the setting reads as before for callers that never use late arrivals.
  const arriveAfterMs = f.integer(body, 'arriveAfterMs', '', { min: 0, max: MAX_DELAY_MS });
  const arriveCount = f.integer(body, 'arriveCount', '', { min: 0 });
  if (arriveAfterMs !== undefined) out.arriveAfterMs = arriveAfterMs;
  if (arriveCount !== undefined) out.arriveCount = arriveCount;
  f.check();
  return out;
}

/** `?appId=`: absent means every app. */
function appIdQuery(query: unknown): string | undefined {
  const q = isObject(query) ? query : {};
  const f = fields('querystring');
  const appId = f.string(q, 'appId', '', { pattern: ULID_PATTERN, patternText: 'must be a ULID' });
  f.check();
  return appId?.toUpperCase();
}

export function conversationControlRoutes(app: FastifyInstance, deps: ConversationDeps): void {
  const { ctx, store, settings, queues, stats, reports, inbound, templates } = deps;
  const withQueue = (a: App) => ({ ...appView(a), project_id: a.projectId, queue: queues.state(a.id) });

  app.post('/apps', async (request) => {
    const f = fields();
    const body = f.body(request.body, ['region', 'displayName', 'outboundRate', 'projectId']);
    const region = typeof body.region === 'string' ? f.member(body.region.toLowerCase(), 'region', REGIONS) : f.member(body.region, 'region', REGIONS);
    const displayName = f.string(body, 'displayName', '', { min: 1, max: 100 });
    const outboundRate = f.integer(body, 'outboundRate', '', { min: 1, max: MAX_OUTBOUND_RATE });
    const projectId = f.string(body, 'projectId', '', { min: 1 });
    if (projectId !== undefined && !ctx.accounts.byProject(projectId)) f.add('projectId', 'is not the project of any sandbox account');
    f.check();
    const created = createApp(deps, {
      projectId: projectId ?? ctx.accounts.all[0]!.projectId,
      region: region as Region,
      displayName: displayName ?? 'sandbox app',
      ...(outboundRate !== undefined ? { outboundRate } : {}),
    });
    return withQueue(created);
  });

  app.get('/apps', async () => ({ apps: store.allApps().map(withQueue) }));

  app.put<{ Params: { appId: string } }>('/apps/:appId', async (request) => {
    const target = store.app(request.params.appId.toUpperCase());
    if (!target) throw notFound(`App ${request.params.appId} not found`);
    const f = fields();
    const body = f.body(request.body, ['outboundRate', 'queueCapacity', 'paused']);
    const outboundRate = f.integer(body, 'outboundRate', '', { min: 1, max: MAX_OUTBOUND_RATE });
    const capacity = f.integer(body, 'queueCapacity', '', { min: 1, max: 10_000_000 });
    const paused = f.boolean(body, 'paused', '');
    f.check();
    if (outboundRate !== undefined) target.outboundRate = outboundRate;
    queues.configure(target.id, { ...(capacity !== undefined ? { capacity } : {}), ...(paused !== undefined ? { paused } : {}) });
    return withQueue(target);
  });

  app.post<{ Params: { appId: string } }>('/apps/:appId/inbound', async (request) => {
    const target = store.app(request.params.appId.toUpperCase());
    if (!target) throw notFound(`App ${request.params.appId} not found`);
    const f = fields();
    const body = f.body(request.body, ['from', 'text', 'channel']);
    const from = f.string(body, 'from', '', { required: true, pattern: /^\+[1-9]\d{5,14}$/, patternText: 'must be a number in E.164 (+ and 6 to 15 digits)' });
    const text = f.string(body, 'text', '', { required: true, min: 1, max: 2048 });
    const channel = body.channel === undefined ? 'SMS' : f.member(body.channel, 'channel', CHANNELS);
    f.check();
    return inbound.reply(target, channel!, from!, text!);
  });
  app.get('/inbound', async () => inbound.counts);

  app.get('/limits', async () => ({ projectRps: settings.projectRps }));
  app.put('/limits', async (request) => {
    const f = fields();
    const body = f.body(request.body, ['projectRps']);
    const rps = f.integer(body, 'projectRps', '', { required: true, min: 1, max: 1_000_000 });
    f.check();
    settings.projectRps = rps!;
    return { projectRps: settings.projectRps };
  });

  app.get('/delivery', async () => settings.delivery);
  app.put('/delivery', async (request) => {
    settings.delivery = checkDelivery(request.body);
    return settings.delivery;
  });

  callbackFaultRoutes(app, '/webhook-faults', reports.hub, checkWebhookFaults);

  app.get('/webhook-retry', async () => settings.retry);
  app.put('/webhook-retry', async (request) => {
    settings.retry = checkRetry(request.body);
    return settings.retry;
  });

  app.get('/send-faults', async () => settings.sendFaults);
  app.put('/send-faults', async (request) => {
    settings.sendFaults = checkSendFaults(request.body);
    return settings.sendFaults;
  });

  const billing = () => ({ blockedProjects: [...settings.billingBlocked] });
  app.get('/billing', async () => billing());
  app.put('/billing', async (request) => {
    const f = fields();
    const body = f.body(request.body, ['blocked', 'projectId']);
    const blocked = f.boolean(body, 'blocked', '');
    if (blocked === undefined && body.blocked === undefined) f.add('blocked', 'is required');
    const projectId = f.string(body, 'projectId', '', { min: 1 });
    if (projectId !== undefined && !ctx.accounts.byProject(projectId)) f.add('projectId', 'is not the project of any sandbox account');
    f.check();
    const project = projectId ?? ctx.accounts.all[0]!.projectId;
    if (blocked) settings.billingBlocked.add(project);
    else settings.billingBlocked.delete(project);
    return billing();
  });

  app.get('/channel-templates', async () => ({ templates: templates.all() }));
  app.put('/channel-templates', async (request) => {
    const f = fields();
    const body = f.body(request.body, ['projectId', 'templates']);
    const projectId = f.string(body, 'projectId', '', { min: 1 });
    if (projectId !== undefined && !ctx.accounts.byProject(projectId)) f.add('projectId', 'is not the project of any sandbox account');
    const project = projectId ?? ctx.accounts.all[0]!.projectId;
    const list = checkChannelTemplates(f, body, project);
    f.check();
    templates.replace(project, list);
    return { templates: templates.all().filter((t) => t.projectId === project) };
  });

  app.get('/messages', async (request) => {
    const appId = appIdQuery(request.query);
    const messages = store.allMessages().filter((m) => appId === undefined || m.appId === appId);
    return {
      messages: messages.map((m) => ({
        id: m.id,
        app_id: m.appId,
        identity: m.identity,
        channel: m.channel,
        metadata: m.metadata,
        app_message: m.appMessage,
        ...(m.rendered !== undefined ? { rendered: m.rendered } : {}),
      })),
    };
  });

  app.get('/stats', async (request) => stats.view(appIdQuery(request.query)));
  app.get('/recipients', async (request) => ({ counts: stats.recipients(appIdQuery(request.query)) }));
  app.get('/reports', async () => reports.counts);
}
