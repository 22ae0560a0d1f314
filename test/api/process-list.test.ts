// The list of processes as the audit page reads it, against the real Temporal dev server: each row's business key,
// last change and its reason (from the process's memo, phone numbers masked) and what needs a person; the text
// filter; the order by last change with its own pages; counts by kind and state; a clear 400 for a bad parameter.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { useHarness } from '../helpers/harness.js';
import { eventually, startListFixture, type ListFixture } from '../helpers/process-list.js';

interface Row {
  processId: string;
  kind: string;
  state: string;
  businessKey: string;
  lastChangeAt: string;
  reason?: string;
  attention?: string;
}

describe('the list of processes', () => {
  const h = useHarness();
  let f: ListFixture;
  const list = async (query: string) => {
    const res = await h.api({ method: 'GET', url: `/v1/processes?${query}` });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { processes: Row[]; nextPageToken: string; windowFull?: boolean };
  };
  before(async () => {
    f = await startListFixture(h);
  });

  test('rows say state, business key, last change and its reason, and what needs a person', async () => {
    const q = `q=${encodeURIComponent(f.q)}&sort=lastChange`;
    const page = await eventually(
      () => list(q),
      (p) => p.processes.length === 3 && p.processes.some((r) => r.processId === f.paused && r.state === 'PAUSED'),
      'the three processes, the campaign PAUSED',
    );
    const by = new Map(page.processes.map((r) => [r.processId, r]));
    const paused = by.get(f.paused)!;
    assert.equal(paused.reason, `paused through the API: ${f.pauseReason}`);
    assert.equal(paused.attention, 'waiting-on-person');
    assert.equal(paused.businessKey, f.paused.slice('conversation-campaign:'.length));
    const failed = by.get(f.failed)!;
    assert.equal(failed.state, 'FAILED');
    assert.equal(failed.attention, 'failed');
    assert.match(failed.reason ?? '', /displayName rejected by policy; call \+\*\*\*77/);
    assert.doesNotMatch(JSON.stringify(page), /46700000977/, 'the number is masked');
    const ready = by.get(f.ready)!;
    assert.equal(ready.state, 'READY');
    assert.equal(ready.attention, undefined);
    assert.equal(ready.reason, undefined, 'READY came without a reason');
    // Ordered by last change: the pause is the newest change.
    assert.equal(page.processes[0]!.processId, f.paused);
    const times = page.processes.map((r) => r.lastChangeAt);
    assert.deepEqual([...times].sort().reverse(), times);
    assert.equal(page.windowFull, false);
  });

  test('sort=lastChange pages with its own tokens', async () => {
    const q = `q=${encodeURIComponent(f.q)}&sort=lastChange`;
    const first = await list(`${q}&pageSize=2`);
    assert.equal(first.processes.length, 2);
    assert.ok(first.nextPageToken);
    const second = await list(`${q}&pageSize=2&pageToken=${first.nextPageToken}`);
    assert.equal(second.processes.length, 1);
    assert.equal(second.nextPageToken, '');
    const ids = [...first.processes, ...second.processes].map((r) => r.processId).sort();
    assert.deepEqual(ids, [f.ready, f.failed, f.paused].sort());
    // A token of one order is refused by the other, naming the field.
    const wrong = await h.api({ method: 'GET', url: `/v1/processes?q=${encodeURIComponent(f.q)}&pageToken=${first.nextPageToken}` });
    assert.equal(wrong.statusCode, 400, wrong.body);
    assert.equal(wrong.json().error.details[0].field, 'query.pageToken');
  });

  test('the filters narrow the list: text, kind, state', async () => {
    const q = `q=${encodeURIComponent(f.q)}`;
    assert.deepEqual((await list(`${q}&kind=subproject`)).processes.map((r) => r.processId).sort(), [f.ready, f.failed].sort());
    assert.deepEqual(
      (await list(`${q}&state=PAUSED`)).processes.map((r) => r.processId),
      [f.paused],
    );
    // A whole process ID is text too, and so is its start.
    assert.deepEqual(
      (await list(`q=${encodeURIComponent(f.failed)}`)).processes.map((r) => r.processId),
      [f.failed],
    );
    assert.equal((await list(`q=${encodeURIComponent(`${f.q}-nothing`)}`)).processes.length, 0);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    assert.equal((await list(`${q}&startedAfter=${future}`)).processes.length, 0);
  });

  test('counts by kind and state, waiting on a person and failed, under the same filters', async () => {
    const res = await h.api({ method: 'GET', url: `/v1/processes/counts?q=${encodeURIComponent(f.q)}` });
    assert.equal(res.statusCode, 200, res.body);
    const c = res.json();
    assert.deepEqual(
      { total: c.total, waitingOnPerson: c.waitingOnPerson, failed: c.failed, otherStates: c.otherStates },
      { total: 3, waitingOnPerson: 1, failed: 1, otherStates: 0 },
    );
    assert.deepEqual(c.byKind, [
      { kind: 'subproject', count: 2 },
      { kind: 'conversation-campaign', count: 1 },
    ]);
    const states = Object.fromEntries(c.byState.map((s: { state: string; count: number }) => [s.state, s.count]));
    assert.deepEqual(states, { READY: 1, FAILED: 1, PAUSED: 1 });
    const one = await h.api({ method: 'GET', url: `/v1/processes/counts?q=${encodeURIComponent(f.q)}&kind=subproject` });
    assert.equal(one.json().total, 2);
  });

  test('a bad parameter is a 400 naming it', async () => {
    for (const [query, field] of [
      ['sort=newest', 'query.sort'],
      ['q=%20', 'query.q'],
      ['q=a%01b', 'query.q'],
      ['startedAfter=yesterday', 'query.startedAfter'],
    ] as const) {
      for (const path of query.startsWith('sort') ? ['/v1/processes'] : ['/v1/processes', '/v1/processes/counts']) {
        const res = await h.api({ method: 'GET', url: `${path}?${query}` });
        assert.equal(res.statusCode, 400, `${path}?${query}: ${res.body}`);
        assert.ok(
          res.json().error.details.some((d: { field: string }) => d.field === field),
          `${path}?${query} names ${field}: ${res.body}`,
        );
      }
    }
    const counts = await h.api({ method: 'GET', url: '/v1/processes/counts?state=READY' });
    assert.equal(counts.statusCode, 400, 'counts take no state: they count by state');
  });
});
