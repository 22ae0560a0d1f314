// The Temporal web UI of `npm start` shows payloads decoded, out of the box: npm start runs its development codec
// listener (loopback, decode only, no key: api/dev-codec.ts) and gives it to the dev server's UI. A verification's
// input (its phone number and a marker in `custom`, both only ever in encrypted payloads) is read from the UI's
// workflow page in headless Chromium. The same page with the listener blocked shows the ciphertext, so the check
// would catch a UI that cannot decode.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ulid } from 'ulid';
import { openPage } from '../helpers/browser.js';
import { npmStartEnv } from '../helpers/npm-start.js';

// base64 of "binary/encrypted": how the UI shows the encoding of a payload it could not decode.
const ENCRYPTED = Buffer.from('binary/encrypted').toString('base64');

describe('the Temporal web UI in npm start', () => {
  let dir = '';
  let child: ChildProcess | undefined;
  let output = '';
  after(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((res) => child!.once('exit', res));
      child.kill('SIGINT'); // npm start stops its Temporal dev server too
      const timer = setTimeout(() => child!.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    }
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('shows a process input decoded', { timeout: 200_000 }, async () => {
    dir = await mkdtemp(join(tmpdir(), 'relayflow-ui-codec-'));
    const { ports, env: partsEnv } = await npmStartEnv(join(dir, 'data'));
    const { api: apiPort, ui: uiPort, codec: codecPort } = ports;
    const env: Record<string, string | undefined> = { ...process.env, ...partsEnv };
    delete env.TEMPORAL_ADDRESS; // npm start starts its own dev server, with the web UI (RELAYFLOW_WORKFLOW_BUNDLE stays: no bundling)
    child = spawn(process.execPath, ['--import', 'tsx', 'scripts/dev.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    // A deadline for a stuck start, not a speed check: files running side by side on two cores can take a
    // start (a Temporal server with its UI, the sandbox, a worker, the API) well past its usual 10-20 s.
    const ready = Date.now() + 120_000;
    while (!output.includes('relayflow is ready')) {
      assert.equal(child.exitCode, null, `npm start exited early:\n${output}`);
      assert.ok(Date.now() < ready, `npm start not ready in 120 s:\n${output}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const endpoint = `http://127.0.0.1:${codecPort}/codec`;
    assert.ok(output.includes(`UI codec      ${endpoint} `), `prints the UI's codec endpoint:\n${output}`);

    // Decode only: what the UI reads. Encoding is the API's job (with a key).
    assert.equal((await fetch(`${endpoint}/encode`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"payloads":[]}' })).status, 404);
    assert.equal(
      (
        await fetch(`${endpoint}/decode`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
          body: '{"payloads":[]}',
        })
      ).status,
      403,
    );

    const key = (await readFile(join(dir, 'data', 'api-key'), 'utf8')).trim();
    const marker = `ui-codec-${ulid().toLowerCase()}`;
    const identity = `+4670${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
    const started = await fetch(`http://127.0.0.1:${apiPort}/v1/verifications`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ identity, method: 'sms', custom: marker }),
    });
    assert.equal(started.status, 201, await started.clone().text());
    const { processId } = (await started.json()) as { processId: string };
    const url = `http://127.0.0.1:${uiPort}/namespaces/default/workflows/${encodeURIComponent(processId)}`;

    const page = await openPage(url, dir);
    try {
      const decoded = (html: string) => html.includes(marker) && html.includes(identity);
      let seen = await page.waitFor(decoded, 20_000);
      // The UI asks the codec once per render: on a loaded machine that call can fail, and the page then shows the
      // payloads encrypted until it renders again. A second render must decode them.
      if (!seen.done) {
        await page.evaluate('location.reload()');
        seen = await page.waitFor(decoded, 30_000);
      }
      assert.ok(
        seen.done,
        `the UI shows the decoded input (custom ${marker}, identity ${identity}); encrypted payloads on the page: ${seen.html.includes(ENCRYPTED)}`,
      );
      assert.ok(!seen.html.includes(ENCRYPTED), 'no payload on the page is left encrypted');
    } finally {
      await page.close();
    }

    // The control: with the listener out of reach the same page shows the ciphertext, and neither value.
    const blocked = await openPage(url, dir, { block: [`*:${codecPort}/*`] });
    try {
      const seen = await blocked.waitFor((html) => html.includes(ENCRYPTED), 15_000);
      assert.ok(seen.done, 'without the listener the input shows encrypted');
      assert.ok(!seen.html.includes(marker) && !seen.html.includes(identity), 'and nothing of it in clear');
    } finally {
      await blocked.close();
    }
  });
});
