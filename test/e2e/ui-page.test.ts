// The audit page in a real browser (headless Chromium from Debian's packages): it lists processes with the key
// given in the address, opens one process's timeline, and renders something a person can read (the screenshot
// is checked to be the page's size and not blank). The key travels in the fragment, never to the server's logs.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { inflateSync } from 'node:zlib';
import { browse, HEIGHT, WIDTH } from '../helpers/browser.js';
import { startHarness, TEST_API_KEY, uniqueName, type Harness } from '../helpers/harness.js';

/** Width, height and the number of distinct pixel rows' byte patterns of a PNG (enough to tell a page from a blank). */
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

describe('the audit page in a browser', () => {
  let h: Harness;
  let dir: string;
  let processId: string;
  before(async () => {
    h = await startHarness();
    dir = mkdtempSync(join(tmpdir(), 'relayflow-ui-'));
    const res = await h.api({ method: 'POST', url: '/v1/subprojects', payload: { displayName: uniqueName('ui') } });
    assert.equal(res.statusCode, 202, res.body);
    processId = res.json().processId;
    await h.waitForState(processId, 'READY', 30_000);
  });
  after(async () => {
    await h?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('lists processes and tells a timeline, with the key from the address', async () => {
    // Filtered to its kind and state: the suite's other files start processes on the same server, newer ones first.
    const url = `${h.apiUrl}/ui#key=${encodeURIComponent(TEST_API_KEY)}&process=${encodeURIComponent(processId)}&kind=subproject&state=READY`;
    const dom = await browse(url, dir, ['--dump-dom']);
    assert.match(dom, new RegExp(`<tr data-id="${processId.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"`), 'the process is listed');
    assert.match(dom, /<h2 id="timeline-title">[^<]*subproject:/, 'its timeline is open');
    const entries = dom.match(/<tr class="entry entry-[a-z-]+"/g) ?? [];
    assert.ok(entries.length >= 3, `timeline entries rendered: ${entries.length}`);
    assert.match(dom, /class="entry entry-state"[\s\S]*?READY/, 'the state change to READY is told');
    assert.match(dom, /entry-platform-call/, 'platform calls are told');
    assert.doesNotMatch(dom, /Could not/, 'no error shown');
  });

  test('the screenshot is the page at its size and not blank', async () => {
    const file = join(dir, 'ui.png');
    await browse(`${h.apiUrl}/ui#key=${encodeURIComponent(TEST_API_KEY)}&process=${encodeURIComponent(processId)}`, dir, [`--screenshot=${file}`]);
    const facts = pngFacts(readFileSync(file));
    assert.equal(facts.width, WIDTH);
    assert.equal(facts.height, HEIGHT);
    assert.ok(facts.distinctBytes > 40, `a rendered page, not a blank one: ${facts.distinctBytes} distinct byte values`);
  });

  test('without a key the page says it could not list, and the data routes stay closed', async () => {
    const page = await fetch(`${h.apiUrl}/ui`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    const data = await fetch(`${h.apiUrl}/v1/processes`);
    assert.equal(data.status, 401);
    const dom = await browse(`${h.apiUrl}/ui#key=wrong-key-0123456789abcdefgh`, dir, ['--dump-dom']);
    assert.match(dom, /Could not list processes: API key not recognised/);
  });
});
