// The one DataConverter shared by the Temporal client (api) and the workers: both sides must use the
// same codec and keys, or one side cannot read what the other wrote.
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DataConverter } from '@temporalio/common';
import { AesGcmPayloadCodec, type CodecKey } from './codec.js';

/**
 * The module with the `failureConverter` export (common/failure-converter.ts, or .js once compiled). The SDK
 * takes failure converters only by path: the client and the worker `require()` it, and the workflow bundle
 * (workers/build-bundle.ts, or the worker bundling at start) builds it in for failures raised in workflows.
 */
export const FAILURE_CONVERTER_PATH = fileURLToPath(new URL(`./failure-converter${extname(fileURLToPath(import.meta.url))}`, import.meta.url));

/**
 * What is encrypted: every payload (inputs, results, signals, updates, queries, memo in this SDK) and, through
 * the failure converter (`encodeCommonAttributes`), every failure's message and stack trace, in activities,
 * workflows and the client alike: the history shows 'Encoded failure'; decoding restores the real text.
 *
 * What the codec does NOT protect (checked against @temporalio/* 1.24):
 * - Search attributes are never passed through payload codecs (the server must index them in clear):
 *   never put phone numbers, codes or names in search attributes.
 * - Headers are skipped by the worker's codec runner, so interceptors must not carry PII in headers.
 * - Memo: the TypeScript SDK does run memo through the codec (start, upsertMemo, describe), but other
 *   SDKs, tools and the server's list views treat memo as plain data; keep PII out of memo as well.
 * - A failure's type (ApplicationFailure type, e.g. PlatformDeniedError), its non-retryable flag and the
 *   activity/workflow type names stay plain: types must not carry data. Failure details are payloads (encrypted).
 * - Workflow IDs, task queues and type names are plain text: business keys must be opaque IDs.
 * - A workflow bundle built without FAILURE_CONVERTER_PATH converts workflow failures in plain text:
 *   workers refuse such a bundle (workers/worker.ts).
 */
export function createDataConverter(keys: CodecKey[]): DataConverter {
  return { payloadCodecs: [new AesGcmPayloadCodec(keys)], failureConverterPath: FAILURE_CONVERTER_PATH };
}
