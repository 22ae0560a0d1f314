// The audit page in a real browser (headless Chromium from Debian's packages): it lists processes in several states
// with the key given in the address (state, reason with phone numbers masked, what needs a person, counts), narrows
// the list by its filters, opens one process's timeline, refreshes both by itself, and renders something a person
// can read (the screenshot is checked to be the page's size and not blank; docs/audit-list.png is the README's,
// rewritten with RELAYFLOW_UPDATE_SCREENSHOTS=1). An open onboarding is drawn as its step graph (a failed step, the
// steps it blocks, arrows from each dependency, each step a link to its own process) and an open campaign as a
// bar whose counts are the API's (docs/audit-onboarding.png and docs/audit-campaign.png, checked the same way).
// The key travels in the fragment, never to the server's logs.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { browse, openPage } from '../helpers/browser.js';
import { keepScreenshot } from '../helpers/screenshots.js';
import { startHarness, TEST_API_KEY, uniqueName, type Harness } from '../helpers/harness.js';
import { createApp, numbers, sandboxJson } from '../helpers/campaigns.js';
import { setReviewer, startBlockedOnboarding } from '../helpers/provisioning.js';
import { startListFixture, type ListFixture } from '../helpers/process-list.js';

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The table row of a process in the dumped DOM, up to its end. */
const rowOf = (dom: string, id: string) => dom.match(new RegExp(`<tr data-id="${escape(id)}"[\\s\\S]*?</tr>`))?.[0] ?? '';
const rowIds = (dom: string) => [...dom.matchAll(/<tr data-id="([^"]+)"/g)].map((m) => m[1]);

