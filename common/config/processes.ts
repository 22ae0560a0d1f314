// How long the long-lived processes wait and poll (subprojects, provisioning, sender IDs, voice calls), and how
// campaigns send.
import Type, { type Static } from 'typebox';
import { millis, millisComputed, optionalText, whole } from './fields.js';
import type { VerificationSettings } from './verification.js';

export interface ProcessSettings {
  /** usableAfterMs: how long after creation a subproject is taken to be usable with its parent (spec part E: up to 30 s). */
  subproject: { usableAfterMs: number };
  verification: VerificationSettings;
  provisioning: ProvisioningSettings;
  senderid: SenderIdSettings;
  campaigns: CampaignSettings;
  voice: VoiceSettings;
}

interface ProvisioningSettings {
  /** Read the resource when no webhook has arrived for this long. */
  pollIntervalMs: number;
  /** Report a decision overdue after this long under review (the process keeps waiting). */
  overdueAfterMs: number;
  /** A resource inbox with nothing attached ends after receiving nothing for this long (a later event starts a new one). */
  inboxIdleMs: number;
}

interface SenderIdSettings {
  /** Read the registration when no callback has arrived for this long. */
  pollIntervalMs: number;
  /** Report a registration overdue this long after the platform's etaDate (it keeps waiting). */
  overdueGraceMs: number;
}

export interface VoiceSettings {
  /** How long a callback's intake waits for the call's process to answer; past it the spec's fallback is answered. */
  answerDeadlineMs: number;
  /** Read a call from the platform when no callback has come for this long. */
  checkEveryMs: number;
  /** How long a callout whose answer was lost waits for a callback naming its call before it counts as not placed. */
  inDoubtWaitMs: number;
}

interface CampaignSettings {
  /** The task queue of the send activities; its workers cap chunk starts across all workers (Temporal's task-queue rate limit). */
  sendTaskQueue: string;
  /**
   * The campaigns' other activities (prepare, rate, halt, settle): `<sendTaskQueue>-control`, served by the same
   * workers but not rate-limited, so a pause never waits behind chunk starts.
   */
  controlTaskQueue: string;
  /** Recipients per send activity (chunk) at least: fewer actions per message, more work redone by nobody (progress is in the store). */
  chunkSize: number;
  /**
   * A fast campaign's chunk holds this many seconds of sending (more rows than chunkSize): between two chunks a
   * window slot idles for a workflow task and an activity dispatch, which long chunks make rare. 0: chunkSize only.
   */
  chunkSeconds: number;
  /** The platform's per-project request budget (conversation: 800/s), shared by every campaign through the task-queue rate limit. */
  projectRequestsPerSecond: number;
  /** The MMS account's throughput limit per second, set at onboarding (E113 beyond it). */
  mmsThroughputPerSecond: number;
  /** A send activity that stops heartbeating for this long is retried elsewhere (a killed worker). */
  heartbeatTimeoutMs: number;
  /** How long an MMS whose answer was lost may wait for a postback to confirm it before it is reported unconfirmed. */
  inDoubtWaitMs: number;
}

const DAY = 86_400_000;

