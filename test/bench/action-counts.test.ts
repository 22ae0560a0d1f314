// The actions counted from a history (bench/action-counts.ts): activity attempts from the last attempt's number,
// and the heartbeats' bound only over the activity types that heartbeat, as the campaign's activity options say.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import proto from '@temporalio/proto';
import { countEvents, heartbeatBound } from '../../bench/action-counts.js';
import { heartbeatingActivities } from '../../processes/campaigns/workflow/campaign-activities.js';

const { HistoryEvent } = proto.temporal.api.history.v1;
type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;
const { EventType: E } = proto.temporal.api.enums.v1;

/** An activity's three events: scheduled at `at`, its last attempt started `queued` s later and ended `took` s after that. */
function activity(
  firstId: number,
  type: string,
  times: { at: number; queued: number; took: number },
  end: 'completed' | 'canceled' = 'completed',
  attempt = 1,
): HistoryEvent[] {
  const time = (s: number) => ({ seconds: Math.floor(s), nanos: Math.round((s % 1) * 1e9) });
  const ids = { scheduledEventId: firstId, startedEventId: firstId + 1 };
  // As a fetched history holds them: 64-bit fields as Long.
  const events: Record<string, unknown>[] = [
    {
      eventId: firstId,
      eventType: E.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED,
      eventTime: time(times.at),
      activityTaskScheduledEventAttributes: { activityType: { name: type } },
    },
    {
      eventId: firstId + 1,
      eventType: E.EVENT_TYPE_ACTIVITY_TASK_STARTED,
      eventTime: time(times.at + times.queued),
      activityTaskStartedEventAttributes: { scheduledEventId: firstId, attempt },
    },
    end === 'completed'
      ? {
          eventId: firstId + 2,
          eventType: E.EVENT_TYPE_ACTIVITY_TASK_COMPLETED,
          eventTime: time(times.at + times.queued + times.took),
          activityTaskCompletedEventAttributes: ids,
        }
      : {
          eventId: firstId + 2,
          eventType: E.EVENT_TYPE_ACTIVITY_TASK_CANCELED,
          eventTime: time(times.at + times.queued + times.took),
          activityTaskCanceledEventAttributes: ids,
        },
  ];
  return events.map((e) => HistoryEvent.fromObject(e));
}

const heartbeating = heartbeatingActivities({ sendTaskQueue: 'sends', heartbeatTimeoutMs: 20_000 });

describe('action counts', () => {
  test("the campaign's heartbeating activities are its send chunks, with the settings' heartbeat timeout", () => {
    assert.deepEqual(heartbeating, { sendChunk: 20_000 });
  });

  test('the heartbeat bound counts only the activity types that heartbeat', () => {
    const history = [
      ...activity(1, 'prepareCampaign', { at: 0, queued: 0, took: 40 }),
      ...activity(4, 'sendChunk', { at: 40, queued: 0, took: 10 }),
      ...activity(7, 'sendChunk', { at: 40, queued: 0, took: 17 }),
      ...activity(10, 'settleCampaign', { at: 60, queued: 0, took: 1 }),
    ];
    const c = countEvents(history, heartbeating);
    assert.equal(c.byKind['activity attempts'], 4);
    // Throttled to one per 16 s (0.8 x 20 s) after the first: 10 s -> 1, 17 s -> 2; prepare and settle send none.
    assert.equal(c.heartbeatsAtMost, 3);
    assert.equal(countEvents(history).heartbeatsAtMost, 0, 'no type said to heartbeat, no heartbeats');
  });

  test('a cancelled attempt flushes its last heartbeat; earlier attempts fit before the last one started', () => {
    assert.equal(countEvents(activity(1, 'sendChunk', { at: 0, queued: 0, took: 5 }, 'canceled'), heartbeating).heartbeatsAtMost, 2);
    // Attempt 3: two earlier attempts within the 40 s before it started, each a first heartbeat, plus 2 throttle intervals.
    const retried = countEvents(activity(1, 'sendChunk', { at: 0, queued: 40, took: 5 }, 'completed', 3), heartbeating);
    assert.equal(retried.byKind['activity attempts'], 3);
    assert.equal(retried.heartbeatsAtMost, 1 + 2 + 2);
  });

  test("the throttle interval is at most the SDK's 60 s", () => {
    const bound = (timeoutMs: number) =>
      heartbeatBound({ timeoutMs, lastAttemptSeconds: 120, earlierAttempts: 0, beforeLastAttemptSeconds: 0, cancelled: false });
    assert.equal(bound(600_000), 1 + 2, '0.8 x 600 s is above 60 s: one per minute');
    assert.equal(bound(50_000), 1 + 3, 'one per 40 s');
  });
});
