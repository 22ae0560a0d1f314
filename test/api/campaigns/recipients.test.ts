// A campaign's recipient list made ready for the store: normalised, invalid entries kept readable and storable,
// duplicates counted once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { prepareRecipients, printable } from '../../../processes/campaigns/routes/recipients.js';

test('numbers are normalised to E.164, duplicates (after normalising) are sent once', () => {
  const p = prepareRecipients(['+46 70 123 45 67', '070-123 45 67', '+46701234568'], 'SE');
  assert.deepEqual(
    p.rows.map((r) => [r.recipient, r.status]),
    [
      ['+46701234567', 'pending'],
      ['+46701234568', 'pending'],
    ],
  );
  assert.equal(p.duplicates, 1);
  assert.equal(p.total, 3);
});

test('an invalid entry is reported by index and reason, never fatal', () => {
  const p = prepareRecipients(['+46701234567', '12', 'hello'], undefined);
  assert.deepEqual(p.invalid, [
    { index: 1, reason: 'no country: use +<country code> or set defaultCountry' },
    { index: 2, reason: 'no country: use +<country code> or set defaultCountry' },
  ]);
  assert.deepEqual(
    p.rows.map((r) => r.status),
    ['pending', 'invalid', 'invalid'],
  );
});

test('an invalid entry is stored without control characters or broken surrogates (PostgreSQL refuses NUL)', () => {
  const p = prepareRecipients(['+4\u00007\u001a', 'x\uda4fy', '😀'.repeat(40)], undefined);
  const stored = p.rows.map((r) => r.recipient);
  assert.equal(stored[0], '+4\ufffd7\ufffd');
  assert.equal(stored[1], 'x\ufffdy');
  // Cut at 64 code units: the last pair is whole, nothing lone is left.
  assert.doesNotMatch(stored[2]!, /[\ud800-\udbff](?![\udc00-\udfff])/);
  assert.equal(printable('+46 (70) 123-45.67'), '+46 (70) 123-45.67');
});
