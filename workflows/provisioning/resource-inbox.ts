// One inbox per platform resource (`resource:<channel>:<resourceType>:<resourceId>`): the webhook intake
// signals-with-start it with every event, so nothing is lost and no lookup table is needed. It drops
// duplicate deliveries, keeps what it received (bounded), and forwards it to the processes that attached
// themselves once they knew the resource's ID, including everything that arrived before.
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import {
  attachSignal,
  inboxQuery,
  provisioningEventSignal,
  type InboxAttachment,
  type ResourceInboxInput,
} from '../../contracts/provisioning.js';


const KEEP_EVENTS = 500;
const KEEP_SEEN = 5_000;
const HISTORY_LIMIT = 5_000;

export async function resourceInbox(input: ResourceInboxInput): Promise<void> {
  const { resource } = input;
  const historyLimit = input.historyLimit ?? HISTORY_LIMIT;
  const kept = input.kept ?? [];
  const seenIds = input.seenEventIds ?? [];
  const seen = new Set(seenIds);
  const attached = input.attached ?? [];
  let received = input.received ?? 0;
  let duplicates = input.duplicates ?? 0;

  setHandler(provisioningEventSignal, (event) => {
    if (seen.has(event.eventId)) {
      duplicates += 1;
      return;
    }
    seen.add(event.eventId);
    seenIds.push(event.eventId);
    if (seenIds.length > KEEP_SEEN) seen.delete(seenIds.shift()!);
    received += 1;
    kept.push({ n: received, receivedAt: new Date().toISOString(), event });
    if (kept.length > KEEP_EVENTS) kept.shift();
  });

  setHandler(attachSignal, ({ processId }) => {
    const now = new Date().toISOString();
    const existing = attached.find((a) => a.processId === processId);
    // Attaching again (a retried activity, or a new run under the same ID) forwards everything again.
    if (existing) Object.assign(existing, { attachedAt: now, attaches: existing.attaches + 1, forwardedUpTo: 0, detachedAt: undefined });
    else attached.push({ processId, attachedAt: now, attaches: 1, forwardedUpTo: 0 });
  });

  setHandler(inboxQuery, () => ({
    resource,
    received,
    duplicates,
    events: kept.map((k) => ({ eventId: k.event.eventId, trigger: k.event.trigger, sequence: k.event.sequence, eventTime: k.event.eventTime, receivedAt: k.receivedAt })),
    attached,
  }));

  const live = () => attached.filter((a) => !a.detachedAt);
  const behind = () => live().some((a) => a.forwardedUpTo < received);

  for (;;) {
    await condition(() => behind() || workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= historyLimit);
    await Promise.all(live().map(forward));
    if (!behind() && (workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= historyLimit)) {
      await condition(allHandlersFinished);
      // Signals that arrive while the run closes fail its completion and are replayed into it: none is lost.
      await continueAsNew<typeof resourceInbox>({ resource, kept, seenEventIds: seenIds, attached, received, duplicates, ...(input.historyLimit ? { historyLimit } : {}) });
    }
  }

  async function forward(a: InboxAttachment): Promise<void> {
    const upTo = received;
    const generation = a.attaches;
    const due = kept.filter((k) => k.n > a.forwardedUpTo && k.n <= upTo);
    const handle = getExternalWorkflowHandle(a.processId);
    try {
      await Promise.all(due.map((k) => handle.signal(provisioningEventSignal, k.event)));
      // An attach that arrived meanwhile asked for everything again: its cursor stays at 0.
      if (a.attaches === generation) a.forwardedUpTo = upTo;
    } catch {
      // The process has ended (or never existed): keep the events, stop forwarding until it attaches again.
      if (a.attaches === generation) a.detachedAt = new Date().toISOString();
    }
  }
}
