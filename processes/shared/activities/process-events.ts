// The outbox's writer: the local activity every process calls with its state changes (processes/shared/workflow/
// process-events.ts). Reasons are written for people and may quote what a caller sent: phone numbers are masked.
import type { ProcessEventActivities } from '../../../contracts/process-events.js';
import { maskPhoneNumbers } from '../../../common/logger.js';
import type { ProcessEventStore } from '../../../store/process-events.js';

/** Without a store (a worker with no RELAYFLOW_DATABASE_URL) events are not kept: the worker says so at start. */
export function createProcessEventActivities(events: ProcessEventStore | undefined): ProcessEventActivities {
  return {
    async recordProcessEvents(batch) {
      if (!events) return;
      await events.record({ ...batch, events: batch.events.map((e) => (e.reason ? { ...e, reason: maskPhoneNumbers(e.reason) } : e)) });
    },
  };
}
