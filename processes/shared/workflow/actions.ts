// The API's operations on a process: updates carrying an operationId, answered once (a repeat gets the first
// one's outcome from the process's memory), and the actions a parent process may ask by signal as well.
import type { SignalDefinition, UpdateDefinition } from '@temporalio/common';
import { setHandler } from '@temporalio/workflow';
import type { HandledMemory } from './handled-memory.js';

type Install<O> = <Req extends { operationId: string }>(
  update: UpdateDefinition<O, [Req]>,
  /** The operation's work, run once per operationId. */
  run: (req: NoInfer<Req>) => Promise<O> | O,
  /** The update's validator for a new operationId (a repeat is always accepted): throws to refuse it. */
  check?: (req: NoInfer<Req>) => void,
) => void;

/**
 * Installs a process's API operations, each answered from `operations`: `operation(update, run, check?)` installs
 * one update, with its validator when it has one. `once` is the memory's way that runs the work: `run` (the default)
 * answers a repeat that arrives while the first still runs with the first's outcome; `remember`, kept by the
 * processes whose recorded runs used it, runs it again.
 */
export function operationsOn<O>(operations: HandledMemory<O>, once: 'run' | 'remember' = 'run'): Install<O> {
  return (update, run, check) =>
    setHandler(
      update,
      once === 'remember' ? (req) => operations.remember(req.operationId, () => run(req)) : (req) => operations.run(req.operationId, () => run(req)),
      check
        ? {
            validator: (req) => {
              if (!operations.knows(req.operationId)) check(req);
            },
          }
        : undefined,
    );
}

/**
 * An action a parent process asks by signal and the API by update, both with an operationId: one declaration
 * installs the signal, the update and the update's validator.
 */
export function handleAction<Req extends { operationId: string }, O extends { accepted: boolean; reason?: string }>(action: {
  signal: SignalDefinition<[Req]>;
  update: UpdateDefinition<O, [Req]>;
  operations: HandledMemory<O>;
  /** The action's work, run once per operationId; `via` says who asked it, for the history. */
  run(req: NoInfer<Req>, via: string): Promise<O> | O;
  /** The update's validator for a new operationId: throws to refuse it. */
  check(req: NoInfer<Req>): void;
  /** The parent counts its step as running again once it asks (ProcessState.parentAsked). */
  askedByParent(): void;
  /** The parent learns only from reported states: a refusal of its signal is reported as one. */
  refusedBySignal(reason: string): void;
}): void {
  const { operations } = action;
  setHandler(action.signal, async (req) => {
    if (!operations.knows(req.operationId)) action.askedByParent();
    const outcome = await operations.run(req.operationId, () => action.run(req, "at the parent process's request"));
    if (!outcome.accepted) action.refusedBySignal(outcome.reason ?? 'no reason given');
  });
  operationsOn(operations)(action.update, (req) => action.run(req, 'through the API'), action.check);
}
