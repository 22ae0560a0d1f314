// The call driver decides every answer a call's process gives: checked here without Temporal, event by event,
// including the answers that must never reach the platform illegal (a connect on ACE, a menu that does not exist).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { svamlViolations } from '../../../common/wire/voice-svaml.js';
import type { CallAttempt, CallScript, VoiceCallbackEvent } from '../../../processes/voice/contract.js';
import { CallDriver, type CallPlan } from '../../../processes/voice/call-driver.js';
import { MAX_MENU_ROUNDS, scriptViolations } from '../../../processes/voice/call-script.js';

const attempt = (): CallAttempt => ({ attempt: 1, placedAt: '2026-01-01T00:00:00Z', state: 'placing', answers: [] });
const ev = (event: VoiceCallbackEvent['event'], more: Partial<VoiceCallbackEvent> = {}): VoiceCallbackEvent => ({
  event,
  callId: 'c1',
  receivedAt: '2026-01-01T00:00:01Z',
  ...more,
});
const pie = (type: string, value?: string) => ev('pie', { menuResult: { type, ...(value ? { value } : {}) } });

const ivr: CallScript = {
  start: { type: 'menu', menu: 'main' },
  menus: {
    main: { prompt: 'Press 1 or 2', options: { 1: { type: 'play', text: 'Open nine to five' }, 2: { type: 'menu', menu: 'sub' } } },
    sub: { prompt: 'Press 1 for sales', options: { 1: { type: 'connect', number: '+46700000001' } } },
  },
};

test('tts: ACE continues for a person, hangs up on a machine unless told to go on', () => {
  const person = new CallDriver({ kind: 'tts' }, attempt());
  assert.equal(person.answer(ev('ace', { amd: { status: 'human' } })).action.name, 'continue');
  const machine = new CallDriver({ kind: 'tts', amd: { enabled: true } }, attempt());
  assert.equal(machine.answer(ev('ace', { amd: { status: 'machine', reason: 'longgreeting' } })).action.name, 'hangup');
  assert.equal(machine.attempt.amd?.status, 'machine');
  assert.equal(machine.attempt.state, 'answered');
  const leaveMessage = new CallDriver({ kind: 'tts', amd: { enabled: true, onMachine: 'continue' } }, attempt());
  assert.equal(leaveMessage.answer(ev('ace', { amd: { status: 'machine' } })).action.name, 'continue');
});

test('custom: ICE connects the destination with the CLI, ACE runs the script, the record names the call', () => {
  const plan: CallPlan = { kind: 'custom', destination: '+46700000009', cli: '+4685000101', script: { start: { type: 'play', text: 'Hello' } } };
  const d = new CallDriver(plan, attempt());
  const ice = d.answer(ev('ice'));
  assert.deepEqual(ice.action, { name: 'connectPstn', number: '+46700000009', cli: '+4685000101' });
  assert.equal(d.attempt.callId, 'c1', "a callback before the callout's answer names the call");
  const ace = d.answer(ev('ace'));
  assert.equal(ace.action.name, 'hangup');
  assert.deepEqual(
    ace.instructions?.map((i) => i.name),
    ['say'],
    'no answer instruction outside ICE',
  );
  assert.deepEqual(
    d.attempt.answers.map((a) => `${a.event}:${a.action}`),
    ['ice:connectPstn', 'ace:hangup'],
  );
});

test('incoming IVR: keys move through menus, a wrong key asks again, the chosen step is carried out', () => {
  const d = new CallDriver({ kind: 'incoming', script: ivr }, attempt());
  const ice = d.answer(ev('ice'));
  assert.equal(ice.action.name, 'runMenu');
  assert.equal(ice.instructions?.[0]?.name, 'answer', 'ICE answers the call before the menu');
  const menus = ice.action.menus as Array<{ id: string; options: Array<{ dtmf: string; action: string }> }>;
  assert.deepEqual(menus[0]!.options, [
    { dtmf: '1', action: 'return(1)' },
    { dtmf: '2', action: 'return(2)' },
  ]);
  const wrong = d.answer(pie('invalidinput', '9'));
  assert.equal(wrong.action.name, 'runMenu');
  assert.match(JSON.stringify(wrong.instructions), /not one of the choices/);
  const sub = d.answer(pie('return', '2'));
  assert.equal((sub.action.menus as Array<{ id: string }>)[0]!.id, 'sub');
  assert.deepEqual(d.answer(pie('return', '1')).action, { name: 'connectPstn', number: '+46700000001' });
  assert.deepEqual(
    d.attempt.answers.map((a) => a.input),
    [undefined, 'invalidinput:9', 'return:2', 'return:1'],
  );
  for (const a of [ice, wrong, sub]) assert.deepEqual(svamlViolations(a === ice ? 'ice' : 'pie', a), []);
});

test('a menu timeout says goodbye; endless wrong keys end after MAX_MENU_ROUNDS', () => {
  const timedOut = new CallDriver({ kind: 'incoming', script: ivr }, attempt());
  timedOut.answer(ev('ice'));
  const bye = timedOut.answer(pie('timeout'));
  assert.equal(bye.action.name, 'hangup');
  assert.match(JSON.stringify(bye.instructions), /Goodbye/);
  const stubborn = new CallDriver({ kind: 'incoming', script: ivr }, attempt());
  stubborn.answer(ev('ice'));
  const names: string[] = [];
  for (let i = 0; i < MAX_MENU_ROUNDS + 2; i++) names.push(stubborn.answer(pie('invalidinput', '7')).action.name);
  assert.equal(names.filter((n) => n === 'runMenu').length, MAX_MENU_ROUNDS - 1);
  assert.equal(names.at(-1), 'hangup');
});

test('no rule: the incoming call is answered with a legal hangup; a PIE with no menu running hangs up', () => {
  const d = new CallDriver({ kind: 'incoming', script: { start: { type: 'hangup', text: 'Not in service' } } }, attempt());
  const ice = d.answer(ev('ice'));
  assert.equal(ice.action.name, 'hangup');
  assert.deepEqual(svamlViolations('ice', ice), []);
  assert.equal(d.answer(pie('return', '1')).action.name, 'hangup');
});

test('scripts are checked before they run: missing menus, connect on ACE, bad option keys, empty menus', () => {
  assert.deepEqual(scriptViolations(ivr, 'ice'), []);
  assert.deepEqual(scriptViolations(ivr, 'ace'), []);
  const bad: CallScript = {
    start: { type: 'connect', number: '+46700000001' },
    menus: { m: { prompt: 'p', options: { x: { type: 'menu', menu: 'nowhere' } } }, e: { prompt: 'p', options: {} } },
  };
  const fields = scriptViolations(bad, 'ace').map((v) => `${v.field} ${v.rule}`);
  assert.deepEqual(fields.sort(), ['menus.e.options minProperties', 'menus.m.options.x key', 'menus.m.options.x.menu exists', 'start.type legal'].sort());
  assert.deepEqual(scriptViolations({ start: { type: 'connect', number: '+46700000001' } }, 'ice'), [], 'connect is legal on ICE');
});
