// The event subscriptions and their delivery logs, for an admin key: where relayflow pushes process events, whether
// each receiver takes them (failing since, pending, disabled and why), and one subscription's attempts.
import { ago, el } from './dom.js';

export function createEventsPane({ api, $ }) {
  let shown = false;
  let picked;

  const cell = (text) => el('td', text === undefined ? '' : String(text));

  async function attempts(id) {
    picked = id;
    const { attempts: rows } = await api(`/v1/event-subscriptions/${encodeURIComponent(id)}/attempts?limit=50`);
    $('event-attempts-title').textContent = `Delivery log of ${id}`;
    $('event-attempts').tBodies[0].replaceChildren(
      ...rows.map((a) => {
        const tr = el('tr', undefined, a.statusCode >= 200 && a.statusCode < 300 ? 'ok' : 'failed');
        tr.append(
          cell(new Date(a.at).toLocaleString()),
          cell(a.eventId),
          cell(a.attempt),
          cell(a.statusCode ?? 'no answer'),
          cell(`${a.latencyMs} ms`),
          cell(a.error),
        );
        return tr;
      }),
    );
    $('event-attempts').hidden = false;
  }

  async function refresh() {
    if (!shown) return;
    const { subscriptions } = await api('/v1/event-subscriptions');
    $('event-subscriptions').tBodies[0].replaceChildren(
      ...subscriptions.map((s) => {
        const tr = el('tr', undefined, s.status === 'disabled' ? 'failed' : s.failingSince ? 'waiting' : '');
        const open = el('button', s.id, 'link');
        open.type = 'button';
        open.addEventListener('click', () => attempts(s.id));
        const first = el('td');
        first.append(open);
        const state =
          s.status === 'disabled'
            ? `disabled: ${s.disabledReason ?? ''}`
            : s.failingSince
              ? `failing for ${ago(s.failingSince).replace(/ ago$/, '')}`
              : 'active';
        tr.append(first, cell(s.url), cell((s.kinds ?? ['every kind']).join(', ')), cell(state), cell(s.pending));
        return tr;
      }),
    );
    $('events-empty').hidden = subscriptions.length > 0;
    if (picked && subscriptions.some((s) => s.id === picked)) await attempts(picked);
  }

  return {
    /** Shown only to an admin key: the routes answer 403 to the others. */
    async show(scope) {
      shown = scope === 'admin';
      $('events-pane').hidden = !shown;
      if (shown) await refresh().catch(() => undefined);
    },
    refresh: () => refresh().catch(() => undefined),
  };
}
