// The geo permissions set through the API: one long-lived workflow per deployment (verification-geo-rules:<task
// queue>) holds them, so every API instance and worker reads the same rules and a restart forgets nothing. A
// change is an update (its history is the audit of every change, with the API key ID that made it); reads are
// queries, which the API caches briefly (api/routes/verification/geo-rules.ts). No timer: it waits only for its
// next change, and continues as new before its history gets long.
import { allHandlersFinished, condition, continueAsNew, setHandler, workflowInfo } from '@temporalio/workflow';
import { GEO_VERSION_CONFLICT, geoRulesQuery, setGeoRulesUpdate, type GeoRulesState } from '../../contracts/verification.js';

/** Changes per run; the rules carry over. */
const UPDATES_PER_RUN = 200;
/** A bound against a client that bypasses the API's schema (the API allows 200). */
const MAX_RULES = 1_000;

export async function verificationGeoRules(input: GeoRulesState): Promise<void> {
  let state = input;
  let updates = 0;

  setHandler(geoRulesQuery, () => state);
  setHandler(
    setGeoRulesUpdate,
    ({ rules, defaultAction, actor }) => {
      updates += 1;
      state = {
        rules,
        ...(defaultAction ? { defaultAction } : {}),
        version: state.version + 1,
        updatedAt: Date.now(),
        ...(actor ? { updatedBy: actor } : {}),
      };
      return state;
    },
    {
      validator: ({ rules, expectedVersion }) => {
        if (!Array.isArray(rules) || rules.length > MAX_RULES) throw new Error(`rules: at most ${MAX_RULES}`);
        if (expectedVersion !== undefined && expectedVersion !== state.version) {
          throw new Error(`${GEO_VERSION_CONFLICT}: the rules are at version ${state.version}, not ${expectedVersion}: read them again`);
        }
      },
    },
  );

  // Reacts only once every handler has answered: a change never races its own answer (docs/testing.md).
  await condition(() => (updates >= UPDATES_PER_RUN || workflowInfo().continueAsNewSuggested) && allHandlersFinished());
  await continueAsNew<typeof verificationGeoRules>(state);
}
