// The audit page acting and moving, in headless Chromium driven over the DevTools protocol: an onboarding whose
// CHATB sender was rejected shows its failed step and the step it blocks; with the reviewer then approving, the step
// is retried from the page (its button, the confirmation dialog, the API's answer in the page) and the graph moves
// on by itself. A campaign's bar is read while it sends (two different readings, then the final one) with its rate
// over time. A read-only key is shown no buttons and told why.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openPage, type Page } from '../helpers/browser.js';
import { keepScreenshot } from '../helpers/screenshots.js';
import { startHarness, TEST_API_KEY, uniqueName, type Harness } from '../helpers/harness.js';
import { createApp, numbers } from '../helpers/campaigns.js';
import { reviewerEvent, setReviewer, startBlockedOnboarding, waitUntil } from '../helpers/provisioning.js';

const READ_ONLY_KEY = 'ui-read-only-key-0123456789abcdef';
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A step's state in the drawn graph. */
const stepState = (html: string, name: string) => html.match(new RegExp(`data-step="${escape(name)}" data-state="([A-Z]+)"`))?.[1];
const text = (html: string, id: string) => html.match(new RegExp(`id="${id}"[^>]*>([^<]*)<`))?.[1];

describe('the audit page acts and moves on', () => {
  let h: Harness;
  let dir: string;
  const pageUrl = (processId: string, apiKey = TEST_API_KEY) =>
    `${h.apiUrl}/ui#key=${encodeURIComponent(apiKey)}&q=${encodeURIComponent(processId)}&process=${encodeURIComponent(processId)}&refresh=2`;
  /** Opens the page, runs `body`, closes it (the failure shows the page's last DOM). */
  async function withPage(url: string, body: (page: Page) => Promise<void>) {
    const page = await openPage(url, dir);
    try {
      await body(page);
    } finally {
      await page.close();
    }
  }
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'relayflow-ui-actions-'));
    const keys = join(dir, 'keys');
    writeFileSync(keys, `${READ_ONLY_KEY} read-only\n`);
    h = await startHarness({ env: { RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS: '1500', RELAYFLOW_API_KEYS_FILE: keys } });
  });
  after(async () => {
    await h?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("GET /v1/keys/me answers the calling key's ID and scope, never the key", async () => {
    for (const [key, scope] of [
      [TEST_API_KEY, 'admin'],
      [READ_ONLY_KEY, 'read-only'],
    ] as const) {
      const res = await fetch(`${h.apiUrl}/v1/keys/me`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(res.status, 200);
      const body = (await res.json()) as { keyId: string; scope: string };
      assert.equal(body.scope, scope);
      assert.match(body.keyId, /^[0-9a-f]{12}$/);
      assert.ok(!JSON.stringify(body).includes(key));
    }
    assert.equal((await fetch(`${h.apiUrl}/v1/keys/me`)).status, 401);
    const doc = (await (await fetch(`${h.apiUrl}/docs/json`)).json()) as { paths: Record<string, { get?: { operationId?: string } }> };
    assert.equal(doc.paths['/v1/keys/me']?.get?.operationId, 'readOwnKey', 'in the OpenAPI document');
  });

  test('a failed onboarding step is retried from the page, after a confirmation, and the graph moves on', async () => {
    const { id, waiting } = await startBlockedOnboarding(h, 'retried');
    // The cause is fixed outside relayflow: the platform's reviewer now approves (a sender already rejected is
    // activated on appeal; a new one would be approved). The step stays FAILED until someone retries it.
    await setReviewer(h, { chatbSenders: { outcome: 'activate', delayMs: 200 } });
    const chatb = (waiting.details as unknown as { steps: { name: string; resource?: { senderId?: string } }[] }).steps.find((s) => s.name === 'chatb')!;
    assert.ok(chatb.resource?.senderId, JSON.stringify(chatb));
    await reviewerEvent(h, {
      resourceType: 'SENDER',
      resourceId: chatb.resource.senderId,
      trigger: 'CHATB_SENDER_COMMENT_ADDED',
      details: { state: 'ACTIVE' },
      comment: 'approved on appeal',
    });

    // A read-only key sees the failure and no button, and is told why.
    await withPage(pageUrl(id, READ_ONLY_KEY), async (page) => {
      const seen = await page.waitFor((html) => stepState(html, 'chatb') === 'FAILED' && /can look, not act/.test(html), 30_000);
      assert.ok(seen.done, `the failed step and the note: ${text(seen.html, 'status')}`);
      assert.doesNotMatch(seen.html, /<button[^>]*class="action /, 'no action button for a read-only key');
      assert.match(seen.html, /This key \(read-only\) can look, not act: the actions need the operator scope\./);
      assert.match(seen.html, /id="key-info">key [0-9a-f]{12} · read-only</);
    });

    await withPage(pageUrl(id), async (page) => {
      const retry = '[data-action="step-retry:chatb"]';
      const shown = await page.waitFor((html) => html.includes(`data-action="step-retry:chatb"`), 30_000);
      assert.ok(shown.done, 'a retry button for the failed step');
      assert.equal(stepState(shown.html, 'chatb'), 'FAILED');
      assert.equal(stepState(shown.html, 'welcome'), 'BLOCKED', 'the step it blocks');
      assert.match(shown.html, /data-action="step-skip:welcome"/, 'a blocked step can be skipped');
      assert.doesNotMatch(shown.html, /data-action="step-retry:welcome"/, 'only a failed step is retried');
      assert.doesNotMatch(shown.html, /data-action="step-[a-z]+:bundle"/, 'a step that succeeded has none');
      assert.match(shown.html, /<button[^>]*data-action="cancel"/, "the onboarding's own cancel");

      // Asked first: the dialog opens with the keyboard's focus on the safe answer; Escape asks nothing.
      await page.evaluate(`document.querySelector('${retry}').click()`);
      const asked = await page.evaluate(
        `[document.getElementById('confirm').open, document.getElementById('confirm-title').textContent, document.activeElement.id, document.getElementById('confirm-yes').textContent]`,
      );
      assert.deepEqual(asked, [true, 'Retry step chatb?', 'confirm-no', 'Retry step chatb']);
      keepScreenshot('retry', await page.screenshot());
      await page.press('Escape');
      assert.equal(await page.evaluate(`document.getElementById('confirm').open`), false, 'Escape closes the dialog');
      assert.equal(
        (await h.api({ method: 'GET', url: `/v1/processes/${encodeURIComponent(id)}` }))
          .json<{ details: { steps: { name: string; state: string }[] } }>()
          .details.steps.find((s) => s.name === 'chatb')!.state,
        'FAILED',
        'nothing was asked of the API',
      );

      // Confirmed with the keyboard: Tab to the retry button, Enter.
      await page.evaluate(`document.querySelector('${retry}').click()`);
      await page.press('Tab');
      assert.equal(await page.evaluate('document.activeElement.id'), 'confirm-yes');
      await page.press('Enter');
      const answered = await page.waitFor((html) => /id="action-answer"[^>]*>Retry step chatb: accepted/.test(html), 30_000);
      assert.ok(answered.done, `the API's answer in the page: ${text(answered.html, 'action-answer')}`);
      assert.match(answered.html, /<p id="action-answer" role="status" aria-live="polite" class="answer ok">/);

      // The graph moves on by itself: the step leaves FAILED, then succeeds, and the step it blocked runs.
      const left = await page.waitFor((html) => !!stepState(html, 'chatb') && stepState(html, 'chatb') !== 'FAILED', 30_000);
      assert.ok(left.done, `chatb left FAILED: ${stepState(left.html, 'chatb')}`);
      const moved = await page.waitFor((html) => stepState(html, 'chatb') === 'SUCCEEDED' && stepState(html, 'welcome') !== 'BLOCKED', 90_000);
      const reasons = moved.html.match(/<ul class="step-reasons">[\s\S]*?<\/ul>/)?.[0] ?? '';
      assert.ok(moved.done, `chatb ${stepState(moved.html, 'chatb')}, welcome ${stepState(moved.html, 'welcome')}; ${reasons}`);
      assert.doesNotMatch(moved.html, /data-action="step-retry:chatb"/, 'nothing left to retry');
    });
    const final = await waitUntil(h, id, (v) => v.state === 'COMPLETED', 'completed after the retry', 90_000);
    assert.ok((final.details as unknown as { steps: { state: string }[] }).steps.every((s) => s.state === 'SUCCEEDED'));
  });

  test("a campaign's bar advances while it sends, with its rate over time, and ends with the final counts", async () => {
    const appId = await createApp(h, 50);
    const res = await h.api({
      method: 'POST',
      url: '/v1/campaigns/conversation',
      // 48 recipients at 3 a second: about 16 s of sending, read every 2 s.
      payload: { key: uniqueName('advancing'), appId, region: 'eu', rate: 3, message: { text: 'Hi' }, recipients: numbers(48, 80_000) },
    });
    assert.equal(res.statusCode, 202, res.body);
    const id = res.json<{ processId: string }>().processId;
    await withPage(pageUrl(id), async (page) => {
      const headline = (html: string) => html.match(/<p class="bar-headline">([^<]*)</)?.[1] ?? '';
      const readings = new Set<string>();
      const read = (html: string) => {
        const line = headline(html);
        if (line.startsWith('SENDING:')) readings.add(html.match(/aria-label="Recipients: ([^"]*)"/)?.[1] ?? '');
        return line;
      };
      // Mid-send, once the rate has two intervals to draw: docs/ui.md's picture of a campaign sending.
      const sending = await page.waitFor((html) => read(html).startsWith('SENDING:') && /aria-label="Rate over the last [3-9]/.test(html), 60_000);
      if (sending.done) keepScreenshot('sending', await page.screenshot());
      // The campaign says COMPLETED a moment before its run has closed; the actions go once it has.
      const done = await page.waitFor(
        (html) => read(html).startsWith('COMPLETED:') && /<div id="actions" role="group" aria-label="Actions on this process" hidden="">/.test(html),
        120_000,
      );
      assert.ok(sending.done, 'seen sending with its rate over time');
      assert.ok(done.done, `completed: ${headline(done.html)}`);
      readings.delete('');
      assert.ok(readings.size >= 2, `two different readings while sending: ${[...readings].join(' | ')}`);
      const pendings = [...readings].map((r) => Number(r.match(/pending (\d+)/)?.[1]));
      assert.ok(Math.max(...pendings) > Math.min(...pendings), `pending went down: ${pendings.join(', ')}`);
      assert.match(headline(done.html), /^COMPLETED: 48 sent of 48 recipients, 100 % past sending/);
      // The sparkline: rates per refresh interval, told in words.
      const spark = done.html.match(
        /<svg[^>]*class="spark"[^>]*aria-label="Rate over the last (\d+) refresh intervals: delivered ([\d.]+)\/s now \(peak ([\d.]+)\/s\)/,
      );
      assert.ok(spark, 'a labelled sparkline');
      assert.ok(Number(spark[1]) >= 2, `several intervals: ${spark[1]}`);
      assert.ok(Number(spark[3]) > 0, `a delivery rate was seen: peak ${spark[3]}/s`);
      assert.match(done.html, /<path d="M[^"]+" class="line-delivered">/);
      // A campaign that has ended offers nothing to do.
      assert.match(done.html, /<div id="actions" role="group" aria-label="Actions on this process" hidden="">/);
    });
  });
});