export const PROCESS_VARIABLES = Type.Object({
  RELAYFLOW_SUBPROJECT_USABLE_AFTER_MS: millisComputed(
    0,
    600_000,
    'how long after its creation a subproject is taken to be usable with its parent (the spec\'s "up to 30 seconds"; the sandbox\'s default wait); a subproject process is `READY` then (docs/subprojects-wire.md)',
    { 'x-default': 'platform: `30000`; sandbox: `5000`' },
  ),
  RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS: millis(300_000, 100, DAY, 'with no webhook for this long, a process reads its resource from the platform'),
  RELAYFLOW_PROVISIONING_OVERDUE_AFTER_MS: millis(7 * DAY, 100, 365 * DAY, 'after this, a waiting approval is reported overdue (it keeps waiting)'),
  RELAYFLOW_INBOX_IDLE_MS: millis(
    30 * DAY,
    1_000,
    365 * DAY,
    'a resource inbox with no running process attached ends after receiving nothing for this long (the next event starts a fresh one)',
  ),
  RELAYFLOW_SENDERID_POLL_INTERVAL_MS: millis(
    3_600_000,
    100,
    7 * DAY,
    'with no callback for this long, a registration process reads its registration from the platform',
  ),
  RELAYFLOW_SENDERID_OVERDUE_GRACE_MS: millis(
    0,
    0,
    365 * DAY,
    "a registration is reported overdue this long after the platform's `etaDate` (it keeps waiting)",
  ),
  RELAYFLOW_SEND_TASK_QUEUE: optionalText(
    "the send activities' task queue; its workers cap chunk starts across all workers (the campaigns' control activities use `<send queue>-control`)",
    { 'x-default': '`<task queue>-sends`' },
  ),
  RELAYFLOW_CAMPAIGN_CHUNK_SIZE: whole(200, 10, 5_000, 'recipients per send activity at least'),
  RELAYFLOW_CAMPAIGN_CHUNK_SECONDS: whole(20, 0, 600, "a fast campaign's chunks hold about this many seconds of sending (0: the chunk size only)"),
  RELAYFLOW_PROJECT_REQUESTS_PER_SECOND: whole(
    800,
    1,
    100_000,
    "the project's conversation request budget, shared by all campaigns through the send queue's rate limit",
  ),
  RELAYFLOW_MMS_THROUGHPUT_PER_SECOND: whole(50, 1, 100_000, "the MMS account's throughput, set at onboarding (E113 beyond it)"),
  RELAYFLOW_CAMPAIGN_HEARTBEAT_TIMEOUT_MS: millis(20_000, 1_000, 600_000, 'a send activity silent this long is retried elsewhere (a dead worker)'),
  RELAYFLOW_CAMPAIGN_IN_DOUBT_WAIT_MS: millis(
    1_800_000,
    0,
    7 * DAY,
    'how long an MMS whose answer was lost waits for the postback that confirms it before it is reported `unconfirmed`',
  ),
  // Under the platform's callback timeout (a few seconds; the sandbox's is 3 s), with room for the network.
  RELAYFLOW_VOICE_ANSWER_DEADLINE_MS: millis(
    2_000,
    100,
    10_000,
    "how long a voice callback waits for its call's process; past it relayflow answers the spec's fallback",
  ),
  RELAYFLOW_VOICE_CHECK_EVERY_MS: millis(30_000, 100, 3_600_000, "with no callback for this long, a call's process reads the call from the platform"),
  RELAYFLOW_VOICE_IN_DOUBT_WAIT_MS: millis(
    60_000,
    100,
    3_600_000,
    'how long a callout whose answer was lost waits for a callback naming its call before it counts as not placed',
  ),
});
type ProcessVars = Static<typeof PROCESS_VARIABLES>;

export function loadProcessSettings(v: ProcessVars, sandbox: boolean, taskQueue: string): Omit<ProcessSettings, 'verification'> {
  const sendTaskQueue = v.RELAYFLOW_SEND_TASK_QUEUE ?? `${taskQueue}-sends`;
  return {
    // The spec's 30 s; against the sandbox its default wait (SANDBOX_SUBPROJECT_READY_MS, 5 s).
    subproject: { usableAfterMs: v.RELAYFLOW_SUBPROJECT_USABLE_AFTER_MS ?? (sandbox ? 5_000 : 30_000) },
    provisioning: {
      pollIntervalMs: v.RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS,
      overdueAfterMs: v.RELAYFLOW_PROVISIONING_OVERDUE_AFTER_MS,
      inboxIdleMs: v.RELAYFLOW_INBOX_IDLE_MS,
    },
    senderid: {
      pollIntervalMs: v.RELAYFLOW_SENDERID_POLL_INTERVAL_MS,
      overdueGraceMs: v.RELAYFLOW_SENDERID_OVERDUE_GRACE_MS,
    },
    campaigns: {
      sendTaskQueue,
      controlTaskQueue: `${sendTaskQueue}-control`,
      chunkSize: v.RELAYFLOW_CAMPAIGN_CHUNK_SIZE,
      chunkSeconds: v.RELAYFLOW_CAMPAIGN_CHUNK_SECONDS,
      projectRequestsPerSecond: v.RELAYFLOW_PROJECT_REQUESTS_PER_SECOND,
      mmsThroughputPerSecond: v.RELAYFLOW_MMS_THROUGHPUT_PER_SECOND,
      heartbeatTimeoutMs: v.RELAYFLOW_CAMPAIGN_HEARTBEAT_TIMEOUT_MS,
      inDoubtWaitMs: v.RELAYFLOW_CAMPAIGN_IN_DOUBT_WAIT_MS,
    },
    voice: {
      answerDeadlineMs: v.RELAYFLOW_VOICE_ANSWER_DEADLINE_MS,
      checkEveryMs: v.RELAYFLOW_VOICE_CHECK_EVERY_MS,
      inDoubtWaitMs: v.RELAYFLOW_VOICE_IN_DOUBT_WAIT_MS,
    },
  };
}
