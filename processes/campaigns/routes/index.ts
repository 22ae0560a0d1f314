// Batch sends (areas C, D): start a campaign by your key (the recipients go to the campaign store, never into
// the workflow's payloads), read its state and counts, page through per-recipient outcomes, and pause,
// resume, cancel or change its rate. Counts come from the store, where the delivery intakes aggregate reports.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Client } from '@temporalio/client';
import Type from 'typebox';
import { ulid } from 'ulid';
import type { Config } from '../../../common/config.js';
import {
  cancelCampaignUpdate,
  pauseCampaignUpdate,
  resumeCampaignUpdate,
  setCampaignRateUpdate,
  type CampaignInput,
  type CampaignKind,
  type CampaignOperationOutcome,
  type ConversationChannel,
  type ConversationContent,
  type QuietHours,
  secondsOfDay,
} from '../contract.js';
import { placeholdersIn } from '../placeholders.js';
import type { ProvisioningClient } from '../../../platform/provisioning/client.js';
import { workflowIds } from '../../kinds.js';
import { mmsViolations } from '../../../platform/mms/rules.js';
import type { CampaignStore, RecipientStatus } from '../../../store/index.js';
import { ApiError, invalid, storeRequired, unprocessable } from '../../../api/errors.js';
import { PageTokens, pageTokenKey, type ProcessService } from '../../../api/processes/find.js';
import { Paging } from '../../../api/schemas.js';
import { processRouter, reasonAction } from '../../../api/routes/process-routes.js';
import { parseRecipientsCsv } from './csv-recipients.js';
import { prepareRecipients, requestHash, type RecipientEntry } from './recipients.js';
import { resolveTemplate } from './templates.js';
import {
  CampaignStarted,
  CampaignView,
  MAX_PARAM_LENGTH,
  MAX_PARAMS,
  MAX_RECIPIENTS,
  Outcome,
  RateBody,
  RecipientPage,
  RecipientStatusFilter,
  START_BODY_LIMIT,
  StartConversationCampaign,
  MAX_SCHEDULE_DAYS,
  StartMmsCampaign,
} from './schemas.js';
import { currentTenant } from '../../../api/plugins/actor.js';
import type { CustomerProjectCheck } from '../../../api/processes/customer-project.js';

export interface CampaignRouteOptions {
  client: Client;
  processes: ProcessService;
  config: Pick<Config, 'taskQueue' | 'platform' | 'processes' | 'codecKeys'>;
  store?: CampaignStore;
  /** The app's provisioning client (its calls counted and traced): reads a template campaign's template. */
  provisioning: ProvisioningClient;
  /** Refuses a project a customer's key names that is not its own customer's subproject. */
  customerProject: CustomerProjectCheck;
}

