// How a campaign is cut into chunks: how many run at once for its rate, and how many rows each holds.

/** A chunk sends at most this many messages per second; faster campaigns run more chunks at once. */
const MAX_CHUNK_RATE = 100;
const MAX_WINDOW = 8;

export const windowSizeFor = (rate: number) => Math.min(MAX_WINDOW, Math.max(2, Math.ceil(rate / MAX_CHUNK_RATE)));

/**
 * Rows per chunk: `chunkSize`, or for a fast campaign about `chunkSeconds` of sending at the chunk's share of the
 * rate, evened out so the chunks fill whole windows (a last window of one chunk would send at 1/window of the rate).
 */
export function chunkRowsFor(rows: number, chunkSize: number, chunkSeconds: number, rate: number, windowSize: number): number {
  const target = Math.ceil((rate / windowSize) * chunkSeconds);
  if (target <= chunkSize) return chunkSize;
  const windows = Math.ceil(rows / (target * windowSize));
  return Math.max(chunkSize, Math.ceil(rows / (windows * windowSize)));
}
