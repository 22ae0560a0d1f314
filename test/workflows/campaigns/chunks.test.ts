// How a campaign is cut into chunks: the window by rate, and chunk rows that hold chunkSeconds of sending for
// a fast campaign, evened out to fill whole windows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chunkRowsFor, windowSizeFor } from '../../../processes/campaigns/workflow/campaign.js';

test('window: 2 chunks at least, one more per 100/s, 8 at most', () => {
  assert.deepEqual([20, 100, 200, 250, 400, 800, 5_000].map(windowSizeFor), [2, 2, 2, 3, 4, 8, 8]);
});

test('a slow campaign keeps chunkSize rows; chunkSeconds 0 always does', () => {
  assert.equal(chunkRowsFor(100_000, 200, 20, 20, 2), 200); // 10/s a chunk x 20 s = 200
  assert.equal(chunkRowsFor(100_000, 200, 0, 800, 8), 200);
});

test("a fast campaign's chunks hold about chunkSeconds of sending, in whole windows", () => {
  // 400/s, 4 at a time: 100/s a chunk, 2,000 rows for 20 s; 20,000 rows are 3 windows of 4 -> 12 chunks of 1,667.
  const rows = chunkRowsFor(20_000, 200, 20, 400, 4);
  assert.equal(rows, 1_667);
  assert.equal(Math.ceil(20_000 / rows) % 4, 0);
  // 6,000 rows fit in one window: 4 chunks of 1,500, none left alone at the end.
  assert.equal(chunkRowsFor(6_000, 200, 20, 400, 4), 1_500);
  // Never below chunkSize, even for a short list.
  assert.equal(chunkRowsFor(300, 200, 20, 400, 4), 200);
});