describe('the audit page in a browser', () => {
  let h: Harness;
  let dir: string;
  let processId: string;
  let f: ListFixture;
  /** The page on the fixture's processes (the suite's other files start theirs on the same server). */
  const pageUrl = (more = '') => `${h.apiUrl}/ui#key=${encodeURIComponent(TEST_API_KEY)}&q=${encodeURIComponent(f.q)}${more}`;
  before(async () => {
    h = await startHarness({ env: { RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS: '1500' } });
    dir = mkdtempSync(join(tmpdir(), 'relayflow-ui-'));
    f = await startListFixture(h);
    processId = f.ready;
  });
  after(async () => {
    await h?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('lists processes in several states with their reasons, marks and counts', async () => {
    const dom = await browse(pageUrl(), dir, ['--dump-dom']);
    assert.doesNotMatch(dom, /Could not/, 'no error shown');
    assert.deepEqual(rowIds(dom), [f.paused, f.failed, f.ready], 'the three, last changed first');
    const paused = rowOf(dom, f.paused);
    assert.match(paused, /class="[^"]*state[^"]*">PAUSED</);
    assert.match(paused, /Waiting on a person/, 'the paused campaign is marked in words, not by colour alone');
    assert.match(paused, new RegExp(escape(f.pauseReason)), 'with its reason');
    const failed = rowOf(dom, f.failed);
    assert.match(failed, />FAILED</);
    assert.match(failed, /Failed<\/span>/);
    assert.match(failed, /displayName rejected by policy; call \+\*\*\*77/, 'the reason, its phone number masked');
    assert.doesNotMatch(dom, /46700000977/);
    const ready = rowOf(dom, f.ready);
    assert.match(ready, />READY</);
    assert.doesNotMatch(ready, /class="mark/, 'nothing to mark');
    assert.match(ready, new RegExp(`>${escape(f.ready.slice('subproject:'.length))}</button>`), 'the business key');
    assert.match(dom, /3 in all/);
    assert.match(dom, /✎<\/span> 1 waiting on a person/);
    assert.match(dom, /✖<\/span> 1 failed/);
    for (const chip of ['READY 1', 'FAILED 1', 'PAUSED 1', 'subproject 2', 'conversation-campaign 1'])
      assert.match(dom, new RegExp(`aria-pressed="false">${chip}<`), chip);
    assert.match(dom, /id="list-refreshed" class="refreshed">updated /, 'says when it was read');
  });

  test('the filters narrow the list', async () => {
    const kind = await browse(pageUrl('&kind=subproject'), dir, ['--dump-dom']);
    assert.deepEqual(rowIds(kind).sort(), [f.ready, f.failed].sort());
    assert.match(kind, /2 in all/);
    const state = await browse(pageUrl('&state=PAUSED'), dir, ['--dump-dom']);
    assert.deepEqual(rowIds(state), [f.paused]);
    assert.match(state, /aria-pressed="true">PAUSED 1</, 'the state picked is shown pressed');
    const text = await browse(`${h.apiUrl}/ui#key=${encodeURIComponent(TEST_API_KEY)}&q=${encodeURIComponent(f.failed)}`, dir, ['--dump-dom']);
    assert.deepEqual(rowIds(text), [f.failed], 'a whole process ID');
    const future = new Date(Date.now() + 86_400_000).toISOString().slice(0, 16);
    const time = await browse(pageUrl(`&from=${future}`), dir, ['--dump-dom']);
    assert.deepEqual(rowIds(time), []);
    assert.match(time, /No process matches/);
  });

  test('lists processes and tells a timeline, with the key from the address', async () => {
    const url = pageUrl(`&process=${encodeURIComponent(processId)}`);
    const dom = await browse(url, dir, ['--dump-dom']);
    assert.match(dom, new RegExp(`<tr data-id="${escape(processId)}"`), 'the process is listed');
    assert.match(dom, /<h2 id="timeline-title">[^<]*subproject:/, 'its timeline is open');
    const entries = dom.match(/<tr class="entry entry-[a-z-]+"/g) ?? [];
    assert.ok(entries.length >= 3, `timeline entries rendered: ${entries.length}`);
    assert.match(dom, /class="entry entry-state"[\s\S]*?READY/, 'the state change to READY is told');
    assert.match(dom, /entry-platform-call/, 'platform calls are told');
    assert.match(dom, /id="timeline-refreshed" class="refreshed">updated /, 'says when it was read');
    assert.match(dom, /id="process-summary">subproject: READY/, "the process's state above its timeline");
    assert.doesNotMatch(dom, /Could not/, 'no error shown');
  });

  /**
   * Screenshots `url` and checks it is the page at its size and not blank, and that its DOM holds `texts`; with
   * RELAYFLOW_UPDATE_SCREENSHOTS=1 it becomes docs/audit-<name>.png, which is checked to be a page too.
   */
  async function checkScreenshot(name: string, url: string, texts: string[]) {
    const file = join(dir, `${name}.png`);
    await browse(url, dir, [`--screenshot=${file}`]);
    keepScreenshot(name, readFileSync(file));
    // What the screenshot shows, read from the same address's DOM.
    const dom = await browse(url, dir, ['--dump-dom']);
    for (const text of texts) assert.ok(dom.includes(text), text);
  }

  test('the screenshot of the list is the page at its size, not blank, with the expected text', async () => {
    await checkScreenshot('list', pageUrl(`&process=${encodeURIComponent(f.failed)}`), [
      '3 in all',
      'Waiting on a person',
      'PAUSED',
      'FAILED',
      'READY',
      'displayName rejected by policy',
    ]);
  });

  test('an onboarding is drawn as its step graph: a failed step, the steps it blocks, arrows, each step a link to its process', async () => {
    // The CHATB sender is rejected: its step FAILED, the template that needs it BLOCKED, the onboarding waits for the caller.
    const { id, waiting } = await startBlockedOnboarding(h, 'drawn');
    type Step = { name: string; state: string; processId?: string; processState?: string; after: string[] };
    const steps = (waiting.details as unknown as { steps: Step[] }).steps;
    const byName = Object.fromEntries(steps.map((s) => [s.name, s]));
    assert.equal(byName.chatb!.state, 'FAILED');
    assert.equal(byName.welcome!.state, 'BLOCKED');

    const url = pageUrl(`&process=${encodeURIComponent(id)}`);
    const dom = await browse(url, dir, ['--dump-dom']);
    assert.doesNotMatch(dom, /Could not/, 'no error shown');
    const box = (name: string) => dom.match(new RegExp(`<(a|div) class="step [^"]*"[^>]*data-step="${escape(name)}"[\\s\\S]*?</\\1>`))?.[0] ?? '';
    for (const s of steps) {
      const html = box(s.name);
      assert.ok(html, `step ${s.name} drawn`);
      assert.match(html, new RegExp(`data-state="${s.state}"`), `${s.name} in its state`);
      assert.match(html, new RegExp(`class="step-state">[^<]*<span class="icon" aria-hidden="true">[^<]*</span> ${s.state}`), `${s.name}: its state in words`);
      if (s.processId) assert.match(html, new RegExp(`href="#process=${escape(encodeURIComponent(s.processId))}"`), `${s.name} opens its process`);
      else assert.match(html, /tabindex="0"/, `${s.name} can take the focus`);
      for (const dep of s.after)
        assert.match(dom, new RegExp(`<path[^>]*data-from="${escape(dep)}" data-to="${escape(s.name)}"`), `an arrow ${dep} -> ${s.name}`);
    }
    assert.match(box('chatb'), /class="step step-failed"/);
    assert.match(box('chatb'), /aria-label="Step chatb \(chatb-sender\) failed/, 'read out in words');
    assert.match(box('welcome'), /class="step step-blocked"/);
    assert.match(box('bundle'), /SUCCEEDED/);
    assert.match(dom, /<path[^>]*class="edge failed"[^>]*data-from="chatb" data-to="welcome"/, "the failed step's arrow stands out");
    assert.match(dom, /<strong>welcome BLOCKED<\/strong> — waits for step chatb, which failed/, 'why, in words');
    // The step's link is the page's address for its process: opened, it shows the child's own timeline.
    const child = await browse(`${h.apiUrl}/ui#key=${encodeURIComponent(TEST_API_KEY)}&process=${encodeURIComponent(byName.chatb!.processId!)}`, dir, [
      '--dump-dom',
    ]);
    assert.match(child, new RegExp(`<h2 id="timeline-title">${escape(byName.chatb!.processId!)}<`));
    assert.match(child, new RegExp(`id="process-summary">chatb-sender: ${byName.chatb!.processState}`), "the child's state");

    await checkScreenshot('onboarding', url, ['WAITING_FOR_CALLER', 'chatb', 'welcome', 'BLOCKED', 'FAILED', 'SUCCEEDED']);
    await setReviewer(h, { chatbSenders: { outcome: 'activate', delayMs: 200 } });
  });

  test("a campaign's progress bar shows the API's counts: delivered, sent, failed, in doubt, pending", async () => {
    // Numbers ending in 7 fail on delivery.
    await sandboxJson(h, 'PUT', '/_sandbox/conversation/delivery', { rules: [{ suffix: '7', status: 'FAILED' }] });
    const appId = await createApp(h, 50);
    const res = await h.api({
      method: 'POST',
      url: '/v1/campaigns/conversation',
      payload: { key: uniqueName('barred'), appId, region: 'eu', message: { text: 'Hi' }, recipients: numbers(40, 70_000) },
    });
    assert.equal(res.statusCode, 202, res.body);
    const id = res.json<{ processId: string }>().processId;
    type CampaignView = {
      state: string;
      counts: { sent: number; failed: number; inDoubt: number; queued: number; sending: number; delivery: Record<string, number> };
    };
    const read = async () => (await h.api({ method: 'GET', url: `/v1/campaigns/${encodeURIComponent(id)}` })).json<CampaignView>();
    let view = await read();
    for (
      const deadline = Date.now() + 60_000;
      !(view.state === 'COMPLETED' && (view.counts.delivery.delivered ?? 0) + (view.counts.delivery.failed ?? 0) === 40);
    ) {
      assert.ok(Date.now() < deadline, `delivered and reported: ${JSON.stringify(view)}`);
      await new Promise((r) => setTimeout(r, 250));
      view = await read();
    }
    await sandboxJson(h, 'PUT', '/_sandbox/conversation/delivery', {});
    const c = view.counts;
    const expected = {
      delivered: c.delivery.delivered ?? 0,
      sent: c.sent - (c.delivery.delivered ?? 0) - (c.delivery.failed ?? 0),
      failed: c.failed + (c.delivery.failed ?? 0),
      'in-doubt': c.inDoubt,
      pending: c.queued + c.sending,
    };
    assert.deepEqual(expected, { delivered: 36, sent: 0, failed: 4, 'in-doubt': 0, pending: 0 });

    const url = pageUrl(`&process=${encodeURIComponent(id)}`);
    const dom = await browse(url, dir, ['--dump-dom']);
    assert.doesNotMatch(dom, /Could not/, 'no error shown');
    for (const [part, count] of Object.entries(expected))
      assert.match(dom, new RegExp(`<li data-part="${part}"><span[^>]*></span>[^<]*<strong class="count">${count}</strong></li>`), `${part} ${count}`);
    assert.match(dom, /<span class="seg seg-delivered"/);
    assert.match(dom, /<span class="seg seg-failed"/);
    assert.match(dom, /role="img" aria-label="Recipients: delivered 36, sent, not yet delivered 0, failed 4, in doubt 0, pending 0"/, 'the bar in words');
    assert.match(dom, /COMPLETED: 40 sent of 40 recipients, 100 % past sending/);
    await checkScreenshot('campaign', url, ['Progress', 'Delivered', 'In doubt', 'Pending', 'COMPLETED: 40 sent']);
  });

  test('the list and the open process refresh by themselves and say when', async () => {
    const page = await openPage(pageUrl(`&process=${encodeURIComponent(f.paused)}`), dir);
    try {
      const stamp = (html: string, id: string) => html.match(new RegExp(`id="${id}" class="refreshed">updated ([^<]+)<`))?.[1];
      const first = await page.waitFor((html) => rowOf(html, f.paused).includes('PAUSED') && !!stamp(html, 'timeline-refreshed'), 20_000);
      assert.ok(first.done, 'the page listed the paused campaign and opened it');
      const res = await h.api({ method: 'POST', url: `/v1/campaigns/${encodeURIComponent(f.paused)}/resume`, payload: {} });
      assert.equal(res.statusCode, 200, res.body);
      // No reload: the next refresh (every 15 s) shows the campaign moved on, in the list and above its timeline.
      // Waited for as a whole: one refresh reads the list, then the open process, and a snapshot between them saw one.
      const moved = await page.waitFor(
        (html) =>
          !rowOf(html, f.paused).includes('>PAUSED<') &&
          /resumed through the API/.test(html) &&
          !/id="process-summary"[^>]*>[^<]*PAUSED/.test(html) &&
          stamp(html, 'list-refreshed') !== stamp(first.html, 'list-refreshed') &&
          stamp(html, 'timeline-refreshed') !== stamp(first.html, 'timeline-refreshed'),
        40_000,
      );
      assert.ok(
        moved.done,
        `refreshed by itself, the list and the open process each saying when: ${rowOf(moved.html, f.paused)}; list ${stamp(moved.html, 'list-refreshed')}, timeline ${stamp(moved.html, 'timeline-refreshed')} (first ${stamp(first.html, 'timeline-refreshed')})`,
      );
    } finally {
      await page.close();
    }
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
