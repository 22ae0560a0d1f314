// The sandbox area kit: the tables and kept values, the one field validator, the callback hubs (faults, order,
// reorder, delay) and ctx.own (reset, close, kept state), each on its own.
import { test, describe, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CallbackHub, SandboxCallbacks, type CallbackFate } from '../../../sandbox/core/callback-hub.js';
import { CallbackDispatcher } from '../../../sandbox/core/callbacks.js';
import { SandboxContext } from '../../../sandbox/core/context.js';
import { AreaError } from '../../../sandbox/core/errors.js';
import { Fields } from '../../../sandbox/core/fields.js';
import { resolveOptions } from '../../../sandbox/core/options.js';
import { KeptValue } from '../../../sandbox/core/kept.js';
import { KeyedTable, Lists, ScopedTable } from '../../../sandbox/core/table.js';
import { Timers } from '../../../sandbox/core/timers.js';

describe('ScopedTable', () => {
  test('records are found only in their scope, listed per scope in the order added, removed and reset', () => {
    const t = new ScopedTable<{ id: string; n: number }>();
    t.add('p1', { id: 'a', n: 1 });
    t.add('p2', { id: 'b', n: 2 });
    t.add('p1', { id: 'c', n: 3 });
    assert.equal(t.get('p1', 'a')?.n, 1);
    assert.equal(t.get('p2', 'a'), undefined, 'another scope does not see it');
    assert.deepEqual(t.find('a'), { projectId: 'p1', item: { id: 'a', n: 1 } });
    assert.deepEqual(
      t.list('p1').map((i) => i.id),
      ['a', 'c'],
    );
    assert.throws(() => t.mustGet('p2', 'a', () => new AreaError(404, 'gone')), /gone/);
    assert.equal(t.remove('p2', 'a'), false);
    assert.equal(t.remove('p1', 'a'), true);
    assert.deepEqual(
      t.all().map((i) => i.id),
      ['b', 'c'],
    );
    t.reset();
    assert.deepEqual(t.all(), []);
  });

  test('save() and load() carry the scope as entries, or the bare records of a table whose records name it', () => {
    const t = new ScopedTable<{ id: string }>();
    t.add('p1', { id: 'a' });
    assert.deepEqual(t.save(), [{ projectId: 'p1', item: { id: 'a' } }]);
    const copy = new ScopedTable<{ id: string }>();
    copy.add('p9', { id: 'gone' });
    copy.load(JSON.parse(JSON.stringify(t.save())));
    assert.deepEqual(copy.get('p1', 'a'), { id: 'a' });
    assert.equal(copy.find('gone'), undefined, 'a load replaces what was there');

    const own = new ScopedTable<{ key: string; owner: string }>({ id: (r) => r.key, scope: (r) => r.owner });
    own.add({ key: 'k', owner: 'o' });
    own.add({ key: 'k', owner: 'o' });
    assert.equal(own.list('o').length, 1, 'the same id again replaces, in place');
    const loaded = new ScopedTable<{ key: string; owner: string }>({ id: (r) => r.key, scope: (r) => r.owner });
    loaded.load(own.save());
    assert.deepEqual(loaded.get('o', 'k'), { key: 'k', owner: 'o' });
  });

  test('KeyedTable saves as one object and loads back in place of what it held; KeptValue resets to its initial', () => {
    const k = new KeyedTable<number[]>();
    k.set('x', [1]);
    const copy = new KeyedTable<number[]>();
    copy.set('y', [9]);
    copy.load(JSON.parse(JSON.stringify(k.save())));
    assert.deepEqual(copy.save(), { x: [1] });
    copy.reset();
    assert.equal(copy.size, 0);

    const v = new KeptValue(() => ({ n: 0 }));
    v.value.n = 3;
    const w = new KeptValue(() => ({ n: 0 }));
    w.load(JSON.parse(JSON.stringify(v.save())));
    assert.equal(w.value.n, 3);
    w.reset();
    assert.equal(w.value.n, 0);
  });

  test('Lists: records per key in the order added', () => {
    const l = new Lists<number>();
    l.add('x', 1);
    l.add('x', 2);
    assert.deepEqual(l.get('x'), [1, 2]);
    assert.deepEqual(l.get('y'), []);
    l.reset();
    assert.deepEqual(l.get('x'), []);
  });
});

