// The audit page with customer keys, in headless Chromium: a customer's key is told its customer and lists that
// customer's processes only; opening another customer's process by its ID is told "not found", word for word as an
// ID that does not exist; a key of every customer lists both, each row naming its customer.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openPage } from '../helpers/browser.js';
import { startHarness, TEST_API_KEY, uniqueName, type Harness } from '../helpers/harness.js';

const KEY_A = 'ui-tenant-a-key-0123456789abcdef';
const KEY_B = 'ui-tenant-b-key-0123456789abcdef';

describe('the audit page keeps customers apart', () => {
  let h: Harness;
  let dir: string;
  let idA: string;
  let idB: string;
  const pageUrl = (key: string, more: string) => `${h.apiUrl}/ui#key=${encodeURIComponent(key)}&${more}`;

  async function seen(url: string, done: (html: string) => boolean): Promise<string> {
    // A profile of its own: two Chromiums on one profile refuse each other.
    const page = await openPage(url, mkdtempSync(join(dir, 'page-')));
    try {
      const r = await page.waitFor(done, 45_000);
      assert.ok(r.done, `the page never showed what was expected: ${r.html.slice(0, 4000)}`);
      return r.html;
    } finally {
      await page.close();
    }
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'relayflow-ui-tenants-'));
    const keys = join(dir, 'keys');
    writeFileSync(keys, `${KEY_A} operator tenant=acme\n${KEY_B} operator tenant=globex\n`);
    h = await startHarness({ env: { RELAYFLOW_API_KEYS_FILE: keys } });
    const start = async (key: string, name: string) => {
      const res = await h.app.inject({
        method: 'POST',
        url: '/v1/subprojects',
        payload: { displayName: uniqueName(name) },
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(res.statusCode, 202, res.body);
      return res.json<{ processId: string }>().processId;
    };
    [idA, idB] = await Promise.all([start(KEY_A, 'acme'), start(KEY_B, 'globex')]);
  });
  after(async () => {
    await h?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const listed = (html: string, id: string) => html.includes(`data-id="${id}"`);

  test("a customer's key is told its customer and lists its processes only", async () => {
    const html = await seen(pageUrl(KEY_A, 'kind=subproject&refresh=2'), (page) => listed(page, idA));
    assert.match(html, /id="key-info">key [0-9a-f]{12} · operator · customer acme</);
    assert.ok(!listed(html, idB), "the other customer's process is not listed");
    assert.match(html, /subproject · acme/);
    assert.doesNotMatch(html, /globex/);
  });

  test("another customer's process, opened by its ID, is not found, as an ID that does not exist", async () => {
    const unknown = idB.replace(/:[^:]+$/, `:${uniqueName('nobody')}`);
    const told = async (id: string) => {
      const html = await seen(pageUrl(KEY_A, `process=${encodeURIComponent(id)}`), (page) => page.includes('Could not read the timeline of'));
      const message = html.match(/Could not read the timeline of ([^<]*)</)![1]!;
      return message.replaceAll(id, '<id>');
    };
    const [other, none] = await Promise.all([told(idB), told(unknown)]);
    assert.match(other, /not found/i);
    assert.equal(other, none);
  });

  test('a key of every customer lists both, each row naming its customer', async () => {
    const html = await seen(pageUrl(TEST_API_KEY, 'kind=subproject&refresh=2'), (page) => listed(page, idA) && listed(page, idB));
    assert.match(html, /subproject · acme/);
    assert.match(html, /subproject · globex/);
    assert.doesNotMatch(html.match(/id="key-info">[^<]*</)![0], /customer/);
  });
});
