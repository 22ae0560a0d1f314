// The consent words: defaults, a list of one's own (case and spaces normalised), and the rules: words of letters or
// digits only, and no word in both lists; each problem names its variable.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { generateCodecKey } from '../../common/codec.js';
import { loadConfig } from '../../common/config.js';

const base = {
  RELAYFLOW_API_KEYS: 'a-very-long-api-key-for-tests-000',
  RELAYFLOW_CODEC_KEYS: generateCodecKey('k1'),
  PLATFORM_SANDBOX_URL: 'http://127.0.0.1:4010',
};

function fails(env: Record<string, string>, variable: string, rule: RegExp) {
  assert.throws(
    () => loadConfig({ ...base, ...env }),
    (err: unknown) => {
      assert.ok(err instanceof Error);
      assert.match(err.message, new RegExp(`^${variable}: `), err.message);
      assert.match(err.message, rule);
      return true;
    },
  );
}

describe('consent configuration', () => {
  test('the defaults: STOP and its kin out, START, UNSTOP and YES in', () => {
    assert.deepEqual(loadConfig(base).consent, {
      optOutWords: ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT'],
      optInWords: ['START', 'UNSTOP', 'YES'],
    });
  });

  test("a list of one's own, normalised as replies are compared", () => {
    const c = loadConfig({ ...base, RELAYFLOW_CONSENT_OPT_OUT_WORDS: 'stop, Stop All ,arrêt', RELAYFLOW_CONSENT_OPT_IN_WORDS: 'go' });
    assert.deepEqual(c.consent, { optOutWords: ['STOP', 'STOPALL', 'ARRÊT'], optInWords: ['GO'] });
  });

  test('bad words and a word in both lists name their variable', () => {
    fails({ RELAYFLOW_CONSENT_OPT_OUT_WORDS: 'STOP,,QUIT' }, 'RELAYFLOW_CONSENT_OPT_OUT_WORDS', /letters or digits/);
    fails({ RELAYFLOW_CONSENT_OPT_IN_WORDS: 'START!' }, 'RELAYFLOW_CONSENT_OPT_IN_WORDS', /letters or digits/);
    fails({ RELAYFLOW_CONSENT_OPT_IN_WORDS: 'START,stop' }, 'RELAYFLOW_CONSENT_OPT_IN_WORDS', /STOP is also an opt-out word/);
  });
});
