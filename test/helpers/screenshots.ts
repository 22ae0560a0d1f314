// The audit page's screenshots kept under docs/ for docs/ui.md and the README: each checked to be a page (its size, not blank);
// RELAYFLOW_UPDATE_SCREENSHOTS=1 writes them to docs/audit-<name>.png, which is then checked the same way.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { HEIGHT, WIDTH } from './browser.js';

/** The docs' screenshots (the runner runs compiled copies elsewhere, from the repository's root). */
const docsScreenshot = (name: string) => join(process.cwd(), 'docs', `audit-${name}.png`);

/** Width, height and the number of distinct byte values of a PNG's pixel data (enough to tell a page from a blank). */
function pngFacts(png: Buffer): { width: number; height: number; distinctBytes: number } {
  assert.equal(png.subarray(0, 8).toString('hex'), '89504e470d0a1a0a', 'a PNG file');
  const chunks: Buffer[] = [];
  let width = 0;
  let height = 0;
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at);
    const type = png.subarray(at + 4, at + 8).toString('latin1');
    const data = png.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') [width, height] = [data.readUInt32BE(0), data.readUInt32BE(4)];
    if (type === 'IDAT') chunks.push(data);
    at += 12 + length;
  }
  const pixels = inflateSync(Buffer.concat(chunks));
  return { width, height, distinctBytes: new Set(pixels).size };
}

/** Checks `png` is the page at its size and not blank; keeps it as docs/audit-<name>.png when asked; checks the kept one. */
export function keepScreenshot(name: string, png: Buffer): void {
  const facts = pngFacts(png);
  assert.equal(facts.width, WIDTH);
  assert.equal(facts.height, HEIGHT);
  assert.ok(facts.distinctBytes > 40, `a rendered page, not a blank one: ${facts.distinctBytes} distinct byte values`);
  if (process.env.RELAYFLOW_UPDATE_SCREENSHOTS === '1') writeFileSync(docsScreenshot(name), png);
  const kept = pngFacts(readFileSync(docsScreenshot(name)));
  assert.deepEqual([kept.width, kept.height], [WIDTH, HEIGHT], `docs/audit-${name}.png, the README's, is a page`);
  assert.ok(kept.distinctBytes > 40, `docs/audit-${name}.png is not blank`);
}
