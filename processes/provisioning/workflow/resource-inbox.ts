// One inbox per platform resource (`resource:<channel>:<resourceType>:<resourceId>`) that no running process has
// claimed: the webhook intake signals a resource's linked process directly (store/resource-links.ts) and
// signals-with-start the inbox only when there is none, or none still runs. The inbox drops duplicate deliveries,
// keeps what it received (bounded), and forwards it to the processes that attach themselves, including everything
// that arrived before. A process attached by its link (`linked`) gets the intake's events directly from then on, so
// the inbox ends as soon as it has forwarded what it holds.
//
// Otherwise it ends when it is idle: no attached process still runs and nothing has arrived for `idleMs`
// (RELAYFLOW_INBOX_IDLE_MS, 30 days unless set). An event or attach after the end is not lost: the intake
// signals-with-start, which starts a fresh inbox under the same ID, and the link activity attaches to a running one.
import { allHandlersFinished, condition, continueAsNew, defineSignal, getExternalWorkflowHandle, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import { attachSignal, inboxQuery, provisioningEventSignal, type InboxAttachment, type ResourceInboxInput } from '../contract.js';
import { HandledMemory } from '../../shared/workflow/handled-memory.js';

const KEEP_EVENTS = 500;
const KEEP_SEEN = 5_000;
const HISTORY_LIMIT = 5_000;
/** For inboxes started without idleMs. */
const DEFAULT_INBOX_IDLE_MS = 30 * 86_400_000;
/**
 * Sent to each attached process when the inbox is idle, to learn whether it still runs (a signal to a
 * closed workflow fails). The processes have no handler for it: the SDK buffers it and it does nothing.
 */
const probeSignal = defineSignal('inboxProbe');

export async function resourceInbox(input: ResourceInboxInput): Promise<void> {
  const { resource } = input;
  const historyLimit = input.historyLimit ?? HISTORY_LIMIT;
  const kept = input.kept ?? [];
  const seen = HandledMemory.ofIds(input.seenEventIds, KEEP_SEEN);
  const attached = input.attached ?? [];
  let received = input.received ?? 0;
  let duplicates = input.duplicates ?? 0;
  const idleMs = input.idleMs ?? DEFAULT_INBOX_IDLE_MS;
  /** When the inbox last received an event or an attach (workflow time). */
  let lastArrival = Date.now();

  setHandler(provisioningEventSignal, (event) => {
    lastArrival = Date.now();
    if (!seen.firstTime(event.eventId)) {
      duplicates += 1;
      return;
    }
    received += 1;
    kept.push({ n: received, receivedAt: new Date().toISOString(), event });
    if (kept.length > KEEP_EVENTS) kept.shift();
  });

  setHandler(attachSignal, ({ processId, linked }) => {
    lastArrival = Date.now();
    const now = new Date().toISOString();
    let a = attached.find((x) => x.processId === processId);
    // Attaching again (a retried activity, or a new run under the same ID) forwards everything again.
    if (a) Object.assign(a, { attachedAt: now, attaches: a.attaches + 1, forwardedUpTo: 0, detachedAt: undefined });
    else attached.push((a = { processId, attachedAt: now, attaches: 1, forwardedUpTo: 0 }));
    if (linked) a.linked = true;
    else delete a.linked;
  });

  setHandler(inboxQuery, () => ({
    resource,
    received,
    duplicates,
    events: kept.map((k) => ({
      eventId: k.event.eventId,
      trigger: k.event.trigger,
      sequence: k.event.sequence,
      eventTime: k.event.eventTime,
      receivedAt: k.receivedAt,
    })),
    attached,
  }));

  const live = () => attached.filter((a) => !a.detachedAt);
  const behind = () => live().some((a) => a.forwardedUpTo < received);
  /** Every process still following the resource is linked and has everything: the intake reaches them directly now. */
  const handedOver = () => live().length > 0 && live().every((a) => a.linked) && !behind();

  const mustContinue = () => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= historyLimit;
  const idleFor = () => Date.now() - lastArrival;
  // One idle timer at a time, left running while events come (an arrival only moves the idle clock): cancelling and
  // restarting it on every event would write two more events each time. When it fires early, a new one covers the rest.
  let idleTimer: Promise<void> | undefined;
  let idleTimerFired = false;
  for (;;) {
    idleTimer ??= sleep(Math.max(1, idleMs - idleFor())).then(() => void (idleTimerFired = true));
    await condition(() => idleTimerFired || behind() || handedOver() || mustContinue());
    if (behind() || handedOver() || mustContinue()) {
      await Promise.all(live().map(forward));
      // A signal that reaches the server while this run completes fails the completion and is replayed into this
      // run (the check then sees it); one sent after the run closed starts a fresh inbox: nothing is lost either way.
      if (handedOver()) return;
      if (!behind() && mustContinue()) {
        await condition(allHandlersFinished);
        // Signals that arrive while the run closes fail its completion and are replayed into it: none is lost.
        await continueAsNew<typeof resourceInbox>({
          resource,
          kept,
          seenEventIds: seen.ids(),
          attached,
          received,
          duplicates,
          ...(input.historyLimit ? { historyLimit } : {}),
          ...(input.idleMs ? { idleMs } : {}),
        });
      }
      continue;
    }
    idleTimer = undefined;
    idleTimerFired = false;
    if (idleFor() < idleMs) continue;
    // Idle: ask every process still counted as attached whether it runs (a closed one is detached).
    await Promise.all(live().map(probe));
    // Nothing arrived while probing (an arrival resets the clock), nothing attached runs, no handler is mid-way: end.
    if (live().length === 0 && idleFor() >= idleMs && allHandlersFinished()) return;
    // Something runs (or arrived): wait another idle period from now.
    if (idleFor() >= idleMs) lastArrival = Date.now();
  }

  async function probe(a: InboxAttachment): Promise<void> {
    const generation = a.attaches;
    try {
      await getExternalWorkflowHandle(a.processId).signal(probeSignal);
    } catch {
      if (a.attaches === generation) a.detachedAt = new Date().toISOString();
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
