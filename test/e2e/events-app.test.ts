// examples/events-app as a user runs it (tsx, its own process) against a whole relayflow: it must take the signed
// events of the verification it completes through @relayflow/client and end with it SUCCESSFUL.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, test } from 'node:test';
import { TEST_API_KEY, useHarness } from '../helpers/harness.js';
import { freshNumber } from '../helpers/verification.js';

describe('examples/events-app', () => {
  const h = useHarness();

  test('subscribes, verifies each event, completes a verification and sees it SUCCESSFUL', async () => {
    const env = { ...process.env, API: h.apiUrl, SBX: h.sandbox.url, KEY: TEST_API_KEY, IDENTITY: freshNumber() };
    const child = spawn(process.execPath, ['--import', 'tsx', 'examples/events-app/main.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0, out);
    assert.match(out, /event verification \(start\) -> PENDING/);
    assert.match(out, /event verification PENDING -> SUCCESSFUL/);
    assert.match(out, /verification:\S+ is SUCCESSFUL/);
    const subs = await h.api({ method: 'GET', url: '/v1/event-subscriptions' });
    assert.doesNotMatch(subs.body, /events-app/, 'the app deleted its subscription');
  });
});
