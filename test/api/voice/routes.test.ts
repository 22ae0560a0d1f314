// Voice routes against the real Temporal dev server and the sandbox: what the document refuses is a 400 naming
// the field; a script the process could not carry out is a 422 naming the field and starts nothing; callouts
// start by key; numbers, callback URLs and conferences pass through to the platform; incoming-call rules are
// kept in the store. (Calls placed and followed end to end: test/e2e/voice.)
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, test } from 'node:test';
import { VoiceRuleStore } from '../../../store/index.js';
import { useHarness, TEST_API_KEY, uniqueName } from '../../helpers/harness.js';

type Detail = { field: string; rule: string; message: string };
type Summary = { processId: string };
const fields = (res: { json(): { error: { details?: Detail[] } } }) => (res.json().error.details ?? []).map((d) => d.field);
const path = (id: string) => encodeURIComponent(id);

describe('voice routes', () => {
  // Calls are read soon after they are placed, so a busy callee ends its attempt within a second.
  const h = useHarness({ env: { RELAYFLOW_VOICE_CHECK_EVERY_MS: '300' } });

  const rawRequest = (method: string, url: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(new URL(h.apiUrl), { method, path: url, headers: { authorization: `Bearer ${TEST_API_KEY}` } }, (res) => {
        let body = '';
        res
          .setEncoding('utf8')
          .on('data', (c: string) => (body += c))
          .on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject).end();
    });
  const post = (url: string, payload: unknown) => h.api({ method: 'POST', url, payload: payload as Record<string, unknown> });
  const listedIds = async () => {
    const res = await h.api({ method: 'GET', url: '/v1/voice/callouts?pageSize=1000' });
    assert.equal(res.statusCode, 200, res.body);
    return (res.json().processes as Summary[]).map((p) => p.processId).sort();
  };

  describe('callouts', () => {
    test('schema errors are 400s naming the field: a bad number, an unknown step type, an unknown field', async () => {
      const badNumber = await post('/v1/voice/callouts/tts', { destination: '0700000001', text: 'Hello' });
      assert.equal(badNumber.statusCode, 400, badNumber.body);
      assert.ok(fields(badNumber).includes('body.destination'), badNumber.body);

      const badStep = await post('/v1/voice/callouts/custom', { destination: '+46700000001', script: { start: { type: 'dance' } } });
      assert.equal(badStep.statusCode, 400, badStep.body);
      assert.ok(fields(badStep).includes('body.script.start.type'), badStep.body);

      const extra = await post('/v1/voice/callouts/tts', { destination: '+46700000001', text: 'Hello', colour: 'red' });
      assert.equal(extra.statusCode, 400, extra.body);
      assert.deepEqual(
        extra.json().error.details.map((d: Detail) => `${d.field} ${d.rule}`),
        ['body.colour unknown_field'],
      );

      const badOption = await post('/v1/voice/callouts/custom', {
        destination: '+46700000001',
        script: { start: { type: 'menu', menu: 'main' }, menus: { main: { prompt: 'Press', options: { 12: { type: 'hangup' } } } } },
      });
      assert.equal(badOption.statusCode, 400, badOption.body);
      assert.ok(
        fields(badOption).some((f) => f.startsWith('body.script.menus.main.options')),
        badOption.body,
      );

      const badMenuId = await post('/v1/voice/callouts/custom', {
        destination: '+46700000001',
        script: { start: { type: 'menu', menu: 'main' }, menus: { 'has space': { prompt: 'Press', options: { 1: { type: 'hangup' } } } } },
      });
      assert.equal(badMenuId.statusCode, 400, badMenuId.body);
      assert.ok(fields(badMenuId).includes('body.script.menus'), badMenuId.body);

      const conference = await post('/v1/voice/callouts/conference', { conferenceId: 'has space', destinations: ['+46700000001', '+46700000001'] });
      assert.equal(conference.statusCode, 400, conference.body);
      assert.ok(fields(conference).includes('body.conferenceId'), conference.body);
      assert.ok(fields(conference).includes('body.destinations'), conference.body);
    });

    test('a script that refers to a missing menu is a 422 naming body.script.start.menu, and starts nothing', async () => {
      const key = uniqueName('vc');
      const before = await listedIds();
      const res = await post('/v1/voice/callouts/custom', { key, destination: '+46700000001', script: { start: { type: 'menu', menu: 'main' } } });
      assert.equal(res.statusCode, 422, res.body);
      assert.equal(res.json().error.code, 'validation_failed');
      assert.deepEqual(
        res.json().error.details.map((d: Detail) => `${d.field} ${d.rule}`),
        ['body.script.start.menu exists'],
      );
      // connect cannot answer an answered callout: the process could not carry it out.
      const connect = await post('/v1/voice/callouts/custom', {
        key,
        destination: '+46700000001',
        script: { start: { type: 'connect', number: '+46700000002' } },
      });
      assert.equal(connect.statusCode, 422, connect.body);
      assert.deepEqual(fields(connect), ['body.script.start.type']);

      const read = await h.api({ method: 'GET', url: `/v1/voice/callouts/${path(`voice-callout:${key}`)}` });
      assert.equal(read.statusCode, 404, read.body);
      assert.deepEqual(await listedIds(), before, 'the list is unchanged');
    });

    test('a TTS callout starts by key (202); the same key again answers the same callout (200)', async () => {
      const key = uniqueName('vc');
      const body = { key, destination: '+46700000001', text: 'Your parcel arrives today', locale: 'en-GB', retry: { delaysSeconds: [60], on: ['busy'] } };
      const first = await post('/v1/voice/callouts/tts', body);
      assert.equal(first.statusCode, 202, first.body);
      const processId = `voice-callout:${key}`;
      assert.deepEqual(first.json(), { processId, kind: 'voice-callout', created: true, links: { self: `/v1/voice/callouts/${path(processId)}` } });
      const again = await post('/v1/voice/callouts/tts', body);
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(again.json().processId, processId);
      assert.equal(again.json().created, false);

      const view = await h.api({ method: 'GET', url: first.json().links.self });
      assert.equal(view.statusCode, 200, view.body);
      assert.equal(view.json().kind, 'voice-callout');
      assert.equal(view.json().details.key, key);
      assert.equal(view.json().details.region, 'global');

      const deadline = Date.now() + 10_000;
      let listed: string[] = [];
      while (Date.now() < deadline && !(listed = await listedIds()).includes(processId)) await new Promise((r) => setTimeout(r, 200));
      assert.ok(listed.includes(processId), 'listed');
      // The start paths list the callouts too (they are also process paths, where GET must mean something).
      const underTts = await h.api({ method: 'GET', url: '/v1/voice/callouts/tts?pageSize=1000' });
      assert.equal(underTts.statusCode, 200, underTts.body);
      assert.ok((underTts.json().processes as Summary[]).some((p) => p.processId === processId));
    });

    test('stop: a callout waiting to retry stops (pending retry dropped) and ends as STOPPED', async () => {
      const callees = await fetch(`${h.sandbox.url}/_sandbox/voice/callees`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ rules: [{ suffix: '0077', outcome: 'busy' }] }),
      });
      assert.ok(callees.ok, await callees.text());
      const key = uniqueName('vc');
      const start = await post('/v1/voice/callouts/tts', { key, destination: '+46700000077', text: 'Hello', retry: { delaysSeconds: [3600] } });
      assert.equal(start.statusCode, 202, start.body);
      const { processId, links } = start.json() as { processId: string; links: { self: string } };
      const waiting = await h.waitForState(processId, 'WAITING_RETRY', 20_000);
      // The call, as the platform has it (the process placed it on the global address).
      const callId = (waiting.details as { legs: Array<{ attempts: Array<{ callId: string }> }> }).legs[0]!.attempts[0]!.callId;
      const call = await h.api({ method: 'GET', url: `/v1/voice/calls/${path(callId)}` });
      assert.equal(call.statusCode, 200, call.body);
      assert.equal(call.json().callId, callId);
      assert.equal(call.json().status, 'FINAL');
      assert.equal(call.json().result, 'BUSY');
      assert.deepEqual(call.json().to, { type: 'number', endpoint: '+46700000077' });
      const elsewhere = await h.api({ method: 'GET', url: `/v1/voice/calls/${path(callId)}?region=euc1` });
      assert.equal(elsewhere.statusCode, 404, elsewhere.body);

      const stop = await post(`${links.self}/stop`, { reason: 'no longer needed' });
      assert.equal(stop.statusCode, 200, stop.body);
      assert.deepEqual(stop.json(), { stopped: true, hungUp: 0 });
      const stopped = await h.waitForState(processId, 'STOPPED', 10_000);
      assert.equal((stopped.history as Array<{ reason?: string }>).at(-1)?.reason, 'no longer needed');
      // Ended: nothing to stop any more.
      const again = await post(`${links.self}/stop`, {});
      assert.ok(again.statusCode === 409 || (again.statusCode === 200 && again.json().stopped === false), again.body);
    });

    test('reading or stopping a process of another kind, or none, is a 404', async () => {
      for (const id of ['subproject:p:n', 'voice-callout:nobody-at-all', 'nothing']) {
        const read = await h.api({ method: 'GET', url: `/v1/voice/callouts/${path(id)}` });
        assert.equal(read.statusCode, 404, `${id}: ${read.body}`);
        const stop = await post(`/v1/voice/callouts/${path(id)}/stop`, { reason: 'test' });
        assert.equal(stop.statusCode, 404, `${id}: ${stop.body}`);
      }
    });
  });

  describe('configuration', () => {
    test("the numbers list shows the sandbox's numbers; assign and unassign change it", async () => {
      const list = async () => {
        const res = await h.api({ method: 'GET', url: '/v1/voice/numbers' });
        assert.equal(res.statusCode, 200, res.body);
        return res.json().numbers as Array<{ number: string; capability: string; applicationKey?: string }>;
      };
      const numbers = await list();
      assert.equal(numbers.length, 4, JSON.stringify(numbers));
      assert.deepEqual(
        numbers.map((n) => n.capability),
        ['voice', 'voice', 'voice', 'sms'],
      );
      const number = numbers[2]!.number;
      assert.match(number, /^\+468500\d\d03$/);
      if (numbers[2]!.applicationKey) assert.equal((await post('/v1/voice/numbers/unassign', { number })).statusCode, 204);

      const assign = await post('/v1/voice/numbers/assign', { numbers: [number] });
      assert.equal(assign.statusCode, 204, assign.body);
      assert.equal(assign.body, '');
      assert.equal((await list()).find((n) => n.number === number)?.applicationKey, h.config.platform.credentials.appKey);

      const unassign = await post('/v1/voice/numbers/unassign', { number, capability: 'voice' });
      assert.equal(unassign.statusCode, 204, unassign.body);
      assert.equal((await list()).find((n) => n.number === number)?.applicationKey, undefined);

      // The platform refuses what the account does not own: 422 with its message.
      const notOwned = await post('/v1/voice/numbers/assign', { numbers: ['+46700000009'] });
      assert.equal(notOwned.statusCode, 422, notOwned.body);
      assert.equal(notOwned.json().error.code, 'platform_rejected');
      const twice = await post('/v1/voice/numbers/assign', { numbers: [number, number] });
      assert.equal(twice.statusCode, 400, twice.body);
      assert.ok(fields(twice).includes('body.numbers'), twice.body);
    });

    test('callback URLs are set and read back', async () => {
      const was = await h.api({ method: 'GET', url: '/v1/voice/callback-urls' });
      assert.equal(was.statusCode, 200, was.body);
      const urls = { primary: 'https://relayflow.example.com/callbacks/voice', fallback: 'https://fallback.example.com/callbacks/voice' };
      const put = await h.api({ method: 'PUT', url: '/v1/voice/callback-urls', payload: urls });
      assert.equal(put.statusCode, 204, put.body);
      const read = await h.api({ method: 'GET', url: '/v1/voice/callback-urls' });
      assert.equal(read.statusCode, 200, read.body);
      assert.deepEqual(read.json(), urls);
      const bad = await h.api({ method: 'PUT', url: '/v1/voice/callback-urls', payload: { primary: 'ftp://example.com/x' } });
      assert.equal(bad.statusCode, 400, bad.body);
      assert.ok(fields(bad).includes('body.primary'), bad.body);
      // Put back what the harness had (the worker may have registered its own intake).
      if (was.json().primary) assert.equal((await h.api({ method: 'PUT', url: '/v1/voice/callback-urls', payload: was.json() })).statusCode, 204);
    });
  });

  describe('incoming-call rules', () => {
    const number = '+46850000102';
    const url = (n: string) => `/v1/voice/incoming-rules/${path(n)}`;
    const menuScript = {
      start: { type: 'menu', menu: 'main' },
      menus: {
        main: {
          prompt: 'Press 1 for sales, 2 for the conference',
          options: { 1: { type: 'connect', number: '+46700000001' }, 2: { type: 'conference', conferenceId: 'team-room', moh: 'music1' } },
          repeats: 1,
        },
      },
    };

    test('put, get, list and delete; a connect rule is accepted for ICE, a bad one refused', async () => {
      const connect = { start: { type: 'connect', number: '+46700000001', cli: '+46850000102' } };
      const put = await h.api({ method: 'PUT', url: url(number), payload: { script: connect } });
      assert.equal(put.statusCode, 200, put.body);
      assert.equal(put.json().number, number);
      assert.deepEqual(put.json().script, connect);
      assert.ok(!Number.isNaN(Date.parse(put.json().updatedAt)), put.body);

      const fallback = await h.api({ method: 'PUT', url: url('default'), payload: { script: menuScript } });
      assert.equal(fallback.statusCode, 200, fallback.body);
      assert.deepEqual(fallback.json().script, menuScript);

      const read = await h.api({ method: 'GET', url: url(number) });
      assert.equal(read.statusCode, 200, read.body);
      assert.deepEqual(read.json(), put.json());
      const list = await h.api({ method: 'GET', url: '/v1/voice/incoming-rules' });
      assert.equal(list.statusCode, 200, list.body);
      assert.deepEqual(
        list.json().rules.map((r: { number: string }) => r.number),
        [number, 'default'],
      );

      const missingMenu = await h.api({ method: 'PUT', url: url(number), payload: { script: { start: { type: 'menu', menu: 'nope' } } } });
      assert.equal(missingMenu.statusCode, 422, missingMenu.body);
      assert.deepEqual(fields(missingMenu), ['body.script.start.menu']);
      const badOption = await h.api({
        method: 'PUT',
        url: url(number),
        payload: { script: { ...menuScript, menus: { main: { ...menuScript.menus.main, options: { 3: { type: 'menu', menu: 'other' } } } } } },
      });
      assert.equal(badOption.statusCode, 422, badOption.body);
      assert.deepEqual(fields(badOption), ['body.script.menus.main.options.3.menu']);
      assert.deepEqual((await h.api({ method: 'GET', url: url(number) })).json().script, connect, 'unchanged');
      const badNumber = await h.api({ method: 'PUT', url: url('0850000102'), payload: { script: connect } });
      assert.equal(badNumber.statusCode, 400, badNumber.body);
      assert.ok(fields(badNumber).includes('path.number'), badNumber.body);

      // What the callback intake asks: the number's own rule, else default.
      const rules = new VoiceRuleStore(h.store.sql);
      assert.deepEqual((await rules.match({ to: number }))?.rule.script, connect);
      assert.deepEqual(await rules.match({ to: '+46850000103' }).then((m) => [m?.rule.number, m?.by]), ['default', 'default']);

      const del = await h.api({ method: 'DELETE', url: url(number) });
      assert.equal(del.statusCode, 204, del.body);
      assert.equal((await h.api({ method: 'GET', url: url(number) })).statusCode, 404);
      assert.equal((await h.api({ method: 'DELETE', url: url(number) })).statusCode, 404);
      assert.equal((await rules.match({ to: number }))?.rule.number, 'default');
      assert.equal((await h.api({ method: 'DELETE', url: url('default') })).statusCode, 204);
      assert.equal(await rules.match({ to: number }), undefined);
    });

    test('rules keyed by an in-app user: the caller (user:<id>) first, then the callee (to-user:<id> or the number), then default', async () => {
      const play = (text: string) => ({ start: { type: 'play', text } });
      const caller = `user:${uniqueName('alice')}`;
      const callee = `to-user:${uniqueName('bob')}`;
      for (const [key, text] of [
        [caller, 'caller'],
        [callee, 'callee'],
        [number, 'number'],
        ['default', 'default'],
      ] as const) {
        const put = await h.api({ method: 'PUT', url: url(key), payload: { script: play(text) } });
        assert.equal(put.statusCode, 200, put.body);
        assert.equal(put.json().number, key);
      }
      const rules = new VoiceRuleStore(h.store.sql);
      const picked = async (facts: Parameters<VoiceRuleStore['match']>[0]) => rules.match(facts).then((m) => [m?.rule.number, m?.by]);
      const alice = caller.slice('user:'.length);
      const bob = callee.slice('to-user:'.length);
      // App to app and app to phone: the caller's rule wins.
      assert.deepEqual(await picked({ user: alice, origination: 'mxp', to: bob, toType: 'username' }), [caller, 'caller-user']);
      assert.deepEqual(await picked({ user: alice, origination: 'mxp', to: number, toType: 'number' }), [caller, 'caller-user']);
      // Another in-app caller: the callee's rule, by user or by number.
      assert.deepEqual(await picked({ user: 'carol', origination: 'mxp', to: bob, toType: 'username' }), [callee, 'callee-user']);
      assert.deepEqual(await picked({ user: 'carol', origination: 'mxp', to: number, toType: 'number' }), [number, 'called-number']);
      // A phone call is never routed by a user rule, even one whose name looks like its caller.
      assert.deepEqual(await picked({ user: alice, origination: 'pstn', from: '+46700000009', to: number }), [number, 'called-number']);
      assert.deepEqual(await picked({ user: 'carol', origination: 'mxp', to: 'dave', toType: 'username' }), ['default', 'default']);

      for (const [bad, why] of [
        ['user:', 'no identity'],
        ['user:al ice', 'a space'],
        [`user:${'a'.repeat(65)}`, 'too long'],
        ['username:bob', 'an unknown kind'],
      ] as const) {
        const res = await h.api({ method: 'PUT', url: url(bad), payload: { script: play('x') } });
        assert.equal(res.statusCode, 400, `${why}: ${res.body}`);
        assert.deepEqual(fields(res), ['path.number'], why);
      }
      for (const key of [caller, callee, number, 'default']) assert.equal((await h.api({ method: 'DELETE', url: url(key) })).statusCode, 204);
      assert.deepEqual(
        (await h.api({ method: 'GET', url: '/v1/voice/incoming-rules' })).json().rules.filter((r: { number: string }) => r.number.includes(alice)),
        [],
        'nothing stored by the refused keys',
      );
    });
  });

  describe('conferences and calls', () => {
    test('an unknown conference is a 404; a bad region a 400', async () => {
      const conferenceId = uniqueName('conf');
      const res = await h.api({ method: 'GET', url: `/v1/voice/conferences/${conferenceId}?region=euc1` });
      assert.equal(res.statusCode, 404, res.body);
      assert.equal(res.json().error.code, 'not_found');
      const command = await post(`/v1/voice/conferences/${conferenceId}/participants/call-1/commands`, { command: 'mute' });
      assert.equal(command.statusCode, 404, command.body);
      // `.` would name the conference itself once in the platform's path: no participant has that ID.
      // (Sent as it is: HTTP clients normalise the dot away, a raw request does not.)
      const dot = await rawRequest('DELETE', `/v1/voice/conferences/${conferenceId}/participants/.`);
      assert.equal(dot.status, 404, dot.body);
      assert.match(JSON.parse(dot.body).error.message, /^call \. was not found/);
      const region = await h.api({ method: 'GET', url: `/v1/voice/conferences/${conferenceId}?region=mars` });
      assert.equal(region.statusCode, 400, region.body);
      assert.ok(fields(region).includes('query.region'), region.body);
    });

    test('a leg takes only say and playFiles: a hangup instruction is a 422 naming it; a call takes manage actions only', async () => {
      const leg = await h.api({
        method: 'PATCH',
        url: '/v1/voice/calls/call-1/legs/caller',
        payload: { instructions: [{ name: 'say', text: 'Hello' }, { name: 'hangup' }] },
      });
      assert.equal(leg.statusCode, 422, leg.body);
      assert.deepEqual(
        leg.json().error.details.map((d: Detail) => `${d.field} ${d.rule}`),
        ['body.instructions[1].name legal'],
      );
      const badLeg = await h.api({ method: 'PATCH', url: '/v1/voice/calls/call-1/legs/left', payload: { instructions: [{ name: 'say', text: 'Hello' }] } });
      assert.equal(badLeg.statusCode, 400, badLeg.body);
      assert.ok(fields(badLeg).includes('path.leg'), badLeg.body);

      const menu = await h.api({ method: 'PATCH', url: '/v1/voice/calls/call-1', payload: { action: { name: 'runMenu' } } });
      assert.equal(menu.statusCode, 422, menu.body);
      assert.deepEqual(fields(menu), ['body.action.name']);
      const unknownCall = await h.api({ method: 'GET', url: `/v1/voice/calls/${uniqueName('call')}` });
      assert.equal(unknownCall.statusCode, 404, unknownCall.body);
    });
  });
});
