// What the template and sender routes share: their options, answers, follow settings, and the reading
// of an operation's outcome (the process accepted it, or says why not).
import type { SubjectHasher } from '../../../common/subject-hash.js';
import type { Client } from '@temporalio/client';
import type { FastifyBaseLogger } from 'fastify';
import type { ProvisioningClient } from '../../../platform/provisioning/client.js';
import type { Config } from '../../../common/config.js';
import type { FollowSettings, OperationOutcome } from '../contract.js';
import { ApiError } from '../../../api/errors.js';
import type { ProcessService } from '../../../api/processes/find.js';
import type { BuiltProcess } from '../../../api/processes/start.js';
import type { CustomerProjectCheck } from '../../../api/processes/customer-project.js';

export interface ProvisioningRouteOptions {
  client: Client;
  processes: ProcessService;
  config: Pick<Config, 'taskQueue' | 'platform' | 'processes'>;
  /** Read-only look-ups that make validation errors precise (questionnaire, CHATB categories). */
  provisioning: ProvisioningClient;
  /** Workflow IDs are not encrypted: a sender's phone number appears in them only as this keyed hash. */
  hashSubject: SubjectHasher;
  /** Refuses a project a customer's key names that is not its own customer's subproject. */
  customerProject: CustomerProjectCheck;
}

/**
 * A process that follows its resource for months continues as new at this history length, not at Temporal's
 * suggestion (4,096 events): a worker taking over many such processes at once (the other one died) replays each
 * in full, and long replays ran past the workflow task timeout, over and over, in the cluster soak.
 * About 12 h of polls at the default interval; continuing costs one action each time.
 */
const FOLLOW_HISTORY_LIMIT = 1_000;

export function followSettings(config: Pick<Config, 'processes'>, overdueAfterSeconds?: number): FollowSettings {
  const { pollIntervalMs, overdueAfterMs } = config.processes.provisioning;
  return {
    pollIntervalMs,
    overdueAfterMs: overdueAfterSeconds !== undefined ? overdueAfterSeconds * 1000 : overdueAfterMs,
    historyLimit: FOLLOW_HISTORY_LIMIT,
  };
}

/** An operation the process did not accept: 422 when the platform refused the change itself, else 409. */
export function acceptedOrThrow(outcome: OperationOutcome): OperationOutcome {
  if (outcome.accepted) return outcome;
  if (outcome.errorType === 'PlatformValidationError') throw new ApiError(422, 'platform_rejected', outcome.reason ?? 'the platform refused the change');
  throw new ApiError(409, 'not_allowed', outcome.reason ?? 'not allowed in the current state');
}

/** A platform read used only to make errors precise: when it fails, the process reports the platform's answer later. */
export async function lookup<T>(log: FastifyBaseLogger, what: string, read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (err) {
    log.warn({ err }, `${what} could not be read; validated by the platform later`);
    return undefined;
  }
}

/**
 * The process built for the platform project, made in `projectId` instead when the start names one (its ID stays the
 * platform project's, as an onboarding's steps do). A customer's key may name only one of its customer's subprojects.
 */
export async function inProjectOf<I extends { projectId: string }>(
  customerProject: CustomerProjectCheck,
  projectId: string | undefined,
  build: () => BuiltProcess<I> | Promise<BuiltProcess<I>>,
): Promise<BuiltProcess<I>> {
  const built = await build();
  if (built.errors.length) return built;
  await customerProject('body.projectId', projectId);
  return projectId === undefined ? built : { ...built, input: { ...built.input, projectId } };
}
