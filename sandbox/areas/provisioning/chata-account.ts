// The project's CHATA business account (docs/provisioning-wire.md, "CHATA business account"): read with
// `GET /v1/projects/{projectId}/chata`, made ONBOARDED on first read; its ban set by the control route
// `PUT /_sandbox/provisioning/chata-account/:projectId/ban`, which reports it as CHATA_WABA_ACCOUNT_CHANGED on the
// account (resourceType ACCOUNT, resourceId the account's ID, details.banState). The senders and templates themselves
// keep their states: a ban is the account's, read from the account.
import type { FastifyInstance } from 'fastify';
import { ulid } from 'ulid';
import { PROJECT, projectGuard } from '../../core/guards.js';
import { CHATA_BAN_STATES } from '../../../common/wire/provisioning.js';
import type { ProvisioningDeps } from './context.js';
import { notFound } from './errors.js';
import type { ChataAccount, WebhookEvent } from './model.js';
import { nowIso, type ProvisioningStore } from './store.js';
import { fields } from './validation.js';

function accountOf(store: ProvisioningStore, projectId: string): ChataAccount {
  const found = store.chataAccounts.list(projectId)[0];
  if (found) return found;
  const now = nowIso();
  return store.chataAccounts.add(projectId, { id: ulid(), state: 'ONBOARDED', primaryBusinessLocation: 'US', wabaEnabledForInsights: false, updateTime: now });
}

export function chataAccountRoutes({ ctx, store }: ProvisioningDeps) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get<{ Params: { projectId: string } }>(`${PROJECT}/chata`, { preValidation: projectGuard(ctx) }, async (request) =>
      accountOf(store, request.params.projectId),
    );
  };
}

/** Bans, schedules a ban or reinstates the project's account, and reports it; everything is checked first. */
export function chataAccountControl(app: FastifyInstance, { ctx, store, hub }: ProvisioningDeps): void {
  app.put<{ Params: { projectId: string } }>('/chata-account/:projectId/ban', async (request): Promise<{ account: ChataAccount; event: WebhookEvent }> => {
    const { projectId } = request.params;
    const f = fields();
    const body = f.body(request.body, ['banState', 'banDate']);
    const banState = f.oneOf(
      body,
      'banState',
      '',
      CHATA_BAN_STATES.filter((s) => s !== 'UNRECOGNIZED'),
      true,
    );
    const banDate = f.string(body, 'banDate', '', { pattern: /^\d{4}-\d{2}-\d{2}T/, patternText: 'must be an ISO 8601 date-time' });
    f.check();
    if (!ctx.accounts.byProject(projectId)) throw notFound('Account (project)', projectId);
    const account = accountOf(store, projectId);
    const now = nowIso();
    account.banState = banState!;
    account.banDate = banDate ?? now;
    account.updateTime = now;
    const event = hub.emit({
      projectId,
      trigger: 'CHATA_WABA_ACCOUNT_CHANGED',
      channel: 'CHATA',
      resourceType: 'ACCOUNT',
      resourceId: account.id,
      details: { banState: banState! },
    });
    return { account, event };
  });
}
