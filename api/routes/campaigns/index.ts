// Batch sends (areas C, D): start a campaign by your key (the recipients go to the campaign store, never into
// the workflow's payloads), read its state and counts, page through per-recipient outcomes, and pause,
// resume, cancel or change its rate. Counts come from the store, where the delivery intakes aggregate reports.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Client } from '@temporalio/client';
import Type from 'typebox';
import { ulid } from 'ulid';
import type { Config } from '../../../common/config.js';
import {
  CAMPAIGN_KINDS,
  cancelCampaignUpdate,
  pauseCampaignUpdate,
  resumeCampaignUpdate,
  setCampaignRateUpdate,
  type CampaignInput,
  type CampaignKind,
  type CampaignOperationOutcome,
  type ConversationChannel,
} from '../../../contracts/campaigns.js';
import { workflowIds, type ProcessKind } from '../../../contracts/ids.js';
import { mmsViolations } from '../../../platform/mms/rules.js';
import type { CampaignStore, RecipientStatus } from '../../../store/index.js';
import { ApiError, errorResponses, invalid } from '../../errors.js';
import { PageTokens, pageTokenKey, type ProcessService } from '../../processes/find.js';
import { startProcess } from '../../processes/start.js';
import { handleOf, IdempotencyKey, operationId, runUpdate } from '../../processes/update.js';
import { Paging, ProcessId, ProcessList, ReasonBody, StateFilter } from '../../schemas.js';
import { listRoute } from '../process-routes.js';
import { prepareRecipients, requestHash } from './recipients.js';
import {
  CampaignStarted,
  CampaignView,
  MAX_RECIPIENTS,
  Outcome,
  RateBody,
  RecipientPage,
  RecipientStatusFilter,
  START_BODY_LIMIT,
  StartConversationCampaign,
  StartMmsCampaign,
} from './schemas.js';

export interface CampaignRouteOptions {
  client: Client;
  processes: ProcessService;
  config: Pick<Config, 'taskQueue' | 'platform' | 'processes' | 'codecKeys'>;
  store?: CampaignStore;
}

const KINDS: readonly ProcessKind[] = CAMPAIGN_KINDS;
const self = (processId: string) => `/v1/campaigns/${encodeURIComponent(processId)}`;

