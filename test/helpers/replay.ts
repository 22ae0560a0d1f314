// Replay fixtures: recorded histories of every workflow type (scripts/record-histories.ts writes them,
// test/workflows/replay/replay.test.ts replays them against the current workflow code).
//
// Histories are encrypted by relayflow's payload codec, so recording and replaying share one fixed key.
// It protects nothing real: fixtures hold sandbox data only, and the key is here so anyone can re-record.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import * as sdkProtoUtils from '@temporalio/common/lib/proto-utils.js';
import type { History } from '@temporalio/common/lib/proto-utils.js';
import { patchProtobufRoot } from '@temporalio/proto/lib/patch-protobuf-root.js';
import { Worker, type ReplayWorkerOptions } from '@temporalio/worker';
import { parseCodecKeys } from '../../common/codec.js';
import { OTEL_WORKFLOW_INTERCEPTORS_MODULE } from '../../workers/tracing.js';
import {
  PROCESS_ENDED_INTERCEPTOR_MODULE,
  TENANT_INTERCEPTOR_MODULE,
  TRACING_INTERCEPTOR_MODULE,
  workerBundlePath,
  workflowOptions,
  type WorkflowCode,
} from '../../workers/workflow-options.js';

/** RELAYFLOW_CODEC_KEYS for recording fixtures (id:base64 key). Test data only. */
export const REPLAY_CODEC_KEYS = 'replay-fixtures:HiIvv29GP44V9f+eN4y5/1lLZSk+jLy+5lq2Yk5s200=';

/**
 * The workflow options of a replay: the worker's (workers/workflow-options.ts: the bundle `npm test` built, or
 * the workflows bundled with the worker's interceptor modules), or the workflows bundled with other modules.
 */
export function replayOptions(replayName: string, code: Pick<WorkflowCode, 'bundle' | 'interceptorModules'> = {}): ReplayWorkerOptions {
  const workerBundle = workerBundlePath();
  const bundle = code.bundle ?? (code.interceptorModules || !workerBundle ? undefined : { codePath: workerBundle });
  const options = workflowOptions({
    codecKeys: parseCodecKeys(REPLAY_CODEC_KEYS, 'REPLAY_CODEC_KEYS'),
    ...(bundle ? { bundle } : { interceptorModules: code.interceptorModules }),
  });
  return { ...options, replayName };
}

/** Interceptor sets a deployment could run with: an upgrade or removal of one must not change any workflow's steps. */
export const INTERCEPTOR_SETS: Record<string, readonly string[]> = {
  none: [],
  'opentelemetry only': [OTEL_WORKFLOW_INTERCEPTORS_MODULE],
  'opentelemetry when traced only': [TRACING_INTERCEPTOR_MODULE],
  'process-ended only': [PROCESS_ENDED_INTERCEPTOR_MODULE],
  'tenant only': [TENANT_INTERCEPTOR_MODULE],
};

/** Replays the fixtures with `options`; the error of each that failed (undefined when it replayed), by `<workflowType>/<case>`. */
export async function replayFixtures(fixtures: Fixture[], options: ReplayWorkerOptions): Promise<Map<string, Error | undefined>> {
  const byId = new Map(fixtures.map((f) => [f.workflowId, f]));
  const results = new Map<string, Error | undefined>();
  for await (const r of Worker.runReplayHistories(
    options,
    fixtures.map((f) => ({ workflowId: f.workflowId, history: f.history })),
  )) {
    const f = byId.get(r.workflowId)!;
    results.set(`${f.workflowType}/${f.case}`, r.error);
  }
  return results;
}

export const FIXTURES_DIR = resolve('test/fixtures/histories');

// historyToJSON / historyFromJSON (@temporalio/common/lib/proto-utils) convert with the protobufjs copy
// @temporalio/common depends on; in this install @temporalio/proto has its own copy of the same version
// (not hoisted: grpc's protobufjs 7 sits at the top), so its types fail protobufjs's `instanceof Type` check
// ("type must be a Type"). The SDK's functions are tried first; on that error the same conversion (proto3
// JSON, as `temporal workflow show --output json` and the web UI write it) runs with @temporalio/proto's copy.
const requireFromProto = createRequire(createRequire(import.meta.url).resolve('@temporalio/proto'));
const protojson = requireFromProto('protobufjs/ext/protojson') as {
  fromJson(type: unknown, json: unknown, opts?: object): unknown;
  toJson(type: unknown, message: unknown): unknown;
};
const protoRoot = requireFromProto('./index.js');
const historyType = (patchProtobufRoot(protoRoot) as { lookupType(name: string): { fromObject(o: unknown): unknown } }).lookupType(
  'temporal.api.history.v1.History',
);

const isCopyMismatch = (err: unknown) => err instanceof TypeError && /type must be a Type/.test(err.message);

export function historyToJSON(history: History): string {
  try {
    return sdkProtoUtils.historyToJSON(history);
  } catch (err) {
    if (!isCopyMismatch(err)) throw err;
    return JSON.stringify(protojson.toJson(historyType, historyType.fromObject(history)), null, 2);
  }
}

function historyFromJSON(json: unknown): History {
  try {
    return sdkProtoUtils.historyFromJSON(json);
  } catch (err) {
    if (!isCopyMismatch(err)) throw err;
    const loaded = protojson.fromJson(historyType, json, { ignoreUnknownFields: true });
    if (!loaded) throw new TypeError('Invalid history');
    return loaded as History;
  }
}

/** What a fixture file holds: where it came from and the history as historyToJSON wrote it. */
export interface FixtureFile {
  workflowType: string;
  case: string;
  workflowId: string;
  runId: string;
  /** How the run ended: the last event's type (or RUNNING when the run was recorded open). */
  closedBy: string;
  recordedAt: string;
  history: unknown;
}

export interface Fixture {
  workflowType: string;
  case: string;
  file: string;
  workflowId: string;
  history: History;
}

/** Every fixture: test/fixtures/histories/<workflowType>/<case>.json, sorted. */
export function loadFixtures(dir = FIXTURES_DIR): Fixture[] {
  const out: Fixture[] = [];
  for (const type of readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()) {
    for (const name of readdirSync(join(dir, type))
      .filter((f) => f.endsWith('.json'))
      .sort()) {
      const file = join(dir, type, name);
      const f = JSON.parse(readFileSync(file, 'utf8')) as FixtureFile;
      out.push({ workflowType: type, case: name.replace(/\.json$/, ''), file, workflowId: f.workflowId, history: historyFromJSON(f.history) });
    }
  }
  return out;
}

/** The patch IDs a history recorded (the SDK's core_patch markers): which branch of patched code it ran. */
export function patchesOf(history: History): Set<string> {
  const ids = new Set<string>();
  for (const e of history.events ?? []) {
    const data =
      e.markerRecordedEventAttributes?.markerName === 'core_patch' ? e.markerRecordedEventAttributes.details?.['patch-data']?.payloads?.[0]?.data : undefined;
    if (data) ids.add((JSON.parse(new TextDecoder().decode(data)) as { id: string }).id);
  }
  return ids;
}

/** The workflow type a history starts (its first event). */
export function workflowTypeOf(history: History): string | undefined {
  return history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? undefined;
}