export const campaignRoutes: FastifyPluginAsyncTypebox<CampaignRouteOptions> = async (
  app,
  { client, processes, config, store: maybeStore, provisioning, customerProject },
) => {
  const projectId = config.platform.credentials.projectId;
  const campaigns = processRouter(app, { client, processes, taskQueue: config.taskQueue }, '/v1/campaigns', 'campaign');
  const settings = config.processes.campaigns;
  const pageTokens = new PageTokens(pageTokenKey(config.codecKeys));
  const store = storeRequired<CampaignStore>(maybeStore, 'campaign_store_unavailable', 'the campaign store is not configured');

  /** Stores the campaign (once per process ID) and starts its process; the same key again answers the same campaign. */
  async function start(
    kind: CampaignKind,
    key: string | undefined,
    content: Pick<CampaignInput, 'conversation' | 'mms'>,
    recipients: readonly RecipientEntry[],
    defaultCountry: string | undefined,
    when: { rate?: number | undefined; startAt?: string | undefined; quietHours?: QuietHours | undefined },
    placeholders: readonly string[] = [],
  ) {
    const { rate, quietHours } = when;
    if (quietHours && secondsOfDay(quietHours.from) === secondsOfDay(quietHours.to))
      throw unprocessable('body.quietHours.to', 'differs_from_from', 'must differ from `from` (quiet hours of no length, or of the whole day)');
    const startAt = when.startAt === undefined ? undefined : startTimeOf(when.startAt, Date.now());
    const s = store();
    const tenant = currentTenant();
    const prepared = prepareRecipients(recipients, defaultCountry, placeholders);
    const processId = workflowIds[kind](projectId, key ?? ulid());
    const hash = requestHash({ kind, content, rate, ...(when.startAt ? { startAt: when.startAt } : {}), ...(quietHours ? { quietHours } : {}) }, prepared.rows);
    const { campaign } = await s.createCampaign({
      id: ulid(),
      processId,
      kind,
      requestHash: hash,
      recipients: prepared.rows,
      total: prepared.total,
      duplicates: prepared.duplicates,
      ...(rate ? { rate } : {}),
      ...(tenant ? { tenant } : {}),
    });
    if (campaign.requestHash !== hash)
      throw new ApiError(409, 'key_in_use', `the key ${key} already names another campaign (${processId}): use a new key for a new campaign`);
    const input: CampaignInput = {
      campaignId: campaign.id,
      kind,
      ...content,
      ...(rate ? { rate } : {}),
      ...(startAt ? { startAt } : {}),
      ...(quietHours ? { quietHours } : {}),
      settings: {
        chunkSize: settings.chunkSize,
        chunkSeconds: settings.chunkSeconds,
        sendTaskQueue: settings.sendTaskQueue,
        controlTaskQueue: settings.controlTaskQueue,
        heartbeatTimeoutMs: settings.heartbeatTimeoutMs,
        inDoubtWaitMs: settings.inDoubtWaitMs,
      },
    };
    // Never a second run: a campaign's key answers the same campaign even after it ended (nothing is sent twice).
    const started = await campaigns.startBuilt(
      { errors: [], kind, processId, input },
      { reuse: 'after-failure', initialState: startAt ? 'SCHEDULED' : 'PREPARING' },
    );
    return {
      status: started.status,
      body: {
        processId,
        campaignId: campaign.id,
        kind,
        created: started.body.created,
        counts: { total: campaign.total, valid: campaign.valid, invalid: campaign.invalid, duplicates: campaign.duplicates },
        invalid: prepared.invalid,
        links: { self: campaigns.self(processId), recipients: `${campaigns.self(processId)}/recipients` },
      },
    };
  }

  const startResponses = { 202: CampaignStarted, 200: CampaignStarted };
  campaigns.start({
    segment: 'conversation',
    bodyLimit: START_BODY_LIMIT,
    summary: `Send one conversation message to up to ${MAX_RECIPIENTS.toLocaleString('en')} recipients at the app's rate`,
    body: StartConversationCampaign,
    responses: startResponses,
    errors: [400, 401, 409, 413, 422, 502, 503],
    start: async ({ body: b }) => {
      await customerProject('body.projectId', b.projectId);
      const recipients = recipientsOf(b);
      const channel = (b.channel ?? 'SMS') as ConversationChannel;
      const m = b.message;
      const template = 'template' in m ? await resolveTemplate(provisioning.forProject(b.projectId), channel, m.template) : undefined;
      const conversation: ConversationContent = {
        appId: b.appId,
        ...(b.projectId ? { projectId: b.projectId } : {}),
        region: b.region,
        channel,
        ...('text' in m ? { text: m.text } : 'mediaUrl' in m ? { mediaUrl: m.mediaUrl } : { template: template! }),
      };
      // A template's placeholders, or a text's own ({{name}}): each recipient needs a value for every one.
      const placeholders = template ? template.placeholders : 'text' in m ? placeholdersIn([m.text]) : [];
      return start(
        'conversation-campaign',
        b.key,
        { conversation },
        recipients,
        b.defaultCountry,
        { rate: b.rate, startAt: b.startAt, quietHours: b.quietHours },
        placeholders,
      );
    },
  });

  campaigns.start({
    segment: 'mms',
    bodyLimit: START_BODY_LIMIT,
    summary: `Send one MMS to up to ${MAX_RECIPIENTS.toLocaleString('en')} recipients within the account's throughput (E113 means slow down)`,
    body: StartMmsCampaign,
    responses: startResponses,
    errors: [400, 401, 409, 413, 422, 503],
    start: ({ body }) => {
      const { key, recipients, defaultCountry, rate, startAt, quietHours, toDisplayOnly, ...message } = body;
      const violations = mmsViolations(message, Date.now());
      if (violations.length) throw invalid(violations);
      const mms = { ...message, ...(toDisplayOnly?.length ? { toDisplayOnly: toDisplayOnly.map((n) => n.replace(/[^\d]/g, '')).join(',') } : {}) };
      return start('mms-campaign', key, { mms }, recipients, defaultCountry, { rate, startAt, quietHours });
    },
  });

  // Every kind at /v1/campaigns (by kind), and the same list under each start route's path (as /v1/senders/rcs has).
  campaigns.list({
    summary: (segment, kind) =>
      segment ? `List ${kind}s, optionally by state` : 'List campaigns, optionally by kind and state (SENDING, PAUSED, COMPLETED, ...)',
  });

  campaigns.read({
    summary: 'A campaign: state and history, rate, and counts (queued, sent, delivered, failed with reasons, in doubt, ...)',
    response: CampaignView,
    errors: [503],
    get: async ({ params: { processId } }) => {
      const view = await processes.get(processId);
      const campaign = await store().getCampaignOfProcess(processId);
      const c = campaign ? await store().counts(campaign.id) : undefined;
      const by = c?.byStatus;
      const counts = {
        total: c?.total ?? 0,
        duplicates: c?.duplicates ?? 0,
        queued: by?.pending ?? 0,
        waiting: by?.waiting ?? 0,
        sending: by?.sending ?? 0,
        sent: by?.sent ?? 0,
        failed: by?.failed ?? 0,
        invalid: by?.invalid ?? 0,
        inDoubt: by?.in_doubt ?? 0,
        unconfirmed: by?.unconfirmed ?? 0,
        cancelled: by?.cancelled ?? 0,
        suppressed: by?.suppressed ?? 0,
        delivery: c?.delivery ?? {},
        reasons: c?.reasons ?? [],
      };
      const valid = campaign?.valid ?? 0;
      return { ...view, counts, progress: valid ? Math.min(1, (valid - counts.queued - counts.waiting - counts.sending) / valid) : 1 };
    },
  });

  campaigns.read({
    below: 'recipients',
    summary: 'Per-recipient outcomes in the order given: status, attempts, the platform message ID, delivery, reasons',
    querystring: Type.Object({ status: Type.Optional(RecipientStatusFilter), ...Paging }, { additionalProperties: false }),
    response: RecipientPage,
    errors: [400, 503],
    get: async ({ params: { processId }, query }) => {
      let afterSeq = -1;
      if (query.pageToken) {
        const raw = pageTokens.decode(query.pageToken);
        if (!raw || raw.length !== 4)
          throw new ApiError(400, 'validation_failed', 'query.pageToken: is not a token this API gave out', [
            { field: 'query.pageToken', rule: 'page_token', message: 'is not a token this API gave out: pass the nextPageToken of the previous page as it is' },
          ]);
        afterSeq = raw.readInt32BE(0);
      }
      const campaign = await store().getCampaignOfProcess(processId);
      if (!campaign) throw new ApiError(404, 'not_found', `campaign process ${processId} was not found`);
      const limit = query.pageSize ?? 50;
      const rows = await store().recipients(campaign.id, { limit, afterSeq, ...(query.status ? { status: query.status as RecipientStatus } : {}) });
      const last = rows.at(-1);
      const next =
        rows.length === limit && last
          ? (() => {
              const b = Buffer.alloc(4);
              b.writeInt32BE(last.seq, 0);
              return pageTokens.encode(b);
            })()
          : '';
      return { recipients: rows, nextPageToken: next };
    },
  });

  const operations = [
    ['pause', pauseCampaignUpdate, 'Pause: running chunks stop within a second; the answer comes once nothing is sending'],
    ['resume', resumeCampaignUpdate, 'Resume a paused campaign (one the platform refused: after fixing the cause)'],
    ['cancel', cancelCampaignUpdate, 'Cancel: nothing more is sent; the recipients not yet sent are marked cancelled'],
  ] as const;
  for (const [action, update, summary] of operations) {
    campaigns.action(reasonAction({ action, summary, update: update as typeof pauseCampaignUpdate, responses: { 200: Outcome }, answer: acceptedOrThrow }));
  }

  campaigns.action({
    action: 'rate',
    operationId: 'setCampaignRate',
    summary: "Change the send rate (messages per second, capped at the platform's limit); running chunks follow within a second",
    body: RateBody,
    responses: { 200: Outcome },
    errors: [400, 401, 404, 409],
    update: setCampaignRateUpdate,
    request: (req, operationId) => ({ operationId, rate: req.body.rate }),
    answer: acceptedOrThrow,
  });
};

