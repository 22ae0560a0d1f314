// One inbox per platform resource (`resource:<channel>:<resourceType>:<resourceId>`): the webhook intake
// signals-with-start it with every event, so nothing is lost and no lookup table is needed. It drops
// duplicate deliveries, keeps what it received (bounded), and forwards it to the processes that attached
// themselves once they knew the resource's ID, including everything that arrived before.
//
// It ends when it is idle: no attached process still runs and nothing has arrived for `idleMs`
// (RELAYFLOW_INBOX_IDLE_MS, 30 days unless set). An event or attach after the end is not lost: the intake
// and the attach activity signal-with-start, which starts a fresh inbox under the same ID (its processes
// attach again and get everything it receives from then on).
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  defineSignal,
  getExternalWorkflowHandle,
  patched,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { attachSignal, inboxQuery, provisioningEventSignal, type InboxAttachment, type ResourceInboxInput } from '../../contracts/provisioning.js';
import { HandledMemory } from '../shared/handled-memory.js';

const KEEP_EVENTS = 500;
const KEEP_SEEN = 5_000;
const HISTORY_LIMIT = 5_000;
/** For inboxes whose input lacks idleMs (started before the setting existed). */
const DEFAULT_INBOX_IDLE_MS = 30 * 86_400_000;
/**
 * Sent to each attached process when the inbox is idle, to learn whether it still runs (a signal to a
 * closed workflow fails). The processes have no handler for it: the SDK buffers it and it does nothing.
 */
const probeSignal = defineSignal('inboxProbe');
/** The idle end (a timer on the wait) is new: runs started before it keep waiting without one (see docs/testing.md, "Changing workflow code"). */
const IDLE_END_PATCH = 'resource-inbox-idle-end';

export async function resourceInbox(input: ResourceInboxInput): Promise<void> {
  const { resource } = input;
  const historyLimit = input.historyLimit ?? HISTORY_LIMIT;
  const kept = input.kept ?? [];
  const seen = HandledMemory.ofIds(input.seenEventIds, KEEP_SEEN);
  const attached = input.attached ?? [];
  let received = input.received ?? 0;
  let duplicates = input.duplicates ?? 0;
  const idleMs = input.idleMs ?? DEFAULT_INBOX_IDLE_MS;
  const endsWhenIdle = patched(IDLE_END_PATCH);
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

  setHandler(attachSignal, ({ processId }) => {
    lastArrival = Date.now();
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

  const mustContinue = () => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= historyLimit;
  const idleFor = () => Date.now() - lastArrival;
  for (;;) {
    const wake = () => behind() || mustContinue();
    if (endsWhenIdle) {
      const woke = await condition(wake, Math.max(1, idleMs - idleFor()));
      if (!woke && idleFor() >= idleMs) {
        // Idle: ask every process still counted as attached whether it runs (a closed one is detached).
        await Promise.all(live().map(probe));
        // Nothing arrived while probing (an arrival resets the clock), nothing attached runs, no handler
        // is mid-way: end. A signal that reaches the server while this run completes fails the completion
        // and is replayed into this run (the check above then sees it); one sent after the run closed
        // starts a fresh inbox (signal-with-start): nothing is lost either way.
        if (live().length === 0 && idleFor() >= idleMs && allHandlersFinished()) return;
        // Something runs (or arrived): wait another idle period from now.
        if (idleFor() >= idleMs) lastArrival = Date.now();
        continue;
      }
    } else {
      await condition(wake);
    }
    await Promise.all(live().map(forward));
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
