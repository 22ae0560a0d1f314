// Bundles (docs/bundle-wire.md): a work order for a subproject (existing or new), a conversation app and
// an SMS app in one region. A create answers IN_PROGRESS with the SMS app in PROVISIONING_ADD; the
// provisioning ends after the configured delay ACTIVE (SMS app ACTIVE) or FAILED (PROVISIONING_ADD_FAILED
// and `errors`), announced by BUNDLE_DONE through the area's webhook hub. Control routes
// (/_sandbox/provisioning/bundles...) set the outcome, fail one bundle now, and add webhook delivery statuses.
import type { FastifyInstance } from 'fastify';
import { ulid } from 'ulid';
import type { DueJobs } from '../../core/due-jobs.js';
import { PROJECT, projectGuard } from '../../core/guards.js';
import { type ProvisioningDeps } from './context.js';
import { conflict, notFound, ProvisioningError } from './errors.js';
import { listRoute } from './lists.js';
import type { Bundle } from './model.js';
import { BUNDLE_PROCESSING_MODES, CONVERSATION_REGIONS as BUNDLE_REGIONS, BUNDLE_RETENTION_TYPES, BUNDLE_STATES } from '../../../common/wire/provisioning.js';
import { nowIso } from './store.js';
import { bundleConversationApps } from '../bundle-apps-link.js';
import type { Region } from '../../../common/config.js';
import { type Fields, isObject, type Json } from '../../core/fields.js';
import { fields, ULID } from './validation.js';

const BUNDLE_FAIL_RESOURCES = ['SUBPROJECT', 'CONVERSATION_APP', 'SMS_APP'] as const;
type FailResource = (typeof BUNDLE_FAIL_RESOURCES)[number];

/** How the sandbox ends the provisioning of bundles created from now on. */
export interface BundleSettings {
  outcome: 'activate' | 'fail';
  delayMs: number;
  /** Used when failing: the platform's code and words, and the resource that failed (default: the SMS app, else the conversation app). */
  errorCode: string;
  errorReason: string;
  failResource?: FailResource;
}

const DEFAULT_BUNDLE_SETTINGS: BundleSettings = {
  outcome: 'activate',
  delayMs: 1000,
  errorCode: 'SMS_APP_PROVISIONING_FAILED',
  errorReason: 'The SMS app could not be provisioned in the region',
};
const DEFAULT_RETENTION = { retentionType: 'MESSAGE_EXPIRE_POLICY', ttlDays: 180 } as const;

const SUBPROJECT_ID = /^[A-Za-z0-9-]{1,64}$/;
const MAX_LABELS = 10;

const invalidBundleId = (id: string) =>
  new ProvisioningError(400, 'invalid_bundle_id', `Bundle ID ${id} is not correctly formatted`, {
    resolution: 'Use the bundle ID (a ULID) returned by the create.',
  });

function labelsOf(f: Fields, obj: Json, key: string, prefix: string): Record<string, string> | undefined {
  const labels = f.object(obj, key, prefix, undefined);
  if (!labels) return undefined;
  const field = prefix ? `${prefix}.${key}` : key;
  if (Object.keys(labels).length > MAX_LABELS) f.add(field, `must have at most ${MAX_LABELS} labels`);
  for (const k of Object.keys(labels)) {
    if (k.length < 1 || k.length > 128) f.add(`${field}.${k}`, 'keys must be 1..128 characters');
    f.string(labels, k, field, { required: true, min: 1, max: 128 });
  }
  return labels as Record<string, string>;
}

type CreateFields = Omit<Bundle, 'id' | 'state' | 'createTime' | 'updateTime' | 'webhookDeliveryStatuses' | 'errors'>;

