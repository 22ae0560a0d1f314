// The audit page's pictures of calls, in headless Chromium: a verification's methods along its fallback chain (the
// SMS that got no result in time, then the flash call that succeeded, each with when it was sent) and a voice
// callout's calls and answers (an unanswered call, then the answered one with the answer given and who gave it). Phone
// numbers are masked as the API masks them.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { browse } from '../helpers/browser.js';
import { keepScreenshot } from '../helpers/screenshots.js';
import { TEST_API_KEY, useHarness } from '../helpers/harness.js';
import { freshNumber, messageFor, report, startVerification } from '../helpers/verification.js';
import { phone, setCallees, startCallout, voiceSettings, wireVoice } from '../helpers/voice.js';

const TIME = '\\d{1,2}:\\d{2}:\\d{2}( [AP]M)?';
/** A box of the picture (an item with its title and lines), by the start of its title. */
const boxOf = (dom: string, title: string) =>
  dom.match(
    new RegExp(
      `<li class="try [^"]*"[^>]*>(?:(?!</ul></li>)[\\s\\S])*?<h4>[^<]*<span class="icon" aria-hidden="true">[^<]*</span> ${title}[\\s\\S]*?</ul></li>`,
    ),
  )?.[0] ?? '';

describe('the audit page draws calls', () => {
  const h = useHarness({ env: { RELAYFLOW_VOICE_CHECK_EVERY_MS: '1000', RELAYFLOW_VOICE_IN_DOUBT_WAIT_MS: '2000' } }, async (h) => {
    await wireVoice(h);
    await voiceSettings(h, { noAnswerMs: 500, sayMs: 200 });
  });
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'relayflow-ui-calls-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  /** docs/ui.md's picture of the process (what it shows is checked on the DOM above). */
  const screenshot = async (name: string, processId: string) => {
    const file = join(dir, `${name}.png`);
    await browse(address(processId), dir, [`--screenshot=${file}`]);
    keepScreenshot(name, readFileSync(file));
  };
  const address = (processId: string) =>
    `${h.apiUrl}/ui#key=${encodeURIComponent(TEST_API_KEY)}&q=${encodeURIComponent(processId)}&process=${encodeURIComponent(processId)}`;
  const open = (processId: string) => browse(address(processId), dir, ['--dump-dom']);

  test("a verification's methods along its fallback chain: each tried, its outcome and when it was sent", async () => {
    const identity = freshNumber();
    const s = await startVerification(h, {
      identity,
      fallback: [
        { method: 'sms', timeoutSeconds: 2 },
        { method: 'flashcall', timeoutSeconds: 60 },
      ],
    });
    type View = { details: { currentStep: number; current?: { method: string; verificationId: string } } };
    let view: View | undefined;
    for (const deadline = Date.now() + 20_000; !(view?.details.currentStep === 1 && view.details.current?.method === 'flashcall');) {
      assert.ok(Date.now() < deadline, `fell back to the flash call: ${JSON.stringify(view)}`);
      await new Promise((r) => setTimeout(r, 200));
      view = (await h.api({ method: 'GET', url: `/v1/verifications/${encodeURIComponent(s.processId)}` })).json<View>();
    }
    const call = await messageFor(h, identity, view.details.current!.verificationId);
    assert.equal((await report(h, s.processId, call.cli!)).json().result, 'SUCCESSFUL');
    await h.waitForState(s.processId, 'SUCCESSFUL');

    const dom = await open(s.processId);
    assert.doesNotMatch(dom, /Could not/, 'no error shown');
    assert.match(dom, /<h3>Methods tried<\/h3><ol class="chain" aria-label="Fallback chain: each method in the order tried">/);
    const sms = boxOf(dom, '1\\. sms');
    assert.match(sms, /class="try try-failed" aria-label="Method 1\. sms, gave way to the next method: sent [^"]+" data-method="sms"/, sms);
    // The platform's word for an SMS the next method replaced.
    assert.match(sms, new RegExp(`<li>sent ${TIME}: ABORTED — Replaced by a newer verification</li>`), 'the SMS, when it was sent and what came of it');
    const flash = boxOf(dom, '2\\. flashcall');
    assert.match(flash, /class="try try-succeeded"/, flash);
    assert.match(flash, /2\. flashcall: succeeded/);
    assert.match(flash, new RegExp(`<li>sent ${TIME}: SUCCESSFUL</li>`));
    assert.ok(dom.indexOf('1. sms') < dom.indexOf('2. flashcall'), 'in the order tried');
    assert.ok(!dom.includes(identity.slice(1)), 'the number is masked');
    await screenshot('verification', s.processId);
  });

  test("a voice callout's calls and answers: an unanswered call, then the answered one, with what was answered and by whom", async () => {
    const destination = phone('78');
    await setCallees(h, [{ suffix: '78', outcome: 'noanswer' }]);
    const processId = await startCallout(h, 'tts', { destination, text: 'Drawn.', retry: { delaysSeconds: [2] } });
    await h.waitForState(processId, 'WAITING_RETRY', 15_000);
    await setCallees(h, [{ suffix: '78', outcome: 'answer' }]);
    await h.waitForState(processId, 'COMPLETED', 20_000);

    const dom = await open(processId);
    assert.doesNotMatch(dom, /Could not/, 'no error shown');
    assert.match(dom, /<h3>Calls and answers<\/h3>/);
    assert.match(dom, /<div class="leg" data-leg="0"><h4>Leg 1 to \+\*\*\*78: answered<\/h4><ol class="calls" aria-label="Calls of leg 1">/);
    const first = boxOf(dom, 'Call 1: noanswer');
    assert.match(first, /class="try try-failed"/, first);
    assert.match(first, new RegExp(`<li>placed ${TIME}</li>`));
    assert.match(first, /<li>result NOANSWER/);
    const second = boxOf(dom, 'Call 2: answered');
    assert.match(second, /class="try try-succeeded"/, second);
    assert.match(second, new RegExp(`<li>answered ${TIME}</li>`));
    assert.match(second, /<li>result ANSWERED/);
    assert.match(second, new RegExp(`<li>${TIME} ace → continue, by plan</li>`), 'the answer to the ACE and who gave it (the intake, from the plan)');
    assert.ok(!dom.includes(destination.slice(1)), 'the number is masked');
    await screenshot('callout', processId);
  });
});
