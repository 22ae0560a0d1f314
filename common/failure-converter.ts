// The failure converter of every relayflow DataConverter, loaded by module path (`failureConverterPath`):
// the SDK `require()`s it in the client and the worker, and webpack builds it into the workflow bundle,
// where workflow failures are converted. Keep it free of Node imports: it runs in the workflow sandbox.
import { DefaultFailureConverter } from '@temporalio/common';

/**
 * Moves each failure's message and stack trace into `encodedAttributes` (a payload, so the codec encrypts
 * it); the history keeps only the placeholder message 'Encoded failure'. Decoding restores both.
 */
export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
