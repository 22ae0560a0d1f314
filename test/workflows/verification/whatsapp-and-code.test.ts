// WhatsApp as a step of the fallback chain, the code's alphabet and length, and the SMS template's locale,
// through the API on the real Temporal dev server against the sandbox.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useHarness, type Harness } from '../../helpers/harness.js';
import { freshNumber, messageFor, phoneInbox, report, setWhatsApp, startVerification } from '../../helpers/verification.js';

interface View {
  state: string;
  details: { currentStep: number; current?: { method: string; verificationId: string }; platformVerifications: { method: string }[] };
  history: { reason?: string }[];
}

const view = async (h: Harness, processId: string): Promise<View> =>
  (await h.api({ method: 'GET', url: `/v1/verifications/${encodeURIComponent(processId)}` })).json();

let french = 0;
/** A French mobile number: the sandbox's carrier rule gives +33 numbers fr-FR whatever Accept-Language says. */
const frenchNumber = () => `+3361${String(process.pid % 1000).padStart(3, '0')}${String((french += 1)).padStart(4, '0')}`;

describe('verification: whatsapp, code options and the template locale', () => {
  const h = useHarness({});

  test('[whatsapp, sms]: the WhatsApp step delivers a code and the right code verifies; no SMS is sent', async () => {
    const identity = freshNumber();
    const s = await startVerification(h, { identity, fallback: [{ method: 'whatsapp' }, { method: 'sms' }] });
    assert.equal(s.state, 'PENDING', JSON.stringify(s));
    assert.equal(s.current!.method, 'whatsapp');
    assert.deepEqual((s.current as { whatsapp?: unknown }).whatsapp, { codeType: 'Numeric' });
    const message = await messageFor(h, identity, s.current!.verificationId);
    assert.equal(message.kind, 'whatsapp');
    assert.match(message.code!, /^\d{4}$/, 'the platform default: four digits');
    const res = await report(h, s.processId, message.code!);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().result, 'SUCCESSFUL');
    await h.waitForState(s.processId, 'SUCCESSFUL');
    assert.deepEqual(
      (await phoneInbox(h, identity)).map((m) => m.kind),
      ['whatsapp'],
    );
  });

  test('an account without WhatsApp refuses the step: nothing is sent, the chain falls back to sms, which verifies', async () => {
    await setWhatsApp(h, false);
    try {
      const identity = freshNumber();
      const s = await startVerification(h, { identity, fallback: [{ method: 'whatsapp' }, { method: 'sms' }] });
      assert.equal(s.state, 'PENDING', JSON.stringify(s));
      assert.equal(s.current!.method, 'sms', 'the start answers with the step that was sent');
      const sms = await messageFor(h, identity, s.current!.verificationId);
      assert.equal((await report(h, s.processId, sms.code!)).json().result, 'SUCCESSFUL');
      await h.waitForState(s.processId, 'SUCCESSFUL');
      const v = await view(h, s.processId);
      assert.equal(v.details.currentStep, 1);
      assert.deepEqual(
        v.details.platformVerifications.map((p) => p.method),
        ['sms'],
        'no WhatsApp verification exists',
      );
      assert.ok(
        v.history.some((c) => /refused the whatsapp start \(.*Method not enabled.*\): nothing was sent; falling back to sms/.test(c.reason ?? '')),
        JSON.stringify(v.history),
      );
      assert.deepEqual(
        (await phoneInbox(h, identity)).map((m) => m.kind),
        ['sms'],
      );

      // Alone (no next step), the refusal ends the process DENIED naming it.
      const alone = await startVerification(h, { identity: freshNumber(), method: 'whatsapp' });
      assert.equal(alone.state, 'DENIED');
      assert.match(alone.reason!, /Method not enabled/);
    } finally {
      await setWhatsApp(h, true);
    }
  });

  test('code options: the platform generates the code in the alphabet and of the length asked for, by sms and by whatsapp', async () => {
    const cases: Array<[string, { type?: string; length?: number }, RegExp]> = [
      ['sms', { type: 'Alpha', length: 8 }, /^[A-Z]{8}$/],
      ['sms', { length: 10 }, /^\d{10}$/],
      ['whatsapp', { type: 'Alphanumeric', length: 6 }, /^[A-Z0-9]{6}$/],
      ['whatsapp', { type: 'Numeric', length: 4 }, /^\d{4}$/],
    ];
    for (const [method, code, shape] of cases) {
      const identity = freshNumber();
      const s = await startVerification(h, { identity, method, code });
      const message = await messageFor(h, identity, s.current!.verificationId);
      assert.match(message.code!, shape, `${method} ${JSON.stringify(code)}: ${message.code}`);
      if (code.type) assert.equal((s.current as Record<string, { codeType?: string }>)[method]!.codeType, code.type);
      // A person types letters in lower case; the platform compares without case.
      assert.equal((await report(h, s.processId, message.code!.toLowerCase())).json().result, 'SUCCESSFUL');
      await h.waitForState(s.processId, 'SUCCESSFUL');
    }
  });

  test("the start's language is the SMS template's locale: it wins over the carrier's language", async () => {
    const identity = frenchNumber();
    const s = await startVerification(h, { identity, method: 'sms', language: 'de-DE' });
    assert.equal(s.current!.language, 'de-DE', 'Accept-Language alone would get the carrier rule (fr-FR)');
    const sms = await messageFor(h, identity, s.current!.verificationId);
    assert.equal(sms.language, 'de-DE');
    assert.match(sms.text!, /^Ihr Bestätigungscode lautet /);
    const plain = frenchNumber();
    const other = await startVerification(h, { identity: plain, method: 'sms' });
    assert.equal(other.current!.language, 'fr-FR', 'without a language the carrier rule applies');
  });

  test('bad code options are refused naming the field and the rule, and start nothing', async () => {
    const cases: Array<[Record<string, unknown>, string, number]> = [
      [{ method: 'sms', code: { length: 3 } }, 'body.code.length', 400],
      [{ method: 'sms', code: { length: 11 } }, 'body.code.length', 400],
      [{ method: 'whatsapp', code: { length: 6.5 } }, 'body.code.length', 400],
      [{ method: 'sms', code: { type: 'Emoji' } }, 'body.code.type', 400],
      [{ method: 'sms', code: { size: 6 } }, 'body.code.size', 400],
      // The schema allows it; no step of the chain takes code options: 422.
      [{ fallback: [{ method: 'flashcall' }, { method: 'callout' }], code: { length: 6 } }, 'body.code', 422],
    ];
    for (const [body, field, status] of cases) {
      const identity = freshNumber();
      const res = await h.api({ method: 'POST', url: '/v1/verifications', payload: { identity, ...body } });
      assert.equal(res.statusCode, status, `${JSON.stringify(body)}: ${res.body}`);
      const details = res.json().error.details as { field: string; rule: string }[];
      assert.ok(
        details.some((d) => d.field === field && d.rule),
        `${field}: ${res.body}`,
      );
      assert.deepEqual(await phoneInbox(h, identity), [], 'nothing was sent');
    }
  });
});