function checkBundleCreate(input: unknown): CreateFields {
  const f = fields();
  const body = f.body(input, ['name', 'region', 'subprojectId', 'subproject', 'convApp', 'smsApp', 'labels']);
  const name = f.string(body, 'name', '', { required: true, min: 1, max: 128 });
  const region = f.oneOf(body, 'region', '', BUNDLE_REGIONS, true);
  const subprojectId = f.string(body, 'subprojectId', '', {
    min: 1,
    max: 64,
    pattern: SUBPROJECT_ID,
    patternText: 'must be a subproject ID (letters, digits and -)',
  });
  const sub = f.object(body, 'subproject', '', ['name', 'labels']);
  const subName = sub ? f.string(sub, 'name', 'subproject', { min: 1, max: 128 }) : undefined;
  if (sub) labelsOf(f, sub, 'labels', 'subproject');
  if (sub && subprojectId !== undefined) f.add('subproject', 'cannot be given together with subprojectId');
  const conv = f.object(body, 'convApp', '', ['name', 'processingMode', 'retentionPolicy']);
  let convApp: Bundle['convApp'] | undefined;
  if (conv) {
    const convName = f.string(conv, 'name', 'convApp', { min: 1, max: 128 });
    const processingMode = f.oneOf(conv, 'processingMode', 'convApp', BUNDLE_PROCESSING_MODES) ?? 'DISPATCH';
    const rp = f.object(conv, 'retentionPolicy', 'convApp', ['retentionType', 'ttlDays']);
    const retentionType = rp ? f.oneOf(rp, 'retentionType', 'convApp.retentionPolicy', BUNDLE_RETENTION_TYPES, true) : undefined;
    const ttlDays = rp ? f.integer(rp, 'ttlDays', 'convApp.retentionPolicy', { required: true, min: 1, max: 3650 }) : undefined;
    convApp = {
      id: ulid(),
      name: convName ?? name ?? '',
      processingMode,
      retentionPolicy: rp
        ? { retentionType: retentionType ?? DEFAULT_RETENTION.retentionType, ttlDays: ttlDays ?? DEFAULT_RETENTION.ttlDays }
        : { ...DEFAULT_RETENTION },
    };
  }
  const sms = f.object(body, 'smsApp', '', ['name']);
  const smsName = sms ? f.string(sms, 'name', 'smsApp', { min: 1, max: 128 }) : undefined;
  const labels = labelsOf(f, body, 'labels', '') ?? {};
  if (isObject(body) && !sub && !conv && !sms && f.violations.length === 0) f.add('convApp', 'a bundle needs at least one of subproject, convApp, smsApp');
  f.check();
  return {
    name: name!,
    region: region!,
    labels: { ...labels },
    subproject:
      subprojectId !== undefined
        ? { id: subprojectId, created: false }
        : sub
          ? { id: ulid(), name: subName ?? name!, created: true }
          : { id: '', created: false },
    ...(convApp ? { convApp } : {}),
    ...(sms ? { smsApp: { id: ulid(), name: smsName ?? name!, status: 'PROVISIONING_ADD' as const } } : {}),
  };
}

function parseBundleSettings(input: unknown): BundleSettings {
  const f = fields();
  const body = f.body(input ?? {}, ['outcome', 'delayMs', 'errorCode', 'errorReason', 'failResource']);
  const failResource = f.oneOf(body, 'failResource', '', BUNDLE_FAIL_RESOURCES);
  const out: BundleSettings = {
    outcome: f.oneOf(body, 'outcome', '', ['activate', 'fail'] as const) ?? DEFAULT_BUNDLE_SETTINGS.outcome,
    delayMs: f.integer(body, 'delayMs', '', { min: 0, max: 3_600_000 }) ?? DEFAULT_BUNDLE_SETTINGS.delayMs,
    errorCode:
      f.string(body, 'errorCode', '', { min: 1, max: 128, pattern: /^[A-Z][A-Z0-9_]*$/, patternText: 'must be an UPPER_SNAKE code' }) ??
      DEFAULT_BUNDLE_SETTINGS.errorCode,
    errorReason: f.string(body, 'errorReason', '', { min: 1, max: 1024 }) ?? DEFAULT_BUNDLE_SETTINGS.errorReason,
    ...(failResource ? { failResource } : {}),
  };
  f.check();
  return out;
}

