// The audit page: where every process is and why, and one's timeline, from the API's own routes with the key the
// person pastes (kept for this tab only: sessionStorage, and taken out of the address once read). The list is ordered
// by last change, counted by kind and state, filtered, and refreshed every 15 s with the open process. The address
// `#key=...&process=...&kind=...&state=...&q=...&from=...&to=...` opens the page so.
(() => {
  'use strict';
  const REFRESH_MS = 15_000;
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
  const clock = () => new Date().toLocaleTimeString();
  /** Phone numbers masked as the API masks them (common/logger.ts maskPhoneNumbers). */
  const mask = (text) =>
    String(text).replace(/\+?\d[\d ()-]{5,}\d/g, (m) => {
      const digits = m.replace(/\D/g, '');
      return digits.length >= 7 ? `${m.startsWith('+') ? '+' : ''}***${digits.slice(-2)}` : m;
    });
  const ago = (iso) => {
    const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
    if (s < 60) return `${s} s ago`;
    if (s < 3600) return `${Math.floor(s / 60)} min ago`;
    if (s < 86400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min ago`;
    return `${Math.floor(s / 86400)} d ago`;
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
  const el = (tag, text, className) => {
    const e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (className) e.className = className;
    return e;
  };
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
    proc.append(el('span', p.kind, 'kind'), open);
    const state = cell(p.state, 'state');
    if (!['RUNNING', 'COMPLETED', p.state].includes(p.executionStatus)) state.append(el('span', ` (${p.executionStatus.toLowerCase()})`, 'kind'));
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
      if (last && last.reason && last.state === v.state) parts.push(`— ${last.reason}`);
      if (v.failure) parts.push(`— failed: ${v.failure}`);
      if (v.pendingActivities && v.pendingActivities.length)
        parts.push(`— calling ${v.pendingActivities.map((a) => `${a.activity} (attempt ${a.attempt})`).join(', ')}`);
      $('process-summary').textContent = mask(parts.join(' '));
      $('process-summary').hidden = false;
    } catch {
      $('process-summary').hidden = true;
    }
  }

  /** A process's timeline: opened, the next page, or (refreshing) read again as far as it was shown. */
  async function timeline(id, mode = 'open') {
    if (mode === 'open') {
      current = { id, token: '', loaded: 0 };
      $('timeline-title').textContent = id;
      for (const tr of $('processes').tBodies[0].rows) tr.classList.toggle('current', tr.dataset.id === id);
    }
    const q = new URLSearchParams({ pageSize: String(mode === 'refresh' ? Math.min(500, Math.max(200, current.loaded)) : 200) });
    if (mode === 'more' && current.token) q.set('pageToken', current.token);
    try {
      const [page] = await Promise.all([api(`/v1/processes/${encodeURIComponent(id)}/timeline?${q}`), mode === 'more' ? null : summary(id)]);
      if (current.id !== id) return; // another process was opened meanwhile
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
  async function refresh() {
    if (!key || busy || !$('live').checked || document.hidden) return;
    busy = true;
    try {
      await Promise.all([list('refresh'), counts(), current.id ? timeline(current.id, 'refresh') : null]);
    } finally {
      busy = false;
    }
  }

  $('key-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    key = $('key').value.trim();
    sessionStorage.setItem('relayflow-key', key);
    reload();
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
  setInterval(refresh, REFRESH_MS);
  document.addEventListener('visibilitychange', refresh);
  if (key) {
    sessionStorage.setItem('relayflow-key', key);
    reload();
    if (params.get('process')) timeline(params.get('process'));
  }
})();
