// The one DataConverter shared by the Temporal client (api) and the workers: both sides must use the
// same codec and keys, or one side cannot read what the other wrote.
import type { DataConverter } from '@temporalio/common';
import { AesGcmPayloadCodec, type CodecKey } from './codec.js';

/**
 * What the codec does NOT protect (checked against @temporalio/* 1.24):
 * - Search attributes are never passed through payload codecs (the server must index them in clear):
 *   never put phone numbers, codes or names in search attributes.
 * - Headers are skipped by the worker's codec runner, so interceptors must not carry PII in headers.
 * - Memo: the TypeScript SDK does run memo through the codec (start, upsertMemo, describe), but other
 *   SDKs, tools and the server's list views treat memo as plain data; keep PII out of memo as well.
 * - Failure messages and stack traces stay plain text unless a failure converter with
 *   `encodeCommonAttributes: true` is set through `failureConverterPath` (in the workflow bundle too);
 *   error messages must not quote phone numbers or codes.
 * - Workflow IDs, task queues and type names are plain text: business keys must be opaque IDs.
 */
export function createDataConverter(keys: CodecKey[]): DataConverter {
  return { payloadCodecs: [new AesGcmPayloadCodec(keys)] };
}
