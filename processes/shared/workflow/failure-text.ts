// Words for why something failed, from Temporal's failure chains (which wrap the platform's answer).
import { ApplicationFailure } from '@temporalio/workflow';

/** The innermost cause: "subprojects 400 INVALID_ARGUMENT: ...", not "Activity task failed". */
export function rootMessage(err: unknown): string {
  let e: unknown = err;
  while (e instanceof Error && e.cause instanceof Error) e = e.cause;
  return e instanceof Error ? e.message : String(err);
}

/** The first ApplicationFailure type in the chain, e.g. PlatformDeniedError. */
export function failureType(err: unknown): string | undefined {
  let e: unknown = err;
  while (e instanceof Error) {
    if (e instanceof ApplicationFailure && e.type) return e.type;
    e = e.cause;
  }
  return undefined;
}
