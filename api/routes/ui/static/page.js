// The audit page: where every process is and why, and one's timeline, from the API's own routes with the key the
// person pastes (kept for this tab only: sessionStorage, and taken out of the address once read). The list is ordered
// by last change, counted by kind and state, filtered, and refreshed (every 15 s, or as picked) with the open process. The address
// `#key=...&process=...&kind=...&state=...&q=...&from=...&to=...&refresh=...` opens the page so. An ES module (the
// browser loads its parts itself: no build step).
import { createActions, setScope } from './actions.js';
import { calloutCalls, verificationChain } from './calls.js';
import { createEventsPane } from './events.js';
import { ago, clock, el, mask, replaceKeepingFocus, svgEl } from './dom.js';
import { rateSparkline, sampleCampaign } from './sparkline.js';

{
  const PAGE = 50;
  const $ = (id) => document.getElementById(id);
  const params = new URLSearchParams(location.hash.slice(1));
  let key = params.get('key') || sessionStorage.getItem('relayflow-key') || '';
  if (params.has('key')) {
    // The key stays in the tab: not in the address bar, the history or a copied link.
    params.delete('key');
    history.replaceState(null, '', `${location.pathname}${location.search}${params.toString() ? `#${params}` : ''}`);
  }
  let listToken = '';
  let listed = 0;
  let current = { id: '', token: '', loaded: 0 };
  let busy = false;
  $('key').value = key;

  const status = (text) => {
    $('status').textContent = text;
  };
  const age = (iso) => ago(iso).replace(/ ago$/, '');

  async function api(path, accept = 'application/json') {
    const res = await fetch(path, { headers: { authorization: `Bearer ${key}`, accept } });
    if (!res.ok) {
      let message = `${res.status}`;
      try {
        message = (await res.json()).error.message;
      } catch {
        /* not JSON */
      }
      throw new Error(message);
    }
    return accept === 'text/csv' ? res.text() : res.json();
  }
  /** A change: answers { ok, status, body } whatever the status (the page tells a refusal as it came). */
  async function post(path, body, idempotencyKey) {
    const res = await fetch(path, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, accept: 'application/json', 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
      body: JSON.stringify(body),
    });
    let answer = {};
    try {
      answer = await res.json();
    } catch {
      /* not JSON */
    }
    return { ok: res.ok, status: res.status, body: answer };
  }
  const actions = createActions({ post, done: () => refresh(true) });
  const events = createEventsPane({ api, $ });
  /** The key's ID and scope, so the page offers only the actions it may take (unknown: all are offered, a 403 told). */
  async function whoAmI() {
    try {
      const me = await api('/v1/keys/me');
      setScope(me.scope);
      $('key-info').textContent = `key ${me.keyId} · ${me.scope}${me.tenant ? ` · customer ${me.tenant}` : ''}`;
      await events.show(me.scope);
    } catch {
      setScope(undefined);
      await events.show(undefined);
      $('key-info').textContent = '';
    }
  }
  const cell = (text, className) => el('td', text, className);
  const timeCell = (iso, text) => {
    const td = cell();
    const t = el('time', text);
    t.dateTime = iso;
    t.title = new Date(iso).toLocaleString();
    td.append(t);
    return td;
  };

  /** The filters as the API's query (the list's and the counts'). */
  function filters() {
    const q = new URLSearchParams();
    if ($('kind').value) q.set('kind', $('kind').value);
    if ($('q').value.trim()) q.set('q', $('q').value.trim());
    if ($('from').value) q.set('startedAfter', new Date($('from').value).toISOString());
    if ($('to').value) q.set('startedBefore', new Date($('to').value).toISOString());
    return q;
  }

  const MARKS = { failed: 'Failed', 'waiting-on-person': 'Waiting on a person' };
  /** A mark in words, its icon hidden from screen readers (the words say it). */
  const markEl = (attention, text) => {
    const span = el('span', undefined, `mark ${attention}`);
    const icon = el('span', attention === 'failed' ? '✖' : '✎');
    icon.setAttribute('aria-hidden', 'true');
    span.append(icon, ` ${text}`);
    return span;
  };
  function row(p) {
    const tr = document.createElement('tr');
    tr.dataset.id = p.processId;
    if (p.attention) tr.className = `attention-${p.attention}`;
    tr.classList.toggle('current', p.processId === current.id);
    const needs = cell();
    if (p.attention) needs.append(markEl(p.attention, MARKS[p.attention]));
    const proc = cell();
    const open = el('button', p.businessKey || p.processId, 'open');
    open.type = 'button';
    open.title = p.processId;
    open.setAttribute('aria-label', `Open ${p.processId}`);
    open.addEventListener('click', () => timeline(p.processId));
    proc.append(el('span', p.tenant ? `${p.kind} · ${p.tenant}` : p.kind, 'kind'), open);
    const state = cell(p.state, 'state');
    if (!['RUNNING', 'COMPLETED', p.state].includes(p.executionStatus)) state.append(el('span', ` (${p.executionStatus.toLowerCase()})`, 'kind'));
    // Its history deleted by Temporal's retention: told from relayflow's audit archive.
    if (p.source === 'archive') state.append(el('span', ' (archived)', 'kind'));
    tr.append(
      needs,
      proc,
      state,
      timeCell(p.lastChangeAt, ago(p.lastChangeAt)),
      cell(p.reason ? mask(p.reason) : '', 'reason'),
      timeCell(p.startedAt, age(p.startedAt)),
    );
    return tr;
  }

  /** The list: its first page (or, refreshing, as many rows as are shown), or the next page. */
  async function list(mode) {
    const q = filters();
    if ($('state').value.trim()) q.set('state', $('state').value.trim().toUpperCase());
    q.set('sort', 'lastChange');
    q.set('pageSize', String(mode === 'refresh' ? Math.min(1000, Math.max(PAGE, listed)) : PAGE));
    if (mode === 'more' && listToken) q.set('pageToken', listToken);
    try {
      const page = await api(`/v1/processes?${q}`);
      const body = $('processes').tBodies[0];
      const rows = page.processes.map(row);
      if (mode === 'more') body.append(...rows);
      else body.replaceChildren(...rows);
      listed = body.rows.length;
      listToken = page.nextPageToken || '';
      $('more').hidden = !listToken;
      $('window-note').hidden = !page.windowFull;
      $('list-refreshed').textContent = `updated ${clock()}`;
      status(listed ? '' : 'No process matches.');
    } catch (err) {
      status(`Could not list processes: ${err.message}`);
    }
  }

  function countButton(label, count, pressed, onClick, className) {
    const b = el('button', `${label} ${count}`, className);
    b.type = 'button';
    b.setAttribute('aria-pressed', String(pressed));
    b.addEventListener('click', onClick);
    return b;
  }
  async function counts() {
    try {
      const c = await api(`/v1/processes/counts?${filters()}`);
      const box = $('counts');
      const state = $('state').value.trim().toUpperCase();
      const pick = (field, value) => () => {
        $(field).value = $(field).value === value ? '' : value;
        reload();
      };
      const parts = [el('span', `${c.total} in all`, 'group')];
      parts.push(el('span', 'need attention:', 'group'));
      parts.push(markEl('waiting-on-person', `${c.waitingOnPerson} waiting on a person`));
      parts.push(markEl('failed', `${c.failed} failed`));
      parts.push(el('span', 'by state:', 'group'));
      for (const s of c.byState) parts.push(countButton(s.state, s.count, s.state === state, pick('state', s.state)));
      if (c.otherStates) parts.push(el('span', `other ${c.otherStates}`));
      parts.push(el('span', 'by kind:', 'group'));
      for (const k of c.byKind) parts.push(countButton(k.kind, k.count, k.kind === $('kind').value, pick('kind', k.kind)));
      box.replaceChildren(...parts);
      $('state-names').replaceChildren(...c.byState.map((s) => new Option(s.state)));
    } catch (err) {
      // The list's message (the same cause, most often) goes first.
      if (!$('status').textContent) status(`Could not count processes: ${err.message}`);
    }
  }

  async function summary(id) {
    try {
      const v = await api(`/v1/processes/${encodeURIComponent(id)}`);
      const last = v.history && v.history.length ? v.history[v.history.length - 1] : undefined;
      const parts = [`${v.kind}: ${v.state}`];
      if (v.since) parts.push(`since ${new Date(v.since).toLocaleString()}`);
      const health = v.details && v.details.health;
      if (health) parts.push(`· health: quality ${health.qualityRating || 'unknown'}, messaging limit ${health.messagingLimit || 'unknown'}`);
      if (last && last.reason && last.state === v.state) parts.push(`— ${last.reason}`);
      if (v.failure) parts.push(`— failed: ${v.failure}`);
      if (v.pendingActivities && v.pendingActivities.length)
        parts.push(`— calling ${v.pendingActivities.map((a) => `${a.activity} (attempt ${a.attempt})`).join(', ')}`);
      $('process-summary').textContent = mask(parts.join(' '));
      $('process-summary').hidden = false;
      const buttons = actions.forProcess(v);
      replaceKeepingFocus($('actions'), buttons);
      $('actions').hidden = !buttons.length;
      await picture(id, v);
    } catch {
      $('process-summary').hidden = true;
      $('actions').hidden = true;
      $('picture').hidden = true;
    }
  }

  /** The open process as a picture, where one says more than the timeline: an onboarding's steps, a campaign's progress. */
  async function picture(id, v) {
    let parts = null;
    if (v.kind === 'onboarding' && v.details && Array.isArray(v.details.steps))
      parts = [...stepGraph(v.details.steps), ...actions.forSteps(v, v.details.steps)];
    else if (/-campaign$/.test(v.kind)) parts = campaignBar(id, await api(`/v1/campaigns/${encodeURIComponent(id)}`));
    // A verification's chain; an SDK's (sdk-verification) is drawn alike, as its one method.
    else if (/(^|-)verification$/.test(v.kind) && v.details && Array.isArray(v.details.steps))
      parts = verificationChain(v, await api(`/v1/processes/${encodeURIComponent(id)}/timeline?pageSize=200`).catch(() => ({ entries: [] })));
    else if (v.kind === 'voice-callout' && v.details && Array.isArray(v.details.legs)) parts = calloutCalls(v);
    if (current.id !== id) return;
    const box = $('picture');
    // A refresh redraws the picture: the step or button that had the keyboard's focus keeps it.
    box.hidden = !parts;
    replaceKeepingFocus(box, parts || [], ['step', 'action']);
  }

  /** A step's state: its icon (hidden from screen readers) and its word. */
  const STEP_STATES = {
    PENDING: { icon: '○', word: 'pending' },
    RUNNING: { icon: '▶', word: 'running' },
    SUCCEEDED: { icon: '✔', word: 'succeeded' },
    FAILED: { icon: '✖', word: 'failed' },
    BLOCKED: { icon: '⊘', word: 'blocked' },
    SKIPPED: { icon: '↷', word: 'skipped' },
    STOPPED: { icon: '■', word: 'stopped' },
  };
  const BOX = { w: 140, h: 64, gapX: 16, gapY: 38, pad: 6 };

  /** An onboarding's steps as boxes in rows by depth (a step below every step it waits for), arrows from each dependency. */
  function stepGraph(steps) {
    const byName = new Map(steps.map((s) => [s.name, s]));
    const depth = new Map();
    const depthOf = (s, seen) => {
      if (depth.has(s.name)) return depth.get(s.name);
      if (seen.has(s.name)) return 0; // a cycle cannot happen (the API refuses it); drawn flat if it did
      seen.add(s.name);
      const deps = (s.after || []).filter((n) => byName.has(n));
      const d = deps.length ? 1 + Math.max(...deps.map((n) => depthOf(byName.get(n), seen))) : 0;
      depth.set(s.name, d);
      return d;
    };
    for (const s of steps) depthOf(s, new Set());
    const rows = [];
    for (const s of steps) (rows[depth.get(s.name)] ||= []).push(s);
    const widest = Math.max(...rows.map((r) => r.length));
    const width = BOX.pad * 2 + widest * BOX.w + (widest - 1) * BOX.gapX;
    const height = BOX.pad * 2 + rows.length * BOX.h + (rows.length - 1) * BOX.gapY;
    const at = new Map();
    rows.forEach((row, r) => {
      // Each step under the steps it waits for (the mean of their places), so arrows cross less.
      const under = (s) => {
        const xs = (s.after || []).map((n) => at.get(n)).filter(Boolean);
        return xs.length ? xs.reduce((sum, p) => sum + p.x, 0) / xs.length : 0;
      };
      if (r > 0) row.sort((a, b) => under(a) - under(b));
      const rowWidth = row.length * BOX.w + (row.length - 1) * BOX.gapX;
      row.forEach((s, i) => at.set(s.name, { x: (width - rowWidth) / 2 + i * (BOX.w + BOX.gapX), y: BOX.pad + r * (BOX.h + BOX.gapY) }));
    });
    // Where each arrow leaves its step and enters the next: spread along the box's edge, in the order of the other ends.
    const edges = steps.flatMap((s) => (s.after || []).filter((dep) => at.has(dep)).map((dep) => ({ from: dep, to: s.name })));
    const port = (edge, end, other) => {
      const mine = edges.filter((e) => e[end] === edge[end]).sort((a, b) => at.get(a[other]).x - at.get(b[other]).x);
      return at.get(edge[end]).x + (BOX.w * (mine.indexOf(edge) + 1)) / (mine.length + 1);
    };

    const svg = svgEl('svg', { width, height, viewBox: `0 0 ${width} ${height}`, class: 'arrows', 'aria-hidden': 'true', focusable: 'false' });
    const defs = svgEl('defs');
    for (const tone of ['plain', 'failed']) {
      const marker = svgEl('marker', {
        id: `arrow-${tone}`,
        viewBox: '0 0 10 10',
        refX: 9,
        refY: 5,
        markerWidth: 7,
        markerHeight: 7,
        orient: 'auto-start-reverse',
      });
      marker.append(svgEl('path', { d: 'M0,0 L10,5 L0,10 z', class: `head ${tone}` }));
      defs.append(marker);
    }
    svg.append(defs);
    for (const edge of edges) {
      const { from, to } = edge;
      const x1 = port(edge, 'from', 'to');
      const y1 = at.get(from).y + BOX.h;
      const x2 = port(edge, 'to', 'from');
      const y2 = at.get(to).y - 1;
      const bend = Math.max(14, (y2 - y1) / 2);
      const tone = ['FAILED', 'BLOCKED'].includes(byName.get(from).state) ? 'failed' : 'plain';
      const path = svgEl('path', {
        d: `M${x1},${y1} C${x1},${y1 + bend} ${x2},${y2 - bend} ${x2},${y2}`,
        class: `edge ${tone}`,
        'marker-end': `url(#arrow-${tone})`,
      });
      path.dataset.from = from;
      path.dataset.to = to;
      svg.append(path);
    }

    const graph = el('div', undefined, 'graph');
    graph.setAttribute('role', 'group');
    graph.setAttribute('aria-label', 'Steps of the onboarding, each below the steps it waits for');
    graph.style.width = `${width}px`;
    graph.style.height = `${height}px`;
    graph.append(svg);
    for (const s of steps) {
      const look = STEP_STATES[s.state] || { icon: '?', word: String(s.state).toLowerCase() };
      // A step with a process is a link to it (this page's address for it: a new tab opens it too); the webhook step
      // is one platform call, focusable to be read.
      const b = el(s.processId ? 'a' : 'div', undefined, `step step-${String(s.state).toLowerCase()}`);
      b.dataset.step = s.name;
      b.dataset.state = s.state;
      const pos = at.get(s.name);
      b.style.left = `${pos.x}px`;
      b.style.top = `${pos.y}px`;
      b.style.width = `${BOX.w}px`;
      b.style.height = `${BOX.h}px`;
      const icon = el('span', look.icon, 'icon');
      icon.setAttribute('aria-hidden', 'true');
      const state = el('span', undefined, 'step-state');
      state.append(icon, ` ${s.state}`);
      const kind = s.processState && s.processState !== s.state ? `${s.kind} · ${s.processState}` : s.kind;
      b.append(el('span', s.name, 'step-name'), el('span', kind, 'step-kind'), state);
      const waits = (s.after || []).length ? `, after ${s.after.join(', ')}` : '';
      const reason = s.reason ? `: ${mask(s.reason)}` : '';
      const opens = s.processId ? ', opens its process' : ', one platform call, no process of its own';
      b.setAttribute('aria-label', `Step ${s.name} (${s.kind}) ${look.word}${reason}${waits}${opens}`);
      b.title = mask(`${s.name}: ${s.state}${s.reason ? ` — ${s.reason}` : ''}${s.attempts > 1 ? ` (attempt ${s.attempts})` : ''}`);
      if (s.processId) {
        b.href = `#process=${encodeURIComponent(s.processId)}`;
        b.addEventListener('click', (ev) => {
          ev.preventDefault();
          timeline(s.processId);
        });
      } else {
        b.tabIndex = 0;
        b.setAttribute('role', 'group');
      }
      graph.append(b);
    }
    const frame = el('div', undefined, 'graph-frame');
    frame.append(graph);
    const parts = [el('h3', 'Steps'), frame];
    // What stops the onboarding, in words beside the picture.
    const stuck = steps.filter((s) => s.reason && ['FAILED', 'BLOCKED', 'SKIPPED', 'STOPPED'].includes(s.state));
    if (stuck.length) {
      const ul = el('ul', undefined, 'step-reasons');
      for (const s of stuck) {
        const li = el('li');
        li.append(el('strong', `${s.name} ${s.state}`), ` — ${mask(s.reason)}`);
        ul.append(li);
      }
      parts.push(ul);
    }
    return parts;
  }

  /** A campaign's recipients as one bar: delivered, sent (no report yet), failed, in doubt, pending (and cancelled, unconfirmed, suppressed). */
  function campaignBar(id, c) {
    const n = c.counts;
    const d = n.delivery || {};
    const delivered = (d.delivered || 0) + (d.read || 0);
    const deliveryFailed = d.failed || 0;
    const segments = [
      { part: 'delivered', label: 'Delivered', count: delivered },
      { part: 'sent', label: 'Sent, not yet delivered', count: Math.max(0, n.sent - delivered - deliveryFailed) },
      { part: 'failed', label: 'Failed', count: n.failed + deliveryFailed },
      { part: 'in-doubt', label: 'In doubt', count: n.inDoubt },
      { part: 'pending', label: 'Pending', count: n.queued + n.sending },
      { part: 'unconfirmed', label: 'Unconfirmed', count: n.unconfirmed, optional: true },
      { part: 'cancelled', label: 'Cancelled', count: n.cancelled, optional: true },
      { part: 'suppressed', label: 'Suppressed (opted out)', count: n.suppressed || 0, optional: true },
    ].filter((s) => !s.optional || s.count > 0);
    const total = segments.reduce((sum, s) => sum + s.count, 0);
    const bar = el('div', undefined, 'bar');
    bar.setAttribute('role', 'img');
    bar.setAttribute('aria-label', `Recipients: ${segments.map((s) => `${s.label.toLowerCase()} ${s.count}`).join(', ')}`);
    const legend = el('ul', undefined, 'legend');
    for (const s of segments) {
      if (s.count > 0) {
        const seg = el('span', undefined, `seg seg-${s.part}`);
        seg.style.width = `${(100 * s.count) / total}%`;
        seg.title = `${s.label}: ${s.count}`;
        bar.append(seg);
      }
      const li = el('li');
      li.dataset.part = s.part;
      const swatch = el('span', undefined, `swatch seg-${s.part}`);
      swatch.setAttribute('aria-hidden', 'true');
      li.append(swatch, `${s.label} `, el('strong', String(s.count), 'count'));
      legend.append(li);
    }
    const headline = el('p', undefined, 'bar-headline');
    const pct = Math.round(100 * (c.progress || 0));
    headline.textContent = `${c.state}: ${n.sent} sent of ${total} recipients, ${pct} % past sending`;
    if (c.details && c.details.rate) headline.textContent += ` · ${c.details.rate}/s (platform limit ${c.details.platformRate}/s)`;
    sampleCampaign(id, { delivered, failed: n.failed + deliveryFailed });
    const parts = [el('h3', 'Progress'), headline, bar, legend, ...rateSparkline(id, refreshMs())];
    const notes = [];
    if (n.invalid) notes.push(`${n.invalid} invalid numbers not sent`);
    if (n.duplicates) notes.push(`${n.duplicates} duplicates dropped`);
    if (n.reasons && n.reasons.length)
      notes.push(
        `reasons: ${n.reasons
          .slice(0, 3)
          .map((r) => `${r.reason} (${r.count})`)
          .join('; ')}`,
      );
    if (notes.length) parts.push(el('p', mask(notes.join(' · ')), 'bar-notes'));
    return parts;
  }

  /** A process's timeline: opened, the next page, or (refreshing) read again as far as it was shown. */
  async function timeline(id, mode = 'open') {
    if (mode === 'open') {
      current = { id, token: '', loaded: 0 };
      $('timeline-title').textContent = id;
      $('picture').hidden = true;
      $('actions').hidden = true;
      $('action-answer').hidden = true;
      for (const tr of $('processes').tBodies[0].rows) tr.classList.toggle('current', tr.dataset.id === id);
    }
    const q = new URLSearchParams({ pageSize: String(mode === 'refresh' ? Math.min(500, Math.max(200, current.loaded)) : 200) });
    if (mode === 'more' && current.token) q.set('pageToken', current.token);
    try {
      const [page] = await Promise.all([api(`/v1/processes/${encodeURIComponent(id)}/timeline?${q}`), mode === 'more' ? null : summary(id)]);
      if (current.id !== id) return; // another process was opened meanwhile
      if (page.source === 'archive' && mode !== 'more') {
        $('process-summary').textContent = "Archived: Temporal's retention deleted this history; the timeline was kept when the process closed.";
        $('process-summary').hidden = false;
      }
      const rows = page.entries.map((e) => {
        const tr = document.createElement('tr');
        tr.className = `entry entry-${e.kind.replace(/\s+/g, '-')}`;
        const text = cell(e.summary, e.details && e.details.duplicate ? 'duplicate' : '');
        if (e.details && e.details.link) {
          const a = el('a', ' (open)');
          a.href = '#';
          a.addEventListener('click', (ev) => {
            ev.preventDefault();
            timeline(decodeURIComponent(e.details.link.split('/')[3]));
          });
          text.append(a);
        }
        tr.append(cell(new Date(e.at).toLocaleString()), cell(e.kind, `kind-${e.kind.replace(/\s+/g, '-')}`), text);
        return tr;
      });
      const body = $('timeline').tBodies[0];
      if (mode === 'more') body.append(...rows);
      else body.replaceChildren(...rows);
      current.loaded = body.rows.length;
      current.token = page.nextPageToken || '';
      $('timeline-more').hidden = !current.token;
      $('timeline-actions').hidden = false;
      $('timeline-refreshed').textContent = `updated ${clock()}`;
      status('');
    } catch (err) {
      status(`Could not read the timeline of ${id}: ${err.message}`);
    }
  }

  async function exportCsv(ev) {
    ev.preventDefault();
    try {
      const csv = await api(`/v1/processes/${encodeURIComponent(current.id)}/timeline?format=csv&pageSize=500`, 'text/csv');
      const a = document.createElement('a');
      a.href = URL.createObjectURL(new Blob([csv], { type: 'text/csv' }));
      a.download = `${current.id.replace(/[^A-Za-z0-9._-]+/g, '_')}.csv`;
      a.click();
    } catch (err) {
      status(`Could not export: ${err.message}`);
    }
  }

  function reload() {
    return Promise.all([list('first'), counts()]);
  }
  /** The picked refresh interval in ms. */
  function refreshMs() {
    return Number($('every').value) * 1000;
  }
  let again = false;
  /** Reads the list, counts and open process again: every interval while live, and `now` after an action. */
  async function refresh(now = false) {
    if (!key || (!now && (!$('live').checked || document.hidden))) return;
    if (busy) {
      again ||= now; // an action's answer is shown as soon as the refresh under way ends
      return;
    }
    busy = true;
    try {
      await Promise.all([list('refresh'), counts(), current.id ? timeline(current.id, 'refresh') : null, events.refresh()]);
    } finally {
      busy = false;
      if (again) {
        again = false;
        void refresh(true);
      }
    }
  }
  function tick() {
    setTimeout(async () => {
      await refresh();
      tick();
    }, refreshMs());
  }

  $('key-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    key = $('key').value.trim();
    sessionStorage.setItem('relayflow-key', key);
    whoAmI().then(reload);
  });
  $('filters').addEventListener('submit', (ev) => {
    ev.preventDefault();
    reload();
  });
  $('clear').addEventListener('click', () => {
    for (const id of ['kind', 'state', 'from', 'to', 'q']) $(id).value = '';
    reload();
  });
  $('more').addEventListener('click', () => list('more'));
  $('timeline-more').addEventListener('click', () => timeline(current.id, 'more'));
  $('csv').addEventListener('click', exportCsv);
  for (const k of (document.body.dataset.kinds || '').split(',').filter(Boolean)) $('kind').append(new Option(k, k));
  for (const id of ['kind', 'state', 'q', 'from', 'to']) $(id).value = params.get(id) || '';
  if ([...$('every').options].some((o) => o.value === params.get('refresh'))) $('every').value = params.get('refresh');
  tick();
  document.addEventListener('visibilitychange', () => refresh());
  if (key) {
    sessionStorage.setItem('relayflow-key', key);
    // The key's scope first: the open process's buttons are drawn for it.
    whoAmI().then(() => {
      reload();
      if (params.get('process')) timeline(params.get('process'));
    });
  }
}