describe('Fields', () => {
  const refuse = (violations: unknown[], what?: string) => new AreaError(400, what ?? 'bad', { details: violations as never });

  test('collects every broken field, then check() throws the area’s error with them', () => {
    const f = new Fields({ refuse });
    const body = f.body({ name: 5, extra: 1, list: [], n: 0 }, ['name', 'list', 'n']);
    f.string(body, 'name', '', { required: true });
    f.array(body, 'list', '', { min: 1 });
    f.integer(body, 'n', '', { min: 1 });
    f.oneOf(body, 'kind', '', ['A', 'B'], true);
    assert.deepEqual(f.violations, [
      { field: 'extra', description: 'is unknown' },
      { field: 'name', description: 'must be a string' },
      { field: 'list', description: 'must not be empty' },
      { field: 'n', description: 'must be at least 1' },
      { field: 'kind', description: 'is required; must be one of A, B' },
    ]);
    assert.throws(
      () => f.check('Invalid'),
      (e: unknown) => e instanceof AreaError && e.message === 'Invalid' && e.details?.length === 5,
    );
  });

  test('the conversation wording, and a rule named with a violation', () => {
    const f = new Fields({ refuse, wording: 'conversation' });
    const body = f.body(undefined, ['a']);
    assert.deepEqual(body, {});
    f.integer({ n: 0 }, 'n', 'x', { min: 1, max: 9 });
    f.array({ l: [] }, 'l', '', { min: 1 });
    f.boolean({ b: null }, 'b', '');
    f.url({ u: 'ftp://x' }, 'u', '');
    f.add('s', 's is required', 'required');
    assert.deepEqual(
      f.violations.map((v) => `${v.field}: ${v.description}`),
      [
        'body: is required',
        'x.n: must be between 1 and 9',
        'l: must have at least 1 item',
        'b: must be a boolean',
        'u: must be an absolute http or https URL',
        's: s is required',
      ],
    );
    assert.deepEqual(f.violations.at(-1), { field: 's', rule: 'required', description: 's is required' });
    new Fields({ refuse }).check();
  });
});

/** Records the bodies it receives, in arrival order. */
class Receiver {
  bodies: unknown[] = [];
  url = '';
  private readonly server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      this.bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.writeHead(200).end('{}');
    });
  });

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

