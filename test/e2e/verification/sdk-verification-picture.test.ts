// The audit page draws a verification an SDK started (sdk-verification; the sandbox's control routes play the SDK)
// as it draws relayflow's own, in headless Chromium: its one method, when it was requested and how it ended, and relayflow's answer to its request in place
// of the report counts. The number is masked.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { browse } from '../../helpers/browser.js';
import { TEST_API_KEY, useHarness } from '../../helpers/harness.js';
import { freshNumber, messageFor } from '../../helpers/verification.js';

const TIME = '\\d{1,2}:\\d{2}:\\d{2}( [AP]M)?';

describe('the audit page draws an SDK verification', () => {
  const h = useHarness();
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'relayflow-ui-sdk-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('its method, when it was requested and its outcome, and what relayflow answered', async () => {
    const identity = freshNumber();
    // The sandbox plays the app's SDK: it starts the verification on the platform, then reports the phone's code.
    const sdk = async (path: string, body: unknown) => {
      const res = await fetch(`${h.sandbox.url}/_sandbox/verification/sdk/verifications${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      assert.equal(res.status, 200, text);
      return JSON.parse(text) as { id: string; status: string };
    };
    const { id } = await sdk('', { identity });
    const { code } = await messageFor(h, identity, id);
    assert.equal((await sdk(`/${id}/report`, { code })).status, 'SUCCESSFUL');
    const processId = `sdk-verification:${id}`;
    await h.waitForState(processId, 'SUCCESSFUL');

    const address = `${h.apiUrl}/ui#key=${encodeURIComponent(TEST_API_KEY)}&q=${encodeURIComponent(processId)}&process=${encodeURIComponent(processId)}`;
    const dom = await browse(address, dir, ['--dump-dom']);
    assert.doesNotMatch(dom, /Could not/, 'no error shown');
    assert.match(dom, /<h3>Methods tried<\/h3><ol class="chain"/);
    assert.match(dom, /class="try try-succeeded" aria-label="Method 1\. sms, succeeded: requested [^"]+" data-method="sms"/, 'its one method, succeeded');
    assert.match(dom, new RegExp(`<li>requested ${TIME}: SUCCESSFUL</li>`), 'when it was requested and how it ended');
    assert.match(dom, /started by an SDK; relayflow answered allow: within the geo rules and the per-number guard/);
    assert.doesNotMatch(dom, /code reports/, 'no report counts: the SDK reported');
    assert.ok(!dom.includes(identity.slice(1)), 'the number is masked');
  });
});
