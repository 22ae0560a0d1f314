// The geo permissions as the API applies them: the rules set through the API live in the geo-rules workflow
// (workflows/verification/geo-rules.ts), shared by every API instance; each instance keeps what it read for
// RELAYFLOW_VERIFICATION_GEO_CACHE_MS (2 s), so a change reaches every instance within that. The configured rules
// and default (common/config.ts) come after the API's. A start the rules refuse is refused here, before the
// per-number guard, a process or a platform call: nothing is started and nothing is sent.
import { WithStartWorkflowOperation, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { GeoSettings } from '../../../common/config.js';
import { allowsEverything, decideGeo, describeGeoDecision, numberFacts, type GeoDecision, type GeoRuleSet } from '../../../common/verification-geo.js';
import {
  GEO_VERSION_CONFLICT,
  geoRulesQuery,
  geoRulesWorkflowId,
  setGeoRulesUpdate,
  type GeoRulesState,
  type SetGeoRulesRequest,
} from '../../../contracts/verification.js';
import type { verificationGeoRules } from '../../../workflows/verification/geo-rules.js';
import { ApiError } from '../../errors.js';
import { geoRefusals } from '../../metrics/series.js';
import { callTemporal } from '../../processes/temporal-errors.js';

/** The rules before anyone set any through the API (the workflow does not exist yet). */
const NONE_SET: GeoRulesState = { rules: [], version: 0 };
/** The longest a start waits for the rules when this instance has none it may use. */
const READ_WAIT_MS = 5_000;

export interface GeoRefusal {
  decision: GeoDecision;
  /** Names the rule, never the number. */
  message: string;
  /** The index of the first refused step. */
  step: number;
}

export class GeoRules {
  readonly workflowId: string;
  private cached?: { state: GeoRulesState; readAt: number };
  private reading?: Promise<GeoRulesState>;

  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
    readonly settings: GeoSettings,
  ) {
    this.workflowId = geoRulesWorkflowId(taskQueue);
  }

  /**
   * The rules set through the API as of at most `cacheMs` ago; past that one read (shared by the starts that
   * need it) within READ_WAIT_MS. When the read fails, the last rules read are used if there are any (Temporal
   * unreachable: a start could not go on anyway); else the read's 503 or 504.
   */
  async current(deadline: number): Promise<GeoRulesState> {
    const cached = this.cached;
    if (cached && Date.now() - cached.readAt < this.settings.cacheMs) return cached.state;
    this.reading ??= this.read(Math.min(deadline, Date.now() + READ_WAIT_MS)).finally(() => (this.reading = undefined));
    try {
      return await this.reading;
    } catch (err) {
      if (this.cached) return this.cached.state;
      throw err;
    }
  }

  /** The rules from the workflow itself, now (what GET shows). */
  async read(deadline: number): Promise<GeoRulesState> {
    const sentAt = Date.now();
    const state = await callTemporal(
      this.client,
      this.workflowId,
      async () => {
        try {
          return await this.client.workflow.getHandle(this.workflowId).query(geoRulesQuery);
        } catch (err) {
          if (err instanceof WorkflowNotFoundError) return NONE_SET;
          throw err;
        }
      },
      { what: 'geo rules workflow', waitMs: deadline - Date.now() },
    );
    this.remember(state, sentAt);
    return state;
  }

  /** Replaces the rules set through the API (starting the workflow the first time); 409 version_conflict on a stale expectedVersion. */
  async set(request: SetGeoRulesRequest, deadline: number): Promise<GeoRulesState> {
    const sentAt = Date.now();
    const state = await callTemporal(
      this.client,
      this.workflowId,
      () =>
        this.client.workflow.executeUpdateWithStart(setGeoRulesUpdate, {
          args: [request],
          startWorkflowOperation: new WithStartWorkflowOperation<typeof verificationGeoRules>('verificationGeoRules', {
            workflowId: this.workflowId,
            taskQueue: this.taskQueue,
            args: [NONE_SET],
            workflowIdConflictPolicy: 'USE_EXISTING',
          }),
        }),
      { what: 'geo rules workflow', waitMs: deadline - Date.now() },
    ).catch((err: unknown) => {
      if (err instanceof ApiError && err.statusCode === 409 && err.message.startsWith(GEO_VERSION_CONFLICT)) {
        throw new ApiError(409, GEO_VERSION_CONFLICT, `body.expectedVersion: ${err.message}`, [
          { field: 'body.expectedVersion', rule: 'version', message: err.message },
        ]);
      }
      throw err;
    });
    this.remember(state, sentAt);
    return state;
  }

  /** The API's rules over the configuration's. */
  ruleSet(state: GeoRulesState): GeoRuleSet {
    return {
      api: state.rules,
      config: this.settings.rules,
      defaultAction: state.defaultAction ?? this.settings.defaultAction,
      defaultSource: state.defaultAction ? 'api' : 'config',
    };
  }

  /** What a start of this method to this number would be told now (the cached rules, as a start reads them). */
  async decide(identity: string, method: string, deadline: number): Promise<GeoDecision> {
    return decideGeo(this.ruleSet(await this.current(deadline)), numberFacts(identity), method);
  }

  /**
   * The first of these steps' methods the rules refuse for the number, counted in
   * relayflow_verification_geo_refusals_total; undefined when every step may go.
   */
  async refusal(identity: string, methods: readonly string[], deadline: number, via: 'api' | 'platform'): Promise<GeoRefusal | undefined> {
    const set = this.ruleSet(await this.current(deadline));
    if (allowsEverything(set)) return undefined;
    const facts = numberFacts(identity);
    for (const [step, method] of methods.entries()) {
      const decision = decideGeo(set, facts, method);
      if (decision.allowed) continue;
      geoRefusals.inc({
        method,
        country: facts.country ?? 'none',
        rule: decision.rule?.id ?? 'default',
        source: decision.rule?.source ?? 'default',
        via,
      });
      return { decision, message: describeGeoDecision(decision), step };
    }
    return undefined;
  }

  /** Keeps the newest read: one sent before a change but answered after it does not replace the change. */
  private remember(state: GeoRulesState, readAt: number): void {
    if (!this.cached || readAt >= this.cached.readAt) this.cached = { state, readAt };
  }
}