async function waitFor(cond: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fate = (): CallbackFate => ({ delivery: 'none', duplicated: false, reordered: false, delayMs: 0 });

describe('CallbackHub', () => {
  const receiver = new Receiver();
  before(() => receiver.start());
  after(() => receiver.stop());

  function hub(reorder: 'next' | 'each', maxHoldMs?: number) {
    const timers = new Timers();
    const sandbox = new SandboxCallbacks(new CallbackDispatcher());
    const h = new CallbackHub(sandbox, { area: 'provisioning', timers, reorder, logSize: 10, ...(maxHoldMs !== undefined ? { maxHoldMs } : {}) });
    const send = (key: string, n: number, opts: { holdable?: boolean; nobody?: boolean } = {}) => {
      const f = fate();
      h.send({ fate: f, key, body: { key, n }, targets: opts.nobody ? [] : [{ url: receiver.url }], ...(opts.holdable === false ? { holdable: false } : {}) });
      return f;
    };
    return { h, sandbox, timers, send };
  }

  test('drop, then duplicate; nobody to send to uses no fault; the fates are logged', async () => {
    receiver.bodies = [];
    const { h, timers, sandbox, send } = hub('next');
    h.faults = { drop: 1, duplicate: 1, reorder: false, delayMs: 0 };
    assert.equal(send('r', 0, { nobody: true }).delivery, 'none');
    assert.equal(send('r', 1).delivery, 'dropped');
    assert.equal(send('r', 2).duplicated, true);
    await waitFor(() => receiver.bodies.length === 2);
    assert.deepEqual(receiver.bodies, [
      { key: 'r', n: 2 },
      { key: 'r', n: 2 },
    ]);
    assert.deepEqual(
      h.log().map((f) => f.delivery),
      ['none', 'dropped', 'sent'],
    );
    assert.deepEqual(h.faults, { drop: 0, duplicate: 0, reorder: false, delayMs: 0 });
    timers.close();
    sandbox.close();
  });

  test("reorder 'next': the next callback is held until the next one of its key, once", async () => {
    receiver.bodies = [];
    const { h, timers, sandbox, send } = hub('next', 10_000);
    h.faults.reorder = true;
    const held = send('r', 1);
    assert.equal(held.delivery, 'held');
    assert.equal(h.faults.reorder, false, 'used up');
    send('other', 2);
    await waitFor(() => receiver.bodies.length === 1);
    send('r', 3);
    await waitFor(() => receiver.bodies.length === 3);
    assert.deepEqual(
      receiver.bodies.map((b) => (b as { n: number }).n),
      [2, 3, 1],
    );
    assert.equal(held.reordered, true);
    timers.close();
    sandbox.close();
  });

  test("reorder 'each': every holdable one while set; a held one goes out when its partner is dropped", async () => {
    receiver.bodies = [];
    const { h, timers, sandbox, send } = hub('each');
    h.faults.reorder = true;
    send('m1', 1);
    send('m2', 1);
    send('m1', 2, { holdable: false });
    await waitFor(() => receiver.bodies.length === 2);
    assert.deepEqual(receiver.bodies, [
      { key: 'm1', n: 2 },
      { key: 'm1', n: 1 },
    ]);
    h.faults.drop = 1;
    send('m2', 2, { holdable: false });
    await waitFor(() => receiver.bodies.length === 3);
    assert.deepEqual(receiver.bodies[2], { key: 'm2', n: 1 });
    timers.close();
    sandbox.close();
  });

  test('delay holds every delivery; a reset in the meantime cancels it', async () => {
    receiver.bodies = [];
    const { h, timers, sandbox, send } = hub('next');
    h.faults.delayMs = 100;
    const started = Date.now();
    send('r', 1);
    await waitFor(() => receiver.bodies.length === 1);
    assert.ok(Date.now() - started >= 95);
    send('r', 2);
    timers.reset();
    h.reset();
    await sleep(200);
    assert.equal(receiver.bodies.length, 1);
    assert.deepEqual(h.faults, { drop: 0, duplicate: 0, reorder: false, delayMs: 0 });
    sandbox.close();
  });

  test('the sandbox-wide faults apply to each copy the hub hands on', async () => {
    receiver.bodies = [];
    const { h, timers, sandbox, send } = hub('next');
    sandbox.faults.drop = 1;
    h.faults.duplicate = 1;
    send('r', 1);
    await waitFor(() => sandbox.list().length === 2 && sandbox.list()[1]!.outcome !== 'pending');
    assert.equal(receiver.bodies.length, 1);
    assert.deepEqual(
      sandbox.list().map((r) => r.outcome),
      ['dropped', 'delivered'],
    );
    timers.close();
    sandbox.close();
  });
});

describe('SandboxContext.own', () => {
  test('parts reset in order on reset and close once on close; kept parts saved and loaded by name, then resumed', () => {
    const ctx = new SandboxContext(resolveOptions({}));
    const seen: string[] = [];
    const counts = new KeyedTable<number>();
    const total = new KeptValue(() => 0);
    ctx.own({
      parts: [{ reset: () => seen.push('a.reset'), close: () => seen.push('a.close') }, { reset: () => seen.push('b.reset') }],
      kept: { name: 'kit', parts: { counts, total }, resume: () => seen.push(`resume ${total.value}`) },
    });
    ctx.reset();
    ctx.close();
    assert.deepEqual(seen, ['a.reset', 'b.reset', 'a.close']);
    const kit = ctx.persistedAreas.find((a) => a.name === 'kit')!;
    counts.set('x', 2);
    total.value = 2;
    const saved = JSON.parse(JSON.stringify(kit.persist()));
    assert.deepEqual(saved, { counts: { x: 2 }, total: 2 });
    counts.reset();
    total.reset();
    kit.restore({ total: 5 });
    assert.deepEqual([counts.size, total.value], [0, 5], 'a part missing from the saved state stays empty');
    kit.restore(saved);
    assert.deepEqual([counts.get('x'), total.value], [2, 2]);
    assert.deepEqual(seen.slice(3), ['resume 5', 'resume 2']);
    assert.throws(() => kit.restore('not an object'), /not an object/);
    assert.throws(() => ctx.own({ parts: [], kept: { name: 'kit', parts: {} } }), /twice/);
  });
});

describe('Timers', () => {
  test('after close() nothing is scheduled; the clamp keeps a very long delay from firing at once', async () => {
    const timers = new Timers();
    let fired = 0;
    timers.after(2 ** 40, () => fired++);
    await sleep(20);
    assert.equal(fired, 0, "a delay beyond setTimeout's ceiling waits");
    timers.close();
    timers.after(0, () => fired++);
    await sleep(20);
    assert.equal(fired, 0);
  });
});
