// The audit page: lists processes and tells one's timeline, from the API's own routes with the key the person
// pastes (kept for this tab only). `#key=...&process=...` in the address opens a process directly; `&kind=` and
// `&state=` set the list's filters.
(() => {
  'use strict';
  const $ = (id) => document.getElementById(id);
  const params = new URLSearchParams(location.hash.slice(1));
  let key = params.get('key') || sessionStorage.getItem('relayflow-key') || '';
  let listToken = '';
  let current = { id: '', token: '' };
  $('key').value = key;

  const status = (text) => {
    $('status').textContent = text;
  };
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
  const cell = (text, className) => {
    const td = document.createElement('td');
    td.textContent = text;
    if (className) td.className = className;
    return td;
  };

  async function list(more) {
    if (!more) {
      listToken = '';
      $('processes').tBodies[0].replaceChildren();
    }
    const q = new URLSearchParams({ pageSize: '50' });
    if ($('kind').value) q.set('kind', $('kind').value);
    if ($('state').value.trim()) q.set('state', $('state').value.trim());
    if (listToken) q.set('pageToken', listToken);
    try {
      const page = await api(`/v1/processes?${q}`);
      for (const p of page.processes) {
        const tr = document.createElement('tr');
        tr.dataset.id = p.processId;
        tr.append(cell(p.processId), cell(p.kind), cell(p.state), cell(p.startedAt ? new Date(p.startedAt).toLocaleString() : ''));
        tr.addEventListener('click', () => timeline(p.processId));
        $('processes').tBodies[0].append(tr);
      }
      listToken = page.nextPageToken || '';
      $('more').hidden = !listToken;
      status(page.processes.length || more ? '' : 'No process matches.');
    } catch (err) {
      status(`Could not list processes: ${err.message}`);
    }
  }

  async function timeline(id, more) {
    if (!more) {
      current = { id, token: '' };
      $('timeline').tBodies[0].replaceChildren();
      $('timeline-title').textContent = id;
      for (const tr of $('processes').tBodies[0].rows) tr.classList.toggle('current', tr.dataset.id === id);
    }
    const q = new URLSearchParams({ pageSize: '200' });
    if (current.token) q.set('pageToken', current.token);
    try {
      const page = await api(`/v1/processes/${encodeURIComponent(id)}/timeline?${q}`);
      for (const e of page.entries) {
        const tr = document.createElement('tr');
        tr.className = `entry entry-${e.kind.replace(/\s+/g, '-')}`;
        const summary = cell(e.summary, e.details && e.details.duplicate ? 'duplicate' : '');
        if (e.details && e.details.link) {
          const a = document.createElement('a');
          a.href = '#';
          a.textContent = ' (open)';
          a.addEventListener('click', (ev) => {
            ev.preventDefault();
            timeline(decodeURIComponent(e.details.link.split('/')[3]));
          });
          summary.append(a);
        }
        tr.append(cell(new Date(e.at).toLocaleString()), cell(e.kind, `kind-${e.kind.replace(/\s+/g, '-')}`), summary);
        $('timeline').tBodies[0].append(tr);
      }
      current.token = page.nextPageToken || '';
      $('timeline-more').hidden = !current.token;
      $('timeline-actions').hidden = false;
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

  $('key-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    key = $('key').value.trim();
    sessionStorage.setItem('relayflow-key', key);
    list(false);
  });
  $('filters').addEventListener('submit', (ev) => {
    ev.preventDefault();
    list(false);
  });
  $('more').addEventListener('click', () => list(true));
  $('timeline-more').addEventListener('click', () => timeline(current.id, true));
  $('csv').addEventListener('click', exportCsv);
  for (const k of (document.body.dataset.kinds || '').split(',').filter(Boolean)) $('kind').append(new Option(k, k));
  $('kind').value = params.get('kind') || '';
  $('state').value = params.get('state') || '';
  if (key) {
    sessionStorage.setItem('relayflow-key', key);
    list(false);
    if (params.get('process')) timeline(params.get('process'));
  }
})();