export const campaignRoutes: FastifyPluginAsyncTypebox<CampaignRouteOptions> = async (app, { client, processes, config, store: maybeStore }) => {
  const projectId = config.platform.credentials.projectId;
  const settings = config.processes.campaigns;
  const pageTokens = new PageTokens(pageTokenKey(config.codecKeys));
  const store = (): CampaignStore => {
    if (!maybeStore)
      throw new ApiError(
        503,
        'campaign_store_unavailable',
        'the campaign store is not configured: set RELAYFLOW_DATABASE_URL (PostgreSQL) for the API and the workers',
      );
    return maybeStore;
  };

  /** Stores the campaign (once per process ID) and starts its process; the same key again answers the same campaign. */
  async function start(
    kind: CampaignKind,
    key: string | undefined,
    content: Pick<CampaignInput, 'conversation' | 'mms'>,
    recipients: string[],
    defaultCountry: string | undefined,
    rate: number | undefined,
  ) {
    const s = store();
    const prepared = prepareRecipients(recipients, defaultCountry);
    const processId = workflowIds[kind](projectId, key ?? ulid());
    const hash = requestHash({ kind, content, rate }, prepared.rows);
    const { campaign } = await s.createCampaign({
      id: ulid(),
      processId,
      kind,
      requestHash: hash,
      recipients: prepared.rows,
      total: prepared.total,
      duplicates: prepared.duplicates,
      ...(rate ? { rate } : {}),
    });
    if (campaign.requestHash !== hash)
      throw new ApiError(409, 'key_in_use', `the key ${key} already names another campaign (${processId}): use a new key for a new campaign`);
    const input: CampaignInput = {
      campaignId: campaign.id,
      kind,
      ...content,
      ...(rate ? { rate } : {}),
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
    const started = await startProcess(client, {
      workflowType: 'campaign',
      kind,
      processId,
      taskQueue: config.taskQueue,
      args: [input],
      reuse: 'after-failure',
      initialState: 'PREPARING',
      self,
    });
    return {
      status: started.status,
      body: {
        processId,
        campaignId: campaign.id,
        kind,
        created: started.body.created,
        counts: { total: campaign.total, valid: campaign.valid, invalid: campaign.invalid, duplicates: campaign.duplicates },
        invalid: prepared.invalid,
        links: { self: self(processId), recipients: `${self(processId)}/recipients` },
      },
    };
  }

  app.post(
    '/v1/campaigns/conversation',
    {
      bodyLimit: START_BODY_LIMIT,
      schema: {
        tags: ['campaigns'],
        summary: `Send one conversation message to up to ${MAX_RECIPIENTS.toLocaleString('en')} recipients at the app's rate`,
        body: StartConversationCampaign,
        response: { 202: CampaignStarted, 200: CampaignStarted, ...errorResponses(400, 401, 409, 413, 503) },
      },
    },
    async (req, reply) => {
      const b = req.body;
      const conversation = {
        appId: b.appId,
        region: b.region,
        channel: (b.channel ?? 'SMS') as ConversationChannel,
        ...('text' in b.message ? { text: b.message.text } : { mediaUrl: b.message.mediaUrl }),
      };
      const r = await start('conversation-campaign', b.key, { conversation }, b.recipients, b.defaultCountry, b.rate);
      return reply.status(r.status).send(r.body);
    },
  );

  app.post(
    '/v1/campaigns/mms',
    {
      bodyLimit: START_BODY_LIMIT,
      schema: {
        tags: ['campaigns'],
        summary: `Send one MMS to up to ${MAX_RECIPIENTS.toLocaleString('en')} recipients within the account's throughput (E113 means slow down)`,
        body: StartMmsCampaign,
        response: { 202: CampaignStarted, 200: CampaignStarted, ...errorResponses(400, 401, 409, 413, 422, 503) },
      },
    },
    async (req, reply) => {
      const { key, recipients, defaultCountry, rate, toDisplayOnly, ...message } = req.body;
      const violations = mmsViolations(message, Date.now());
      if (violations.length) throw invalid(violations);
      const mms = { ...message, ...(toDisplayOnly?.length ? { toDisplayOnly: toDisplayOnly.map((n) => n.replace(/[^\d]/g, '')).join(',') } : {}) };
      const r = await start('mms-campaign', key, { mms }, recipients, defaultCountry, rate);
      return reply.status(r.status).send(r.body);
    },
  );

  app.get(
    '/v1/campaigns',
    {
      schema: {
        tags: ['campaigns'],
        summary: 'List campaigns, optionally by kind and state (SENDING, PAUSED, COMPLETED, ...)',
        querystring: Type.Object(
          { kind: Type.Optional(Type.Union(CAMPAIGN_KINDS.map((k) => Type.Literal(k)))), state: Type.Optional(StateFilter), ...Paging },
          { additionalProperties: false },
        ),
        response: { 200: ProcessList, ...errorResponses(400, 401) },
      },
    },
    async (req) =>
      processes.list({ kind: req.query.kind ?? 'conversation-campaign', state: req.query.state, pageSize: req.query.pageSize, pageToken: req.query.pageToken }),
  );

  // The same list under each start route's path (as /v1/senders/rcs and /v1/templates/chata have theirs).
  for (const [segment, kind] of [
    ['conversation', 'conversation-campaign'],
    ['mms', 'mms-campaign'],
  ] as const) {
    listRoute(app, processes, { path: `/v1/campaigns/${segment}`, tag: 'campaigns', kind, summary: `List ${kind}s, optionally by state` });
  }

  app.get(
    '/v1/campaigns/:processId',
    {
      schema: {
        tags: ['campaigns'],
        summary: 'A campaign: state and history, rate, and counts (queued, sent, delivered, failed with reasons, in doubt, ...)',
        params: Type.Object({ processId: ProcessId }),
        response: { 200: CampaignView, ...errorResponses(401, 404, 503) },
      },
    },
    async (req) => {
      handleOf(client, req.params.processId, KINDS, 'campaign');
      const view = await processes.get(req.params.processId);
      const campaign = await store().getCampaignOfProcess(req.params.processId);
      const c = campaign ? await store().counts(campaign.id) : undefined;
      const by = c?.byStatus;
      const counts = {
        total: c?.total ?? 0,
        duplicates: c?.duplicates ?? 0,
        queued: by?.pending ?? 0,
        sending: by?.sending ?? 0,
        sent: by?.sent ?? 0,
        failed: by?.failed ?? 0,
        invalid: by?.invalid ?? 0,
        inDoubt: by?.in_doubt ?? 0,
        unconfirmed: by?.unconfirmed ?? 0,
        cancelled: by?.cancelled ?? 0,
        delivery: c?.delivery ?? {},
        reasons: c?.reasons ?? [],
      };
      const valid = campaign?.valid ?? 0;
      return { ...view, counts, progress: valid ? Math.min(1, (valid - counts.queued - counts.sending) / valid) : 1 };
    },
  );

  app.get(
    '/v1/campaigns/:processId/recipients',
    {
      schema: {
        tags: ['campaigns'],
        summary: 'Per-recipient outcomes in the order given: status, attempts, the platform message ID, delivery, reasons',
        params: Type.Object({ processId: ProcessId }),
        querystring: Type.Object({ status: Type.Optional(RecipientStatusFilter), ...Paging }, { additionalProperties: false }),
        response: { 200: RecipientPage, ...errorResponses(400, 401, 404, 503) },
      },
    },
    async (req) => {
      handleOf(client, req.params.processId, KINDS, 'campaign');
      let afterSeq = -1;
      if (req.query.pageToken) {
        const raw = pageTokens.decode(req.query.pageToken);
        if (!raw || raw.length !== 4)
          throw new ApiError(400, 'validation_failed', 'query.pageToken: is not a token this API gave out', [
            { field: 'query.pageToken', rule: 'page_token', message: 'is not a token this API gave out: pass the nextPageToken of the previous page as it is' },
          ]);
        afterSeq = raw.readInt32BE(0);
      }
      const campaign = await store().getCampaignOfProcess(req.params.processId);
      if (!campaign) throw new ApiError(404, 'not_found', `campaign process ${req.params.processId} was not found`);
      const limit = req.query.pageSize ?? 50;
      const rows = await store().recipients(campaign.id, { limit, afterSeq, ...(req.query.status ? { status: req.query.status as RecipientStatus } : {}) });
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
  );

  const operations = [
    ['pause', pauseCampaignUpdate, ReasonBody, 'Pause: running chunks stop within a second; the answer comes once nothing is sending'],
    ['resume', resumeCampaignUpdate, ReasonBody, 'Resume a paused campaign (one the platform refused: after fixing the cause)'],
    ['cancel', cancelCampaignUpdate, ReasonBody, 'Cancel: nothing more is sent; the recipients not yet sent are marked cancelled'],
  ] as const;
  for (const [segment, update, body, summary] of operations) {
    app.post(
      `/v1/campaigns/:processId/${segment}`,
      {
        schema: {
          tags: ['campaigns'],
          summary,
          params: Type.Object({ processId: ProcessId }),
          headers: IdempotencyKey,
          body: Type.Optional(body),
          response: { 200: Outcome, ...errorResponses(400, 401, 404, 409) },
        },
      },
      async (req) => {
        const handle = handleOf(client, req.params.processId, KINDS, 'campaign');
        const reason = (req.body as { reason?: string } | undefined)?.reason;
        const outcome = await runUpdate(
          client,
          handle,
          update as typeof pauseCampaignUpdate,
          [{ operationId: operationId(req.headers), ...(reason ? { reason } : {}) }],
          { what: 'campaign' },
        );
        return acceptedOrThrow(outcome);
      },
    );
  }

  app.post(
    '/v1/campaigns/:processId/rate',
    {
      schema: {
        tags: ['campaigns'],
        summary: "Change the send rate (messages per second, capped at the platform's limit); running chunks follow within a second",
        params: Type.Object({ processId: ProcessId }),
        headers: IdempotencyKey,
        body: RateBody,
        response: { 200: Outcome, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (req) => {
      const handle = handleOf(client, req.params.processId, KINDS, 'campaign');
      return acceptedOrThrow(
        await runUpdate(client, handle, setCampaignRateUpdate, [{ operationId: operationId(req.headers), rate: req.body.rate }], { what: 'campaign' }),
      );
    },
  );
};

function acceptedOrThrow(o: CampaignOperationOutcome): CampaignOperationOutcome {
  if (!o.accepted) throw new ApiError(409, 'not_allowed', o.reason ?? 'not allowed in the current state');
  return o;
}