/** The recipients as a list, from `recipients` or `recipientsCsv` (exactly one of the two). */
function recipientsOf(b: { recipients?: RecipientEntry[]; recipientsCsv?: string }): readonly RecipientEntry[] {
  if (!!b.recipients === (b.recipientsCsv !== undefined))
    throw unprocessable(
      'body.recipients',
      'one_of',
      'give the recipients either as recipients (a list) or as recipientsCsv (CSV text), exactly one of the two',
    );
  return b.recipients ?? parseRecipientsCsv(b.recipientsCsv!, { maxRows: MAX_RECIPIENTS, maxParams: MAX_PARAMS, maxValue: MAX_PARAM_LENGTH });
}

function acceptedOrThrow(o: CampaignOperationOutcome): CampaignOperationOutcome {
  if (!o.accepted) throw new ApiError(409, 'not_allowed', o.reason ?? 'not allowed in the current state');
  return o;
}

/**
 * A start time as the workflow gets it (ISO, UTC), or undefined when it is not ahead (a clock a little behind starts at
 * once). Refused naming body.startAt when it is past by more than a minute or further ahead than MAX_SCHEDULE_DAYS.
 */
export function startTimeOf(startAt: string, now: number): string | undefined {
  const at = Date.parse(startAt);
  if (at < now - 60_000) throw unprocessable('body.startAt', 'not_past', 'is in the past: leave it out to start at once');
  if (at > now + MAX_SCHEDULE_DAYS * 86_400_000) throw unprocessable('body.startAt', 'max_days_ahead', `must be at most ${MAX_SCHEDULE_DAYS} days ahead`);
  return at > now ? new Date(at).toISOString() : undefined;
}
