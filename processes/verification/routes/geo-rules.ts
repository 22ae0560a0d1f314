// The geo permissions as the API applies them: the rules set through the API live in the store
// (store/verification-geo-rules.ts), shared by every API instance; each instance keeps what it read for
// RELAYFLOW_VERIFICATION_GEO_CACHE_MS (2 s), so a change reaches every instance within that. The configured rules
// and default (common/config.ts) come after the API's. A start the rules refuse is refused here, before the
// per-number guard, a process or a platform call: nothing is started and nothing is sent.
import type { GeoSettings } from '../../../common/config.js';
import { allowsEverything, decideGeo, describeGeoDecision, numberFacts, type GeoDecision, type GeoRuleSet } from '../../../common/verification-geo.js';
import type { GeoRulesState, GeoRuleStore, SetGeoRulesRequest } from '../../../store/index.js';
import { ApiError } from '../../../api/errors.js';
import { geoRefusals } from '../../../api/metrics/series.js';
import { storeCall } from './store-call.js';

/** The longest a start waits for the rules when this instance has none it may use. */
const READ_WAIT_MS = 5_000;
/** The code of a refused change whose expectedVersion is not the current one. */
const GEO_VERSION_CONFLICT = 'version_conflict';

export interface GeoRefusal {
  decision: GeoDecision;
  /** Names the rule, never the number. */
  message: string;
  /** The index of the first refused step. */
  step: number;
}

export class GeoRules {
  private cached?: { state: GeoRulesState; readAt: number };
  private reading?: Promise<GeoRulesState>;

  constructor(
    private readonly store: () => GeoRuleStore,
    readonly settings: GeoSettings,
  ) {}

  /**
   * The rules set through the API as of at most `cacheMs` ago; past that one read (shared by the starts that
   * need it) within READ_WAIT_MS. When the read fails, the last rules read are used if there are any; else the
   * read's 503 or 504.
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

  /** The rules from the store itself, now (what GET shows). */
  async read(deadline: number): Promise<GeoRulesState> {
    const sentAt = Date.now();
    const store = this.store();
    const state = await storeCall('geo rules', deadline, () => store.read());
    this.remember(state, sentAt);
    return state;
  }

  /** Replaces the rules set through the API; 409 version_conflict on a stale expectedVersion (nothing changed). */
  async set(request: SetGeoRulesRequest, deadline: number): Promise<GeoRulesState> {
    const sentAt = Date.now();
    const store = this.store();
    const result = await storeCall('geo rules', deadline, () => store.set(request));
    if ('conflict' in result) {
      const message = `${GEO_VERSION_CONFLICT}: the rules are at version ${result.conflict}, not ${request.expectedVersion}: read them again`;
      throw new ApiError(409, GEO_VERSION_CONFLICT, `body.expectedVersion: ${message}`, [{ field: 'body.expectedVersion', rule: 'version', message }]);
    }
    this.remember(result.state, sentAt);
    return result.state;
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
