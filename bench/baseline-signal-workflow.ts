// The webhook-intake benchmark's baseline: a bare workflow that waits for events and keeps them, reached by
// signal-with-start from a Temporal client (no HTTP, no signature, no inbox, no process behind it).
import { condition, defineSignal, setHandler } from '@temporalio/workflow';

export const baselineEventSignal = defineSignal<[{ eventId: string; trigger: string; comment?: string }]>('baselineEvent');
export const baselineStopSignal = defineSignal('baselineStop');

export async function baselineWaiter(): Promise<number> {
  const seen = new Set<string>();
  let stop = false;
  setHandler(baselineEventSignal, (e) => {
    seen.add(e.eventId);
  });
  setHandler(baselineStopSignal, () => {
    stop = true;
  });
  await condition(() => stop);
  return seen.size;
}