/** The bundles of one sandbox: the end of their provisioning (a due job, kept across restarts) and the settings that decide it. */
export class BundleDesk {
  settings: BundleSettings = { ...DEFAULT_BUNDLE_SETTINGS };

  constructor(
    private readonly deps: ProvisioningDeps,
    private readonly jobs: DueJobs,
  ) {
    jobs.handle<{ projectId: string; bundleId: string; settings: BundleSettings }>('bundle', ({ projectId, bundleId, settings: s }) => {
      const b = this.deps.store.bundles.get(projectId, bundleId);
      if (!b || b.state !== 'IN_PROGRESS') return;
      if (s.outcome === 'activate') this.activate(projectId, b);
      else this.fail(projectId, b, { code: s.errorCode, message: s.errorReason, ...(s.failResource ? { resource: s.failResource } : {}) });
    });
  }

  reset(): void {
    this.settings = { ...DEFAULT_BUNDLE_SETTINGS };
  }

  /** Schedules the end of a new bundle's provisioning with the settings of now. */
  schedule(projectId: string, bundleId: string): void {
    const settings = { ...this.settings };
    this.jobs.after('bundle', settings.delayMs, { projectId, bundleId, settings }, this.key(bundleId));
  }

  cancel(bundleId: string): void {
    this.jobs.cancel(this.key(bundleId));
  }

  activate(projectId: string, b: Bundle): void {
    if (b.smsApp) b.smsApp.status = 'ACTIVE';
    if (b.convApp)
      this.deps.ctx.links.read(bundleConversationApps)?.({
        id: b.convApp.id,
        projectId: b.subproject.id || projectId,
        region: b.region.toLowerCase() as Region,
        displayName: b.convApp.name,
      });
    b.state = 'ACTIVE';
    b.updateTime = nowIso();
    this.emit(projectId, b, { state: 'ACTIVE' });
  }

  fail(projectId: string, b: Bundle, why: { code: string; message: string; resource?: FailResource }): void {
    this.cancel(b.id);
    const resource = why.resource ?? (b.smsApp ? 'SMS_APP' : b.convApp ? 'CONVERSATION_APP' : 'SUBPROJECT');
    if (b.smsApp)
      b.smsApp.status =
        resource === 'SMS_APP' && b.smsApp.status === 'PROVISIONING_UPDATE'
          ? 'PROVISIONING_UPDATE_FAILED'
          : resource === 'SMS_APP'
            ? 'PROVISIONING_ADD_FAILED'
            : b.smsApp.status;
    b.errors = [...(b.errors ?? []), { resource, code: why.code, message: why.message }];
    b.state = 'FAILED';
    b.updateTime = nowIso();
    this.emit(projectId, b, { state: 'FAILED', errorCode: why.code, errorReason: why.message });
  }

  private emit(projectId: string, b: Bundle, details: { state: string; errorCode?: string; errorReason?: string }): void {
    this.deps.hub.emit({ projectId, trigger: 'BUNDLE_DONE', channel: 'PROJECT', resourceType: 'BUNDLE', resourceId: b.id, details });
  }

  private key(bundleId: string): string {
    return `bundle:${bundleId}`;
  }
}

type Params = { projectId: string; bundleId: string };

