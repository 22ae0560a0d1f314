// Incoming calls while the Temporal server is away: the intake answers every callback from the call's plan (the
// rule, the call's earlier events in the store), a call in a menu goes on through its menus and a new call is
// answered and connected, all without a fallback; once the server is back, every answer given is recorded in its
// call's process, each once and in order, and the DiCEs end the processes. The file runs its own dev server on a
// database file (stopped and started again on the same port), not the run's shared one.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { freePort, startDevServer, type DevServer } from '../../../scripts/lib/dev-server.js';
import { startHarness, type Harness } from '../../helpers/harness.js';
import {
  eventually,
  hangUp,
  incomingCall,
  OWN_NUMBERS,
  phone,
  pressKeys,
  putIncomingRule,
  sandboxCall,
  voiceClient,
  wireVoice,
  type SandboxCall,
} from '../../helpers/voice.js';

interface IncomingView {
  state: string;
  details: { call: { answers: Array<{ event: string; action: string; by: string; input?: string }> }; fallbacks: number };
}

describe('voice incoming calls while the Temporal server is away', () => {
  let h: Harness;
  let temporal: DevServer;
  let port: number;
  const dir = mkdtempSync(join(tmpdir(), 'relayflow-voice-down-'));
  const dbFilename = join(dir, 'temporal.db');
  const [, menuNumber] = OWN_NUMBERS;

  before(async () => {
    port = await freePort();
    temporal = await startDevServer({ dbFilename, port });
    process.env.TEMPORAL_ADDRESS = temporal.address;
    // No reads of the platform while the server is away: only the DiCEs end the processes.
    h = await startHarness({ env: { RELAYFLOW_VOICE_CHECK_EVERY_MS: '600000' } });
    await wireVoice(h);
    await voiceClient(h).assignNumbers([...OWN_NUMBERS]);
  });
  after(async () => {
    await h?.close();
    await temporal?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const view = async (callId: string): Promise<IncomingView> => {
    const res = await h.api({ method: 'GET', url: `/v1/processes/${encodeURIComponent(`voice-incoming:${callId}`)}` });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  const answered = (callId: string, n: number) =>
    eventually(`${n} callbacks of ${callId} answered`, async () => {
      const c = await sandboxCall(h, callId);
      return c.callbacks.filter((x) => x.event !== 'dice' && x.answer).length >= n ? c : undefined;
    });
  const noFallback = (c: SandboxCall) =>
    assert.ok(
      c.callbacks.every((x) => !x.fallback),
      `no callback fell back: ${JSON.stringify(c.callbacks)}`,
    );

  test('calls keep being answered from their plan while the server is down, and every answer is recorded once it is back', async () => {
    const agent = phone();
    await putIncomingRule(h, menuNumber, {
      start: { type: 'menu', menu: 'main' },
      menus: {
        main: {
          prompt: 'Press 1 for an agent, 2 for opening hours.',
          options: { 1: { type: 'connect', number: agent }, 2: { type: 'menu', menu: 'hours' } },
        },
        hours: { prompt: 'Press 1 to hear our opening hours.', options: { 1: { type: 'play', text: 'We are open from nine to five.' } } },
      },
    });

    // A call begun while the server is up: its process is running.
    const { callId: first } = await incomingCall(h, phone(), menuNumber);
    await h.waitForState(`voice-incoming:${first}`, 'CONNECTED', 20_000);

    await temporal.stop();
    let second: string;
    try {
      // The first call goes on through its menus: a wrong key, the hours menu, the message (then the call ends).
      await pressKeys(h, first, '9');
      await answered(first, 2);
      await pressKeys(h, first, '2');
      await answered(first, 3);
      await pressKeys(h, first, '1');
      const a = await eventually('the first call ended after its message', async () => {
        const c = await sandboxCall(h, first);
        return c.status === 'FINAL' ? c : undefined;
      });
      noFallback(a);
      assert.deepEqual(
        a.callbacks.filter((x) => x.event !== 'dice').map((x) => x.answer?.action?.name),
        ['runMenu', 'runMenu', 'runMenu', 'hangup'],
      );

      // A new call while the server is down: answered from the rule, and connected to the agent.
      ({ callId: second } = await incomingCall(h, phone(), menuNumber));
      await answered(second, 1);
      await pressKeys(h, second, '1');
      const b = await eventually('the second call reached the agent', async () => {
        const c = await sandboxCall(h, second);
        return c.connectedTo === agent && c.callbacks.some((x) => x.event === 'ace' && x.answer) ? c : undefined;
      });
      noFallback(b);
      assert.deepEqual(
        b.callbacks.map((x) => x.answer?.action?.name),
        ['runMenu', 'connectPstn', 'continue'],
      );
      await hangUp(h, second);
      await eventually('the second call ended', async () => ((await sandboxCall(h, second)).status === 'FINAL' ? true : undefined));
    } finally {
      temporal = await startDevServer({ dbFilename, port });
    }

    // Back: every answer is recorded in its process, once, in order, and the DiCEs end both processes.
    const recorded = async (callId: string) =>
      eventually(
        `the process of ${callId} recorded its call and ended`,
        async () => {
          const v = await view(callId);
          return v.state === 'ENDED' ? v : undefined;
        },
        60_000,
      );
    const vFirst = await recorded(first);
    assert.deepEqual(
      vFirst.details.call.answers.map((x) => [x.event, x.action, x.by, x.input]),
      [
        ['ice', 'runMenu', 'plan', undefined],
        ['pie', 'runMenu', 'plan', 'invalidinput:9'],
        ['pie', 'runMenu', 'plan', 'return:2'],
        ['pie', 'hangup', 'plan', 'return:1'],
      ],
    );
    const vSecond = await recorded(second!);
    assert.deepEqual(
      vSecond.details.call.answers.map((x) => [x.event, x.action, x.by]),
      [
        ['ice', 'runMenu', 'plan'],
        ['pie', 'connectPstn', 'plan'],
        ['ace', 'continue', 'plan'],
      ],
    );
    assert.equal(vFirst.details.fallbacks + vSecond.details.fallbacks, 0);
  });
});
