// Quiet hours by a recipient's country: one zone, several (open only when every zone is), a window across midnight,
// and the time the answer changes next.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { windowOf, zonesOf } from '../../../processes/campaigns/activities/quiet-hours.js';

const night = { from: '21:00', to: '08:00' };

describe('quiet hours', () => {
  test('one zone: quiet across midnight, open by day, and the next edge', () => {
    // 2026-01-15 12:00 UTC is 21:00 in Tokyo (UTC+9): quiet until 08:00 there, 11 hours on.
    const at = new Date('2026-01-15T12:00:00Z');
    const tokyo = windowOf(zonesOf('JP'), night, at);
    assert.equal(tokyo.open, false);
    assert.equal(tokyo.changesAt.toISOString(), '2026-01-15T23:00:01.000Z');
    // 13:00 in Stockholm (UTC+1): open until 21:00 there.
    const stockholm = windowOf(zonesOf('SE'), night, at);
    assert.equal(stockholm.open, true);
    assert.equal(stockholm.changesAt.toISOString(), '2026-01-15T20:00:01.000Z');
  });

  test('several zones: open only while every zone is outside the quiet hours', () => {
    // 14:00 UTC: 09:00 in New York, 04:00 in Honolulu: Hawaii is still quiet.
    assert.equal(windowOf(zonesOf('US'), night, new Date('2026-01-15T14:00:00Z')).open, false);
    // 19:00 UTC: 14:00 New York, 09:00 Honolulu, 10:00 Anchorage: open everywhere.
    assert.equal(windowOf(zonesOf('US'), night, new Date('2026-01-15T19:00:00Z')).open, true);
  });

  test('a window within the day, seconds, and a number without a country (UTC)', () => {
    const lunch = { from: '12:00', to: '13:00:30' };
    assert.deepEqual(zonesOf(''), ['UTC']);
    const w = windowOf(zonesOf(undefined), lunch, new Date('2026-01-15T12:59:00Z'));
    assert.equal(w.open, false);
    assert.equal(w.changesAt.toISOString(), '2026-01-15T13:00:31.000Z');
    assert.equal(windowOf(['UTC'], lunch, new Date('2026-01-15T13:00:30Z')).open, true);
  });
});