export function bundleRoutes(deps: ProvisioningDeps, desk: BundleDesk) {
  const { ctx, store } = deps;
  const find = (projectId: string, bundleId: string): Bundle => {
    if (!ULID.test(bundleId)) throw invalidBundleId(bundleId);
    const b = store.bundles.get(projectId, bundleId);
    if (!b) throw notFound('Bundle', bundleId);
    return b;
  };

  return async (app: FastifyInstance): Promise<void> => {
    const preValidation = projectGuard(ctx);
    const base = `${PROJECT}/bundles`;

    app.post<{ Params: { projectId: string } }>(base, { preValidation }, async (request) => {
      const { projectId } = request.params;
      const fields = checkBundleCreate(request.body);
      if (!fields.subproject.id) fields.subproject = { id: projectId, created: false };
      const now = nowIso();
      const b: Bundle = { id: ulid(), ...fields, state: 'IN_PROGRESS', webhookDeliveryStatuses: [], createTime: now, updateTime: now };
      store.bundles.add(projectId, b);
      desk.schedule(projectId, b.id);
      return b;
    });

    listRoute(app, base, preValidation, store.bundles, { name: 'bundles', key: 'bundles', states: BUNDLE_STATES });

    app.get<{ Params: Params }>(`${base}/:bundleId`, { preValidation }, async (request) => find(request.params.projectId, request.params.bundleId));

    app.delete<{ Params: Params }>(`${base}/:bundleId`, { preValidation }, async (request) => {
      const b = find(request.params.projectId, request.params.bundleId);
      if (b.state === 'DELETED') throw notFound('Bundle', b.id);
      desk.cancel(b.id);
      b.state = 'DELETED';
      b.updateTime = nowIso();
      return b;
    });
  };
}

/** Control routes, mounted with the area's others under /_sandbox/provisioning. */
export function bundleControlRoutes(app: FastifyInstance, deps: ProvisioningDeps, desk: BundleDesk): void {
  const found = (bundleId: string) => {
    const e = deps.store.bundles.find(bundleId);
    if (!e) throw notFound('Bundle', bundleId);
    return e;
  };

  app.get('/bundles', async () => desk.settings);
  // Like webhook-faults: fields left out return to the defaults. Applies to bundles created after it.
  app.put('/bundles', async (request) => {
    desk.settings = parseBundleSettings(request.body);
    return desk.settings;
  });

  // Fails an IN_PROGRESS bundle now (BUNDLE_DONE with state FAILED); 409 once its provisioning has ended.
  app.post<{ Params: { bundleId: string } }>('/bundles/:bundleId/fail', async (request) => {
    const f = fields();
    const body = f.body(request.body ?? {}, ['errorCode', 'errorReason', 'resource']);
    const code = f.string(body, 'errorCode', '', { min: 1, max: 128 }) ?? desk.settings.errorCode;
    const message = f.string(body, 'errorReason', '', { min: 1, max: 1024 }) ?? desk.settings.errorReason;
    const resource = f.oneOf(body, 'resource', '', BUNDLE_FAIL_RESOURCES);
    f.check();
    const { projectId, item } = found(request.params.bundleId);
    if (item.state !== 'IN_PROGRESS') throw conflict(`Bundle ${item.id} is ${item.state}: only an IN_PROGRESS bundle can fail`);
    desk.fail(projectId, item, { code, message, ...(resource ? { resource } : {}) });
    return item;
  });

  // Records an unsuccessful conversation-app webhook delivery on the bundle (no event: the platform only reports it there).
  app.post<{ Params: { bundleId: string } }>('/bundles/:bundleId/webhook-delivery-statuses', async (request) => {
    const f = fields();
    const body = f.body(request.body ?? {}, ['target', 'status', 'httpStatus', 'message']);
    const target = f.string(body, 'target', '', { required: true, max: 2048, url: true });
    const status = f.string(body, 'status', '', { min: 1, max: 64 }) ?? 'FAILED';
    const httpStatus = f.integer(body, 'httpStatus', '', { min: 100, max: 599 });
    const message = f.string(body, 'message', '', { min: 1, max: 1024 });
    f.check();
    const { item } = found(request.params.bundleId);
    item.webhookDeliveryStatuses.push({
      target: target!,
      status,
      ...(httpStatus !== undefined ? { httpStatus } : {}),
      ...(message ? { message } : {}),
      lastAttemptTime: nowIso(),
    });
    item.updateTime = nowIso();
    return item;
  });
}
