// The memory of API operations (updates carrying an operationId): a repeated one is answered with the
// first one's outcome, also while the first is still running. Carried across continue-as-new.
import type { OperationOutcome } from '../../contracts/provisioning.js';

const KEEP_OPERATIONS = 100;

/** Answers a repeated operationId from memory, also while the first one is still running. */
export class OperationMemory {
  private readonly done: Map<string, OperationOutcome>;
  private readonly running = new Map<string, Promise<OperationOutcome>>();

  constructor(carried: [string, OperationOutcome][] = []) {
    this.done = new Map(carried);
  }

  knows(operationId: string): boolean {
    return this.done.has(operationId) || this.running.has(operationId);
  }

  async run(operationId: string, fn: () => Promise<OperationOutcome> | OperationOutcome): Promise<OperationOutcome> {
    const known = this.done.get(operationId) ?? this.running.get(operationId);
    if (known) return known;
    const p = Promise.resolve().then(fn);
    this.running.set(operationId, p);
    try {
      const outcome = await p;
      this.done.set(operationId, outcome);
      if (this.done.size > KEEP_OPERATIONS) this.done.delete(this.done.keys().next().value!);
      return outcome;
    } finally {
      this.running.delete(operationId);
    }
  }

  toCarry(): [string, OperationOutcome][] {
    return [...this.done.entries()];
  }
}
